/**
 * @module The OpenTelemetry SDK, started by the service only when the standard environment asks
 * for traces: `OTEL_TRACES_EXPORTER` set to an exporter (not `none`), or an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true`
 * wins. `NodeSDK` reads the rest (protocol, headers, sampler, batch sizes, propagators, service name
 * and resource attributes). Traces only: no metrics or logs pipelines, no instrumentation but the
 * Fastify one (`fastify.ts`), and a resource of the service name and `OTEL_RESOURCE_ATTRIBUTES`
 * only — the process and host detectors are left out, since the command line may hold a database
 * URL with its password.
 *
 * The sampler, unless `OTEL_TRACES_SAMPLER` names one, is this service's default
 * ({@link defaultSampler}): a caller's sampled trace is followed, and one request in ten
 * (`OTEL_TRACES_SAMPLER_ARG` changes the ratio) starts a sampled trace. With it, tracing's cost on
 * `/verify` throughput is below what the bench resolves (docs/operations.md, "Cost"); every request
 * traced costs about 10 %.
 *
 * The SDK is global to the process. The services of one process share the one started from the
 * environment; the last to close shuts it down (spans still queued are exported first) and
 * unregisters it, so a later start begins afresh.
 */

import { context, logs, propagation, trace } from '@opentelemetry/api';
import { defaultResource, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import type { FastifyPluginAsync } from 'fastify';

import { type ReplyReason, requestTracing } from './fastify.js';

/** Tracing, started: the request plugins of the two listeners, and its end. */
export interface Tracing {
  /** The facilitator listener's request tracing (accepts a merchant's trace context). */
  facilitatorPlugin(reasonOf: ReplyReason): FastifyPluginAsync;
  /** The pool node's request tracing (refuses inbound trace context). */
  poolNodePlugin(reasonOf: ReplyReason): FastifyPluginAsync;
  /** Exports what is queued, stops the SDK and unregisters it (idempotent). */
  shutdown(): Promise<void>;
}

const SERVICE_NAME = 'priv-stark';

/** The share of requests that start a sampled trace when the environment names no sampler. */
export const DEFAULT_TRACE_RATIO = 0.1;

/**
 * The sampler when `OTEL_TRACES_SAMPLER` is unset: parent-based (a caller's sampled or dropped
 * trace decides), and otherwise a trace-id ratio of `OTEL_TRACES_SAMPLER_ARG` when it is a number
 * in [0, 1], else {@link DEFAULT_TRACE_RATIO}. `undefined` when the environment names a sampler:
 * the SDK reads it.
 */
export function defaultSampler(env: NodeJS.ProcessEnv = process.env): Sampler | undefined {
  if (env.OTEL_TRACES_SAMPLER?.trim()) return undefined;
  const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const ratio = arg && /^(0(\.[0-9]+)?|1(\.0+)?)$/.test(arg) ? Number(arg) : DEFAULT_TRACE_RATIO;
  return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
}

let running: NodeSDK | null = null;

/**
 * Starts the SDK from the environment and registers it for the process.
 * @throws Error when tracing already runs in this process
 */
export function startTracing(): Tracing {
  if (running) throw new Error('tracing already runs in this process');
  const sampler = defaultSampler();
  const sdk = new NodeSDK({
    ...(sampler ? { sampler } : {}),
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': SERVICE_NAME })),
    resourceDetectors: [envDetector],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  running = sdk;
  const provider = trace.getTracerProvider();
  let stopping: Promise<void> | null = null;
  return {
    facilitatorPlugin: (reasonOf) => requestTracing(provider, 'facilitator', reasonOf),
    poolNodePlugin: (reasonOf) => requestTracing(provider, 'pool-node', reasonOf),
    shutdown: () => {
      stopping ??= sdk.shutdown().finally(() => {
        trace.disable();
        context.disable();
        propagation.disable();
        logs.disable();
        if (running === sdk) running = null;
      });
      return stopping;
    },
  };
}

let shared: { readonly tracing: Tracing; users: number } | null = null;

/**
 * The process's tracing from the environment, shared by its services: started by the first,
 * shut down when the last one's handle shuts down.
 */
export function sharedTracing(): Tracing {
  if (shared === null) shared = { tracing: startTracing(), users: 0 };
  const entry = shared;
  entry.users++;
  let released = false;
  return {
    facilitatorPlugin: (reasonOf) => entry.tracing.facilitatorPlugin(reasonOf),
    poolNodePlugin: (reasonOf) => entry.tracing.poolNodePlugin(reasonOf),
    shutdown: async () => {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      if (shared === entry) shared = null;
      await entry.tracing.shutdown();
    },
  };
}
