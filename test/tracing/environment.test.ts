// Traces follow the standard OTEL_* environment: off unless it names a trace exporter (not
// `none`) or an OTLP endpoint. Off, the service registers no tracer provider, propagator or
// context manager (a span started through the API does not record). On, the real service exports
// over OTLP/HTTP to a collector stub on loopback: the spans of /verify, /settle and the pool node
// arrive with the configured service name and resource attributes, the wire bytes hold none of
// the payment's values, the client address, the query or the headers, and closing the service
// exports what was queued and unregisters the SDK (the twin of "off").

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { type RunningService, SERVICE_DEFAULTS, startService } from '../../src/service/index.js';
import { NO_EPOCH_GRID } from '../../src/scheme/index.js';
import { tracingRequested } from '../../src/tracing/index.js';
import { handOverBody } from '../../testkit/bodies.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { liveSpec, requestOf } from '../http/helpers/requests.js';
import { startCollector } from './helpers/collector.js';
import { type Forbidden, findForbiddenText, paymentValues } from './helpers/scan.js';

const SPEC = { ...liveSpec('tracing', 4, 2), amount: '987654' };
const API_KEY = 'tracing-env-key-0123456789abcdef';
const OPERATOR_TOKEN = 'tracing-env-operator-0123456789';
const INBOUND_TRACE = '5cf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_HEADERS = {
  'user-agent': 'tracing-env-agent/2.1',
  traceparent: `00-${INBOUND_TRACE}-10f067aa0ba902b7-01`,
  baggage: 'payer=wallet-9191',
};

/** Whether a span started through the API now would record (an SDK is registered). */
function apiRecords(): boolean {
  const span = trace.getTracer('probe').startSpan('probe');
  span.end();
  return span.isRecording() || span.spanContext().traceId !== '00000000000000000000000000000000';
}

/** Whether a context manager is registered (the no-op one ignores `with`). */
function contextPropagates(): boolean {
  const span = trace.wrapSpanContext({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
  });
  return context.with(
    trace.setSpan(ROOT_CONTEXT, span),
    () => trace.getSpan(context.active()) === span,
  );
}

describe('tracingRequested', () => {
  it('is on for a trace exporter or an OTLP endpoint, off otherwise', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'x', OTEL_PROPAGATORS: 'tracecontext' })).toBe(
      false,
    );
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }),
    ).toBe(true);
    // `none` and OTEL_SDK_DISABLED win; blank values are unset.
    expect(
      tracingRequested({
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      }),
    ).toBe(false);
    expect(
      tracingRequested({
        OTEL_SDK_DISABLED: 'TRUE',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      }),
    ).toBe(false);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: ' ', OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(
      false,
    );
  });
});

describe('the service and the OTEL_* environment', () => {
  let core: PrivStarkCore;
  let fx: Fixtures;
  const saved = { ...process.env };
  const dirs: string[] = [];
  let service: RunningService | undefined;

  beforeAll(async () => {
    core = await loadCore();
    fx = await fixtures(core, SPEC);
  }, 600_000);

  afterEach(async () => {
    await service?.close();
    service = undefined;
    for (const key of Object.keys(process.env))
      if (key.startsWith('OTEL_') && !(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<RunningService> {
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-tracing-env-'));
    dirs.push(dir);
    service = await startService(
      {
        ...SERVICE_DEFAULTS,
        epoch: NO_EPOCH_GRID,
        port: 0,
        poolPort: 0,
        dataDir: dir,
        logLevel: 'silent',
        checkpointIntervalMs: 3_600_000,
        apiKeys: API_KEY,
        operatorToken: OPERATOR_TOKEN,
      },
      () => undefined,
    );
    await fundPool(service.ledger, fx);
    return service;
  }

  const post = (s: RunningService, route: 'verify' | 'settle', body: unknown) =>
    fetch(`${s.facilitatorUrl}/${route}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${API_KEY}`,
        ...CLIENT_HEADERS,
      },
      body: JSON.stringify(body),
    });

  it('off by default: without OTEL_* variables no SDK starts and nothing records', async () => {
    for (const key of Object.keys(process.env))
      if (key.startsWith('OTEL_')) delete process.env[key];
    expect(tracingRequested()).toBe(false);
    const s = await start();
    expect(apiRecords()).toBe(false);
    expect(propagation.fields()).toEqual([]);
    expect(contextPropagates()).toBe(false);
    const verified = await post(s, 'verify', requestOf(fx.payments[0]!));
    expect(verified.status).toBe(200);
    const read = await fetch(`${s.poolNodeUrl}/leaves?from=1&limit=2`, { headers: CLIENT_HEADERS });
    expect(read.status).toBe(200);
    expect(apiRecords()).toBe(false);
  });

  it('on with an OTLP endpoint: spans reach the collector, without a forbidden value; close unregisters', async () => {
    const collector = await startCollector();
    try {
      Object.assign(process.env, {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_SERVICE_NAME: 'priv-stark-traces-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=ci',
        // Every request sampled, so each one's spans can be looked for (the default: sampler.test.ts).
        OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      });
      expect(tracingRequested()).toBe(true);
      const s = await start();
      expect(apiRecords()).toBe(true);
      expect(propagation.fields()).toEqual(expect.arrayContaining(['traceparent', 'baggage']));

      const [verifyPayment, settlePayment, handedOver] = [
        fx.payments[0]!,
        fx.payments[2]!,
        fx.payments[4]!,
      ];
      expect((await post(s, 'verify', requestOf(verifyPayment))).status).toBe(200);
      expect((await post(s, 'settle', requestOf(settlePayment))).status).toBe(200);
      const handOver = await fetch(`${s.poolNodeUrl}/proofs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...CLIENT_HEADERS },
        body: JSON.stringify(handOverBody(handedOver)),
      });
      expect(handOver.status).toBe(201);
      const { reference } = (await handOver.json()) as { reference: string };
      const read = await fetch(`${s.poolNodeUrl}/events?after=1&limit=4`, {
        headers: CLIENT_HEADERS,
      });
      expect(read.status).toBe(200);

      await s.close(); // exports what is queued
      service = undefined;
      expect(apiRecords()).toBe(false);
      expect(propagation.fields()).toEqual([]);

      const wire = collector.bodies.join('\n');
      const names = [...wire.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]);
      expect(names).toEqual(
        expect.arrayContaining([
          'POST /verify',
          'POST /settle',
          'POST /proofs',
          'GET /events',
          'facilitator.checks',
          'proof.verify',
          'ledger.settle',
          'ledger.hand_over',
          'ledger.commit',
          'store.apply',
          'store.events',
        ]),
      );
      expect(wire).toContain('"stringValue":"priv-stark-traces-test"');
      expect(wire).toContain('deployment.environment.name');
      const forbidden: Forbidden = {
        ...paymentValues(verifyPayment),
        ...paymentValues(settlePayment),
        ...paymentValues(handedOver, reference),
        'client address': '127.0.0.1',
        'api key': API_KEY,
        'user agent': CLIENT_HEADERS['user-agent'],
        baggage: 'wallet-9191',
        'query after': 'after=',
        'query limit': 'limit=',
        'url.path attribute': 'url.path',
        'process command line': 'process.command',
        'host name attribute': 'host.name',
      };
      expect(findForbiddenText(wire, forbidden)).toEqual([]);
      // The facilitator joined the inbound trace; the pool node's requests started their own.
      const traceOf = (name: string) => collector.spans.find((span) => span.name === name)?.traceId;
      expect(traceOf('POST /verify')).toBe(INBOUND_TRACE);
      expect(traceOf('POST /proofs')).toMatch(/^[0-9a-f]{32}$/);
      expect(traceOf('POST /proofs')).not.toBe(INBOUND_TRACE);
      expect(traceOf('GET /events')).not.toBe(INBOUND_TRACE);
      // Must-fail twin: the same search finds what the wire does hold.
      expect(findForbiddenText(wire, { route: 'POST /verify', service: 'traces-test' })).toEqual([
        'route',
        'service',
      ]);
    } finally {
      await collector.close();
    }
  });
});
