/**
 * @module The spans of the facilitator, the ledger and the pool node's ledger calls, over
 * `@opentelemetry/api` only (what those rooms may use): the checks, the proof's verification, the
 * ledger's settle, refuse, hand-over and commit, each store call. A span starts only as the child of
 * a recording span — a request's — so without an SDK (tracing off, the default) or outside a
 * request (the checkpoint timer) a call here costs a context lookup and runs the work as is.
 *
 * A span carries its name, this project's reason when the work refused (a reason of the registry:
 * it names no one), the transport, the store's kind and a group's size — nothing of the payment.
 * Thrown errors set the status and `error.type` (the error's class), never the message. Every span
 * goes through the scrubbing tracer ({@link scrubbedTracer}) too.
 */

import {
  type Context,
  context,
  type Span,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';

import { scrubbedTracer } from './scrub.js';

/** The spans this project starts itself (request spans are the Fastify instrumentation's). */
export type SpanName =
  | 'facilitator.checks'
  | 'proof.verify'
  | 'ledger.settle'
  | 'ledger.refuse'
  | 'ledger.hand_over'
  | 'ledger.note_transition'
  | 'ledger.commit'
  | `store.${string}`;

/** What a span of ours may say besides its reason: kinds and counts. */
export interface SpanFacts {
  readonly 'priv_stark.transport'?: 'inline' | 'reference';
  readonly 'priv_stark.store'?: 'sqlite' | 'postgres';
  readonly 'priv_stark.ops'?: number;
}

/** How a span reads the outcome of its work. */
export interface SpanOptions<T> {
  readonly facts?: SpanFacts | undefined;
  /** The registry reason when the result is a refusal, `null` when it is not. */
  readonly reasonOf?: ((result: T) => string | null) | undefined;
  /** The registry reason of a thrown error, if it has one (a store outage: `pool_unavailable`). */
  readonly reasonOfError?: ((error: unknown) => string | null) | undefined;
  /**
   * The work starts no span of its own (a store call, a verification, the synchronous checks):
   * it runs as is instead of under its span's context — entering a context is most of what a span
   * costs the event loop besides the SDK's own work.
   */
  readonly leaf?: boolean | undefined;
}

/** The name of this project's tracer. */
export const TRACER_NAME = 'priv-stark';

const ERROR_TYPE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

let cached: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

/**
 * This project's tracer, kept per global provider: a tracer kept across SDKs would outlive its
 * own (tests start several; shutting one down registers a new global provider).
 */
function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (cached?.provider !== provider)
    cached = { provider, tracer: scrubbedTracer(provider.getTracer(TRACER_NAME)) };
  return cached.tracer;
}

/** The active context when its span records, else `null` (no SDK, no request, not sampled). */
function recordingParent(): Context | null {
  const active = context.active();
  return trace.getSpan(active)?.isRecording() ? active : null;
}

function refused(span: Span, reason: string | null): void {
  if (reason === null) return;
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('priv_stark.reason', reason);
}

function failed<T>(span: Span, error: unknown, options: SpanOptions<T>): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  const name = error instanceof Error ? error.name : '';
  span.setAttribute('error.type', ERROR_TYPE.test(name) ? name : 'Error');
  const reason = options.reasonOfError?.(error) ?? null;
  if (reason !== null) span.setAttribute('priv_stark.reason', reason);
}

function startUnder(parent: Context, name: SpanName, facts: SpanFacts | undefined): Span {
  return tracer().startSpan(name, facts ? { attributes: { ...facts } } : {}, parent);
}

/**
 * Runs `work` in a child span of the active request's span (or as is, when there is none).
 * @example
 * const verdict = await inSpan('proof.verify', () => verify(proof, inputs), {
 *   reasonOf: (v) => (v.ok ? null : 'invalid_priv_stark_proof'),
 * });
 */
export async function inSpan<T>(
  name: SpanName,
  work: () => Promise<T>,
  options: SpanOptions<T> = {},
): Promise<T> {
  const parent = recordingParent();
  if (parent === null) return work();
  const span = startUnder(parent, name, options.facts);
  try {
    const result = await (options.leaf ? work() : context.with(trace.setSpan(parent, span), work));
    refused(span, options.reasonOf?.(result) ?? null);
    return result;
  } catch (error) {
    failed(span, error, options);
    throw error;
  } finally {
    span.end();
  }
}

/** {@link inSpan} for synchronous work. */
export function inSpanSync<T>(name: SpanName, work: () => T, options: SpanOptions<T> = {}): T {
  const parent = recordingParent();
  if (parent === null) return work();
  const span = startUnder(parent, name, options.facts);
  try {
    const result = options.leaf ? work() : context.with(trace.setSpan(parent, span), work);
    refused(span, options.reasonOf?.(result) ?? null);
    return result;
  } catch (error) {
    failed(span, error, options);
    throw error;
  } finally {
    span.end();
  }
}

/** A saved trace context (see {@link activeContext}). */
export type TraceContext = Context;

/** The active context, to resume later work under it (see {@link inContext}). */
export function activeContext(): TraceContext {
  return context.active();
}

/**
 * Runs `work` under `saved` — work queued by one request and done later (a group commit) stays in
 * that request's trace instead of whichever one happened to be active.
 */
export function inContext<T>(saved: TraceContext, work: () => T): T {
  return context.with(saved, work);
}
