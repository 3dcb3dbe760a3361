// The span helpers the facilitator and the ledger use, with the SDK registered (in-memory
// exporter): a span only under a recording request span (none outside one: the checkpoint timer's
// store calls make no trace), a refusal's reason, a thrown error's class without its message, the
// traced store's pool_unavailable on a store that is gone, and a group commit traced under the
// first op's request — not under whichever request started the committer — with the other ops'
// requests still showing their own commit span.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { context, propagation, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore, randomDigest } from '../../src/core/index.js';
import { Ledger, openStore, PoolUnavailableError, tracedStore } from '../../src/ledger/index.js';
import { inSpan, inSpanSync } from '../../src/tracing/index.js';

describe('span helpers', () => {
  let exporter: InMemorySpanExporter;
  let sdk: NodeSDK;
  let core: PrivStarkCore;
  const dirs: string[] = [];

  beforeAll(async () => {
    core = await loadCore();
    exporter = new InMemorySpanExporter();
    // The SDK as the service registers it (provider and context manager), spans kept in memory.
    sdk = new NodeSDK({
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
      autoDetectResources: false,
    });
    sdk.start();
  });
  afterAll(async () => {
    await sdk.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => exporter.reset());

  /** Runs `work` as a request would: under a recording server span. */
  function inRequest<T>(name: string, work: () => Promise<T>): Promise<T> {
    return trace.getTracer('test').startActiveSpan(name, async (span: Span) => {
      try {
        return await work();
      } finally {
        span.end();
      }
    });
  }

  const finished = () => exporter.getFinishedSpans().slice();
  const named = (spans: readonly ReadableSpan[], name: string) =>
    spans.filter((s) => s.name === name);

  it('no span outside a request: the work runs as is', async () => {
    expect(await inSpan('proof.verify', async () => 7)).toBe(7);
    expect(inSpanSync('facilitator.checks', () => 8)).toBe(8);
    expect(finished()).toEqual([]);
  });

  it('a leaf span runs its work under the request, a span with children under itself', async () => {
    await inRequest('request', async () => {
      await inSpan('ledger.settle', () => inSpan('store.apply', async () => 1, { leaf: true }));
      await inSpan('proof.verify', () => inSpan('store.nullifier', async () => 2), { leaf: true });
    });
    const spans = finished();
    const idOf = (name: string) => named(spans, name)[0]!.spanContext().spanId;
    const parentOf = (name: string) => named(spans, name)[0]!.parentSpanContext?.spanId;
    // Nested under the span that has children; beside the leaf, not under it.
    expect(parentOf('store.apply')).toBe(idOf('ledger.settle'));
    expect(parentOf('store.nullifier')).toBe(idOf('request'));
    expect(parentOf('proof.verify')).toBe(idOf('request'));
  });

  it('a child of the request, with the reason of a refusal and the class of an error', async () => {
    await inRequest('request', async () => {
      await inSpan('proof.verify', async () => ({ ok: false }), {
        reasonOf: (v) => (v.ok ? null : 'invalid_priv_stark_proof'),
      });
      inSpanSync('facilitator.checks', () => ({ ok: true }), {
        reasonOf: (c) => (c.ok ? null : 'never'),
      });
      await expect(
        inSpan('store.nullifier', async () => {
          throw new TypeError(`bad ${'0x'.padEnd(66, 'a')}`);
        }),
      ).rejects.toThrow(TypeError);
    });
    const spans = finished();
    const request = named(spans, 'request')[0]!;
    for (const span of spans.filter((s) => s !== request))
      expect(span.parentSpanContext?.spanId, span.name).toBe(request.spanContext().spanId);
    const verify = named(spans, 'proof.verify')[0]!;
    expect(verify.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(verify.attributes).toEqual({ 'priv_stark.reason': 'invalid_priv_stark_proof' });
    const checks = named(spans, 'facilitator.checks')[0]!;
    expect(checks.status.code).toBe(SpanStatusCode.UNSET);
    expect(checks.attributes).toEqual({});
    const thrown = named(spans, 'store.nullifier')[0]!;
    expect(thrown.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(thrown.attributes).toEqual({ 'error.type': 'TypeError' });
    expect(thrown.events).toEqual([]);
  });

  it('the traced store: pool_unavailable when the store is gone, and no argument on the span', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-spans-'));
    dirs.push(dir);
    const store = await openStore(core, { dataDir: dir });
    await store.close();
    const nullifier = randomDigest();
    await inRequest('request', async () => {
      await expect(tracedStore(store).nullifier(nullifier)).rejects.toThrow(PoolUnavailableError);
    });
    const span = named(finished(), 'store.nullifier')[0]!;
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(span.attributes).toEqual({
      'priv_stark.store': 'sqlite',
      'error.type': 'PoolUnavailableError',
      'priv_stark.reason': 'pool_unavailable',
    });
    expect(JSON.stringify(span.attributes)).not.toContain(nullifier.slice(2, 20));
  });

  it("a group commit is traced under its first op's request, each request keeping its commit span", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-spans-'));
    dirs.push(dir);
    const store = tracedStore(await openStore(core, { dataDir: dir }));
    const ledger = new Ledger({ core, store });
    try {
      // A first request starts the committer; two more arrive while its group commits.
      await Promise.all([
        inRequest('first', () => ledger.deposit({ amount: '5', pre: randomDigest() })),
        (async () => {
          await new Promise((resolve) => setImmediate(resolve));
          await Promise.all([
            inRequest('second', () => ledger.deposit({ amount: '6', pre: randomDigest() })),
            inRequest('third', () => ledger.deposit({ amount: '7', pre: randomDigest() })),
          ]);
        })(),
      ]);
    } finally {
      await ledger.stop();
      await store.close();
    }
    const spans = finished();
    const traceOf = (name: string) => named(spans, name)[0]!.spanContext().traceId;
    const applies = named(spans, 'store.apply');
    for (const apply of applies) {
      const parent = spans.find((s) => s.spanContext().spanId === apply.parentSpanContext?.spanId);
      expect(parent?.name).toBe('ledger.commit');
      expect(parent?.spanContext().traceId).toBe(apply.spanContext().traceId);
    }
    // The first request's op commits alone; the second and third, queued meanwhile, commit
    // together in the second's trace — not the first's, whose request started the drain loop the
    // group ran in (without the saved context it would land there, under an ended span).
    expect(applies.map((s) => s.attributes['priv_stark.ops'])).toEqual([1, 2]);
    expect(applies[0]!.spanContext().traceId).toBe(traceOf('first'));
    expect(applies[1]!.spanContext().traceId).toBe(traceOf('second'));
    for (const request of ['first', 'second', 'third']) {
      const commits = named(spans, 'ledger.commit').filter(
        (s) => s.spanContext().traceId === traceOf(request),
      );
      expect(commits, request).toHaveLength(1);
    }
  });
});
