// Traces of the real service on loopback (startService, both listeners, the embedded store), on
// as an operator turns them on — the OTEL_* environment names an OTLP endpoint — and exported over
// OTLP/HTTP (JSON) to a collector in the test process that decodes the spans: each /verify, /settle and pool-node request is one
// server span with the checks, the store calls, the proof's verification, the ledger's settle and
// commit and the hand-over as children; a failure sets the status and priv_stark.reason on the
// request span and on the child that refused; the pool node starts a new trace whatever
// traceparent or baggage a wallet sends (the facilitator, its twin, joins a merchant's trace); and
// no span name, attribute, status message, event or resource holds a nullifier, root, change,
// recipient, amount, resource id, proof, reference, the client address, a query string or a
// header's value. Must-fail twins: the scanner finds a planted value, and @fastify/otel with its
// defaults (no scrubbing) records the query string and quotes a body in a status message.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { FastifyOtelInstrumentation } from '@fastify/otel';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningService, SERVICE_DEFAULTS, startService } from '../../src/service/index.js';
import { NO_EPOCH_GRID } from '../../src/scheme/index.js';
import { handOverBody } from '../../testkit/bodies.js';
import { type Fixtures, fixtures, fundPool, type PaymentFixture } from '../../testkit/fixtures.js';
import { compactRequestOf, liveSpec, requestOf } from '../http/helpers/requests.js';
import { type Collector, type ExportedSpan, startCollector } from './helpers/collector.js';
import { type Forbidden, findForbidden, paymentValues } from './helpers/scan.js';

/** Payments of an amount no span attribute would hold by chance. */
const VARIANTS = 2;
const SPEC = { ...liveSpec('tracing', 4, VARIANTS), amount: '987654' };
const API_KEY = 'tracing-api-key-0123456789abcdef';
const OPERATOR_TOKEN = 'tracing-operator-0123456789abcdef';
const INBOUND_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INBOUND_SPAN = '00f067aa0ba902b7';
/** What a wallet or a merchant might send along: a user agent, trace context, baggage. */
const CLIENT_HEADERS = {
  'user-agent': 'tracing-suite-agent/7.3',
  traceparent: `00-${INBOUND_TRACE}-${INBOUND_SPAN}-01`,
  baggage: 'payer=wallet-4242,session=s-7777',
} as const;

/** Values of the client and the requests that no span may hold, whatever the payment. */
const REQUEST_VALUES: Forbidden = {
  'client address': '127.0.0.1',
  'api key': API_KEY,
  'operator token': OPERATOR_TOKEN,
  'authorization scheme': 'Bearer',
  'user agent': CLIENT_HEADERS['user-agent'],
  'inbound trace id': INBOUND_TRACE,
  'inbound baggage': 'wallet-4242',
  'inbound baggage session': 's-7777',
  'content type': 'application/json',
  'query string': '?',
  'query after': 'after=',
  'query from': 'from=',
  'query limit': 'limit=',
};

interface Tree {
  readonly root: ExportedSpan;
  readonly spans: readonly ExportedSpan[];
  /** The span named `name` (exactly one). */
  one(name: string): ExportedSpan;
  /** The names of the spans whose parent is `parent`. */
  childrenOf(parent: ExportedSpan): string[];
}

/** JSON that does not parse (a parser's error may quote the body; Fastify's names the content type). */
const brokenBody = (p: PaymentFixture) =>
  `{"scheme":"priv-stark/v1","amount": x${p.payment.amount}}`;

/** The trace of the request span named `name`: every span in it descends from that span. */
function requestTree(spans: readonly ExportedSpan[], name: string): Tree {
  const roots = spans.filter((s) => s.name === name && s.kind === SpanKind.SERVER);
  expect(
    roots,
    `one ${name} server span among ${spans.map((s) => s.name).join(', ')}`,
  ).toHaveLength(1);
  const root = roots[0]!;
  const inTrace = spans.filter((s) => s.traceId === root.traceId);
  const byId = new Map(inTrace.map((s) => [s.spanId, s]));
  for (const span of inTrace) {
    let at: ExportedSpan | undefined = span;
    while (at && at !== root) at = byId.get(at.parentSpanId ?? '');
    expect(at, `${span.name} descends from ${name}`).toBe(root);
  }
  return {
    root,
    spans: inTrace,
    one(spanName) {
      const found = inTrace.filter((s) => s.name === spanName);
      expect(found, `one ${spanName} in ${inTrace.map((s) => s.name).join(', ')}`).toHaveLength(1);
      return found[0]!;
    },
    childrenOf: (parent) =>
      inTrace.filter((s) => s.parentSpanId === parent.spanId).map((s) => s.name),
  };
}

function expectRefused(span: ExportedSpan, reason: string): void {
  expect(span.status.code, span.name).toBe(SpanStatusCode.ERROR);
  expect(span.attributes['priv_stark.reason'], span.name).toBe(reason);
}

function expectAccepted(tree: Tree): void {
  for (const span of tree.spans) {
    expect(span.status.code, span.name).not.toBe(SpanStatusCode.ERROR);
    expect(span.attributes['priv_stark.reason'], span.name).toBeUndefined();
  }
}

describe('traces of the service', () => {
  let collector: Collector;
  let service: RunningService;
  let dir: string;
  let fx: Fixtures;
  const saved = { ...process.env };
  /** Every span of the suite, for the final scan. */
  const seen: ExportedSpan[] = [];
  /** Values of every payment the suite used. */
  const used: Forbidden[] = [REQUEST_VALUES];

  beforeAll(async () => {
    collector = await startCollector();
    for (const key of Object.keys(process.env))
      if (key.startsWith('OTEL_')) delete process.env[key];
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
    // Every request sampled: the suite scans each one's spans (the default samples one in ten:
    // sampler.test.ts).
    process.env.OTEL_TRACES_SAMPLER = 'parentbased_always_on';
    dir = mkdtempSync(join(tmpdir(), 'priv-stark-tracing-'));
    service = await startService(
      {
        ...SERVICE_DEFAULTS,
        epoch: NO_EPOCH_GRID,
        port: 0,
        poolPort: 0,
        dataDir: dir,
        logLevel: 'silent',
        // fundPool publishes the checkpoint itself; the timer must not publish it first.
        checkpointIntervalMs: 3_600_000,
        apiKeys: API_KEY,
        operatorToken: OPERATOR_TOKEN,
      },
      () => undefined,
    );
    fx = await fixtures(service.core, SPEC);
    await fundPool(service.ledger, fx);
  }, 600_000);

  afterAll(async () => {
    await service?.close();
    await collector?.close();
    for (const key of Object.keys(process.env))
      if (key.startsWith('OTEL_')) delete process.env[key];
    Object.assign(process.env, saved);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const pay = (note: number, variant = 0): PaymentFixture => {
    const p = fx.payments[note * VARIANTS + variant]!;
    used.push(paymentValues(p));
    return p;
  };

  /** The spans exported since the last call (all of them are kept for the final scan). */
  async function take(): Promise<ExportedSpan[]> {
    const spans = await collector.take();
    seen.push(...spans);
    return spans;
  }

  async function facilitator(
    route: 'verify' | 'settle',
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Record<string, unknown>; spans: ExportedSpan[] }> {
    await take();
    const response = await fetch(`${service.facilitatorUrl}/${route}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${API_KEY}`,
        ...headers,
      },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    return { status: response.status, body: json, spans: await take() };
  }

  async function poolNode(
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; text: string; spans: ExportedSpan[] }> {
    await take();
    const response = await fetch(`${service.poolNodeUrl}${path}`, {
      ...init,
      headers: { ...CLIENT_HEADERS, ...(init.headers as Record<string, string>) },
    });
    const text = await response.text();
    return { status: response.status, text, spans: await take() };
  }

  it('/verify: a server span with the checks, the store calls and the proof verification', async () => {
    const p = pay(0);
    const ok = await facilitator('verify', requestOf(p));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const tree = requestTree(ok.spans, 'POST /verify');
    expect(tree.root.parentSpanId).toBeUndefined();
    expect(tree.root.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/verify',
      'http.response.status_code': 200,
    });
    // The spans of the work hang under the request span itself (no handler or hook spans).
    expect(tree.childrenOf(tree.root)).toEqual(
      expect.arrayContaining(['facilitator.checks', 'store.nullifier', 'proof.verify']),
    );
    expect(tree.spans.map((s) => s.name).filter((n) => /handler|hook/i.test(n))).toEqual([]);
    expect(tree.one('store.nullifier').attributes['priv_stark.store']).toBe('sqlite');
    expectAccepted(tree);
    expect(findForbidden(ok.spans, { ...REQUEST_VALUES, ...paymentValues(p) })).toEqual([]);
  });

  it('/verify failures: the reason on the request span and on the child that refused', async () => {
    const p = pay(1);
    const mismatch = await facilitator(
      'verify',
      requestOf(p, { requirements: { amount: '987655' } }),
    );
    expect(mismatch.status).toBe(400);
    let tree = requestTree(mismatch.spans, 'POST /verify');
    expectRefused(tree.root, 'payment_requirements_mismatch');
    expectRefused(tree.one('facilitator.checks'), 'payment_requirements_mismatch');
    expect(tree.spans.map((s) => s.name)).not.toContain('proof.verify');

    const unknownRoot = await facilitator(
      'verify',
      requestOf(p, { payload: { root: p.publicInputs.nullifier } }),
    );
    expect(unknownRoot.status).toBe(422);
    tree = requestTree(unknownRoot.spans, 'POST /verify');
    expectRefused(tree.root, 'unknown_root');
    expect(tree.spans.map((s) => s.name)).toContain('store.checkpointByRoot');

    const flipped = Buffer.from(p.proof);
    flipped[flipped.length - 7]! ^= 1;
    const badProof = await facilitator(
      'verify',
      requestOf(p, { payload: { proof: flipped.toString('base64') } }),
    );
    expect(badProof.status).toBe(422);
    tree = requestTree(badProof.spans, 'POST /verify');
    expectRefused(tree.root, 'invalid_priv_stark_proof');
    expectRefused(tree.one('proof.verify'), 'invalid_priv_stark_proof');

    await take();
    const anonymous = await fetch(`${service.facilitatorUrl}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(requestOf(p)),
    });
    expect(anonymous.status).toBe(401);
    expectRefused(requestTree(await take(), 'POST /verify').root, 'unauthorized');

    await take();
    const unknown = await fetch(`${service.facilitatorUrl}/verify/0xfeed?after=1`, {
      method: 'POST',
    });
    expect(unknown.status).toBe(404);
    const spans = await take();
    expectRefused(requestTree(spans, 'POST').root, 'not_found');
    expect(findForbidden(spans, { path: 'feed' })).toEqual([]);
  });

  it('/settle: the ledger settles under the request span — store calls, verification, commit', async () => {
    const p = pay(2);
    const ok = await facilitator('settle', requestOf(p));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const tree = requestTree(ok.spans, 'POST /settle');
    const settle = tree.one('ledger.settle');
    expect(settle.attributes['priv_stark.transport']).toBe('inline');
    expect(tree.childrenOf(settle)).toEqual(
      expect.arrayContaining(['store.nullifier', 'proof.verify', 'ledger.commit']),
    );
    const commit = tree.one('ledger.commit');
    expect(tree.childrenOf(commit)).toEqual(['store.apply']);
    expect(tree.one('store.apply').attributes['priv_stark.ops']).toBe(1);
    expectAccepted(tree);

    const replay = await facilitator('settle', requestOf(p));
    expect(replay.status).toBe(409);
    const again = requestTree(replay.spans, 'POST /settle');
    expectRefused(again.root, 'duplicate_settlement');
    expectRefused(again.one('ledger.settle'), 'duplicate_settlement');
    expect(again.spans.map((s) => s.name)).not.toContain('ledger.commit');

    const expired = await facilitator(
      'settle',
      requestOf(pay(3), { requirements: { maxTimeoutSeconds: 1 } }),
    );
    expect(expired.status).toBeGreaterThanOrEqual(400);
    const refused = requestTree(expired.spans, 'POST /settle');
    expectRefused(refused.root, expired.body.errorReason as string);
    expectRefused(refused.one('facilitator.checks'), expired.body.errorReason as string);
    expectRefused(refused.one('ledger.refuse'), expired.body.errorReason as string);
  });

  it('compact: the hand-over in a new trace at the pool node, then /verify and /settle by reference', async () => {
    const p = pay(1, 1);
    const handOver = await poolNode('/proofs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(handOverBody(p)),
    });
    expect(handOver.status, handOver.text).toBe(201);
    const reference = (JSON.parse(handOver.text) as { reference: string }).reference;
    used.push(paymentValues(p, reference));
    const tree = requestTree(handOver.spans, 'POST /proofs');
    // A wallet's traceparent and baggage are not taken: a new trace, no parent.
    expect(tree.root.traceId).not.toBe(INBOUND_TRACE);
    expect(tree.root.parentSpanId).toBeUndefined();
    const kept = tree.one('ledger.hand_over');
    expect(tree.childrenOf(kept)).toEqual(
      expect.arrayContaining(['store.nullifier', 'proof.verify', 'ledger.commit']),
    );
    expect(tree.childrenOf(tree.one('ledger.commit'))).toEqual(['store.apply']);
    expectAccepted(tree);

    const verify = await facilitator('verify', compactRequestOf(p, reference));
    expect(verify.status, JSON.stringify(verify.body)).toBe(200);
    const verified = requestTree(verify.spans, 'POST /verify');
    expect(verified.spans.map((s) => s.name)).toContain('store.handedOver');
    expect(verified.spans.map((s) => s.name)).not.toContain('proof.verify');

    const settle = await facilitator('settle', compactRequestOf(p, reference));
    expect(settle.status, JSON.stringify(settle.body)).toBe(200);
    const settled = requestTree(settle.spans, 'POST /settle');
    expect(settled.one('ledger.settle').attributes['priv_stark.transport']).toBe('reference');
    expect(settled.spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(['store.handedOver', 'ledger.commit', 'store.apply']),
    );
    expect(settled.spans.map((s) => s.name)).not.toContain('proof.verify');

    const other = pay(3, 1);
    const unknown = await facilitator('verify', compactRequestOf(other, reference));
    expect(unknown.status).toBe(422);
    expectRefused(requestTree(unknown.spans, 'POST /verify').root, 'unknown_proof_reference');

    const refusedHandOver = await poolNode('/proofs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...handOverBody(other), root: other.publicInputs.nullifier }),
    });
    expect(refusedHandOver.status).toBe(422);
    const refused = requestTree(refusedHandOver.spans, 'POST /proofs');
    expectRefused(refused.root, 'unknown_root');
    expectRefused(refused.one('ledger.hand_over'), 'unknown_root');

    // A body that does not parse: the error's message names a header (or could quote the body),
    // and no span may keep it.
    const broken = await poolNode('/proofs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: brokenBody(other),
    });
    expect(broken.status).toBe(400);
    const brokenTree = requestTree(broken.spans, 'POST /proofs');
    expectRefused(brokenTree.root, 'invalid_request');
    for (const span of brokenTree.spans) {
      expect(span.status.message, span.name).toBeUndefined();
      expect(span.events, span.name).toEqual([]);
    }
    expect(findForbidden(broken.spans, { ...REQUEST_VALUES, ...paymentValues(other) })).toEqual([]);
  });

  it('pool-node GETs: one new trace each, store calls as children, never the query string', async () => {
    const reads = [
      ['/state', 'GET /state', 'store.state'],
      ['/checkpoints?after=0&limit=7', 'GET /checkpoints', 'store.checkpoints'],
      ['/leaves?from=1&limit=3', 'GET /leaves', 'store.leaves'],
      ['/events?after=2&limit=5', 'GET /events', 'store.events'],
      ['/events?page=0', 'GET /events', 'store.events'],
      ['/health', 'GET /health', 'store.ping'],
    ] as const;
    for (const [path, name, storeCall] of reads) {
      const read = await poolNode(path);
      expect(read.status, `${path}: ${read.text.slice(0, 200)}`).toBe(200);
      const tree = requestTree(read.spans, name);
      expect(tree.root.traceId, path).not.toBe(INBOUND_TRACE);
      expect(tree.root.parentSpanId, path).toBeUndefined();
      expect(tree.root.attributes['http.route']).toBe(name.slice(4));
      expect(tree.spans.map((s) => s.name)).toContain(storeCall);
      expectAccepted(tree);
    }
    const bad = await poolNode('/leaves?from=1&limit=0');
    expect(bad.status).toBe(400);
    expectRefused(requestTree(bad.spans, 'GET /leaves').root, 'invalid_request');
  });

  it("twin: the facilitator joins a merchant's trace (the pool node's refusal is its own)", async () => {
    const ok = await facilitator('verify', requestOf(pay(0, 1)), CLIENT_HEADERS);
    expect(ok.status).toBe(200);
    const tree = requestTree(ok.spans, 'POST /verify');
    expect(tree.root.traceId).toBe(INBOUND_TRACE);
    expect(tree.root.parentSpanId).toBe(INBOUND_SPAN);
    // Joined, still nothing of the headers on a span (the trace id is the trace's, not a value).
    const { 'inbound trace id': _joined, ...values } = REQUEST_VALUES;
    expect(findForbidden(ok.spans, values)).toEqual([]);
  });

  it('no span of the suite holds a forbidden value, and the resource holds only the service', () => {
    expect(seen.length).toBeGreaterThan(60);
    const forbidden = Object.assign({}, ...used) as Forbidden;
    expect(Object.keys(forbidden).length).toBeGreaterThan(40);
    const joinedTrace = seen.filter((s) => s.traceId === INBOUND_TRACE);
    const { 'inbound trace id': _joined, ...values } = forbidden;
    expect(findForbidden(joinedTrace, values)).toEqual([]);
    expect(
      findForbidden(
        seen.filter((s) => !joinedTrace.includes(s)),
        forbidden,
      ),
    ).toEqual([]);
    for (const span of seen) {
      expect(span.events, span.name).toEqual([]);
      expect(span.status.message, span.name).toBeUndefined();
    }
    const resource = seen[0]!.resource.attributes;
    expect(resource['service.name']).toBe('priv-stark');
    expect(Object.keys(resource).filter((k) => /^(process|host|os)\./.test(k))).toEqual([]);
  });

  it('must-fail twin: the scanner finds a planted value wherever a span holds it', () => {
    const p = fx.payments[0]!;
    const provider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
    });
    const tracer = provider.getTracer('twin');
    const planted = [
      tracer.startSpan('ok', { attributes: { 'priv_stark.reason': p.publicInputs.nullifier } }),
      tracer.startSpan(`settle ${p.payment.payTo}`),
      tracer.startSpan('ok', { attributes: { 'client.address': '10.1.2.3' } }),
      tracer
        .startSpan('ok')
        .setStatus({ code: SpanStatusCode.ERROR, message: `bad ${p.payment.amount}` }),
      tracer.startSpan('ok').addEvent('e', { where: 'GET /leaves?from=1' }),
    ];
    for (const span of planted) span.end();
    const spans = planted as unknown as ReadableSpan[];
    const found = findForbidden(spans, { ...REQUEST_VALUES, ...paymentValues(p) });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringContaining('attribute priv_stark.reason: nullifier'),
        expect.stringContaining('name: recipient'),
        'ok: attribute key client.address',
        expect.stringContaining('status message: amount'),
        expect.stringContaining('event e where: query string'),
      ]),
    );
  });

  it("must-fail twin: @fastify/otel unscrubbed records the query string and an error's message", async () => {
    const twinExporter = new InMemorySpanExporter();
    const provider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter: twinExporter })],
    });
    const instrumentation = new FastifyOtelInstrumentation();
    instrumentation.setTracerProvider(provider);
    const app = Fastify();
    await app.register(instrumentation.plugin());
    app.post('/proofs', async () => ({}));
    const p = fx.payments[0]!;
    const reply = await app.inject({
      method: 'POST',
      url: '/proofs?from=1',
      headers: { 'content-type': 'application/json' },
      payload: brokenBody(p),
    });
    expect(reply.statusCode).toBe(400);
    await app.close();
    const found = findForbidden(twinExporter.getFinishedSpans(), {
      ...REQUEST_VALUES,
      ...paymentValues(p),
    });
    expect(found).toEqual(
      expect.arrayContaining([
        'request: attribute key url.path',
        expect.stringContaining('query from'),
        // The parse error names the request's content type: a header's value, in the status
        // message and in an exception event.
        'request: status message: content type',
        expect.stringMatching(/^request: event exception exception\.message/),
      ]),
    );
  });
});
