// GET /health (public): 200 with version, scheme, x402 version, backend, networks and pool state;
// 503 naming what is down. Metrics on their own listener, never on the facilitator's.

import { afterEach, describe, expect, it } from 'vitest';

import { FacilitatorMetrics, listenMetrics } from '../../src/http/index.js';
import { PoolUnavailableError } from '../../src/ledger/index.js';
import { AUTH, facilitatorHarness } from './helpers/harness.js';
import { liveSpec, requestOf } from './helpers/requests.js';

describe('health and metrics', () => {
  const h = facilitatorHarness('sqlite', liveSpec('http-health', 2, 1));
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('200 with the service, its network and asset, and the pool state; public (no key)', async () => {
    const { app, pool } = await h.app();
    closers.push(() => app.close());
    const response = await app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    const checkpoint = (await pool.state()).checkpoint!;
    expect(response.json()).toEqual({
      status: 'ok',
      version: 'test',
      scheme: 'priv-stark/v1',
      x402Version: 2,
      backend: h.core().backend,
      networks: [{ network: 'shielded:devnet', asset: 'dUSD', decimals: 6 }],
      proofTransports: ['reference', 'inline'],
      // The verifier's default list, newest first; the figures are the estimator's (docs/proof.md).
      parameterSets: [
        {
          id: 3,
          prover: true,
          conjecturedBits: 128,
          provenListDecodingBits: 100,
          provenUniqueDecodingBits: 49,
        },
        {
          id: 2,
          prover: false,
          conjecturedBits: 128,
          provenListDecodingBits: 73,
          provenUniqueDecodingBits: 37,
        },
      ],
      pool: {
        kind: 'sqlite',
        ok: true,
        leaves: 2,
        checkpoint: { seq: 1, root: h.fixtures().root, size: 2, time: checkpoint.time },
      },
    });
  });

  it('503 naming the pool when its store fails or hangs, and the backend when none loaded', async () => {
    const failing = await h.app({
      build: {
        health: {
          version: 'test',
          backend: null,
          networks: [],
          parameterSets: [],
          pool: {
            kind: 'postgres',
            state: async () => {
              throw new PoolUnavailableError('down');
            },
          },
        },
      },
    });
    closers.push(() => failing.app.close());
    const down = await failing.app.inject({ method: 'GET', url: '/health' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({
      status: 'unavailable',
      backend: null,
      pool: { kind: 'postgres', ok: false },
      down: ['pool', 'backend'],
    });

    const hanging = await h.app({
      build: {
        health: {
          version: 'test',
          backend: 'native',
          networks: [],
          parameterSets: [],
          timeoutMs: 50,
          pool: { kind: 'sqlite', state: () => new Promise(() => undefined) },
        },
      },
    });
    closers.push(() => hanging.app.close());
    const slow = await hanging.app.inject({ method: 'GET', url: '/health' });
    expect(slow.statusCode).toBe(503);
    expect(slow.json().down).toEqual(['pool']);
  });

  it('serves Prometheus metrics on a separate listener: requests by route, status and reason, latencies, backend, pool gauges', async () => {
    let poolOf: Awaited<ReturnType<typeof h.app>>['pool'] | undefined;
    const metrics = new FacilitatorMetrics({
      backend: h.core().backend,
      pool: { state: () => poolOf!.state() },
      processMetrics: false,
    });
    const { app, pool } = await h.app({ build: { metrics } });
    poolOf = pool;
    closers.push(() => app.close());
    const p = h.fixtures().payments[0]!;
    await app.inject({ method: 'POST', url: '/verify', headers: AUTH, payload: requestOf(p) });
    await app.inject({ method: 'POST', url: '/settle', headers: AUTH, payload: requestOf(p) });
    await app.inject({ method: 'POST', url: '/settle', headers: AUTH, payload: requestOf(p) });
    await app.inject({ method: 'POST', url: '/verify', payload: requestOf(p) });
    // not on the facilitator's listener
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    await app.inject({ method: 'GET', url: '/nope' });

    const server = await listenMetrics(metrics.registry, 0, '127.0.0.1');
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const address = server.address() as { port: number };
    const text = await (await fetch(`http://127.0.0.1:${address.port}/metrics`)).text();
    expect(text).toContain(
      'priv_stark_http_requests_total{route="/verify",status="200",reason=""} 1',
    );
    expect(text).toContain(
      'priv_stark_http_requests_total{route="/settle",status="200",reason=""} 1',
    );
    expect(text).toContain(
      'priv_stark_http_requests_total{route="/settle",status="409",reason="duplicate_settlement"} 1',
    );
    expect(text).toContain(
      'priv_stark_http_requests_total{route="/verify",status="401",reason="unauthorized"} 1',
    );
    expect(text).toContain(
      'priv_stark_http_requests_total{route="unmatched",status="404",reason="not_found"} 2',
    );
    expect(text).toMatch(/priv_stark_verify_duration_seconds_count 1\b/);
    expect(text).toMatch(/priv_stark_settle_duration_seconds_count 2\b/);
    expect(text).toContain(`priv_stark_proof_backend{backend="${h.core().backend}"} 1`);
    expect(text).toMatch(/priv_stark_pool_leaves 4\b/);
    expect(text).toMatch(/priv_stark_pool_checkpoint_age_seconds \d/);
    expect((await fetch(`http://127.0.0.1:${address.port}/other`)).status).toBe(404);
  });
});
