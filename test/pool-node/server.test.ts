// The devnet pool node over HTTP (inject and a real listener): read endpoints with cursors, the
// operator's deposit, schema checks with clear 4xx, 503 when the store is down, and logs that carry
// no client address, cursor or token.

import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';

import { commitmentOf, randomDigest } from '../../src/core/index.js';
import {
  buildPoolNode,
  PAGE_LIMITS,
  PoolNodeClient,
  PoolNodeError,
} from '../../src/pool-node/index.js';
import { Ledger, type PoolStore } from '../../src/ledger/index.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { STORE_KINDS, storeHarness } from '../ledger/helpers/stores.js';

const TOKEN = 'operator-token-for-tests-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

describe.each(kinds)('pool node on the %s store', (kind) => {
  const h = storeHarness(kind);
  let apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
  });

  async function node(options: { store?: PoolStore } = {}) {
    const store = options.store ?? (await h.fresh()).store;
    const pool = new Ledger({ core: h.core(), store });
    const lines: string[] = [];
    const app = await buildPoolNode({
      ledger: pool,
      operatorToken: TOKEN,
      logger: { level: 'debug', stream: { write: (line: string) => lines.push(line) } },
    });
    apps.push(app);
    return { app, pool, store, lines };
  }

  it('serves the state, checkpoints, leaves and events by cursor', async () => {
    const { app, pool } = await node();
    const empty = await app.inject({ method: 'GET', url: '/state' });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({
      network: 'shielded:devnet',
      asset: 'dUSD',
      size: 0,
      root: h.core().emptyFrontier().root,
      events: 0,
      depositTotal: '0',
      withdrawnTotal: '0',
      paidOutTotal: '0',
      refundedTotal: '0',
      checkpoint: null,
      // The ledger's epoch grid (issue 25): none for a Ledger built without one.
      epochMs: 1,
      anchorDelayMs: 0,
    });
    // In the order of their commitments: one checkpoint publishes its events in that order (a
    // deposit's commitment stands in for a nullifier), so ids and leaf indexes line up here.
    const pres = Array.from({ length: 7 }, () => randomDigest()).sort((a, b) =>
      commitmentOf(h.core(), '300', a) < commitmentOf(h.core(), '300', b) ? -1 : 1,
    );
    for (const pre of pres) {
      const response = await app.inject({
        method: 'POST',
        url: '/deposit',
        headers: auth,
        payload: { amount: '300', pre },
      });
      expect(response.statusCode).toBe(200);
    }
    const checkpoint = await pool.checkpoint();
    const state = (await app.inject({ method: 'GET', url: '/state' })).json();
    expect(state).toMatchObject({ size: 7, events: 7, depositTotal: '2100', checkpoint });
    const page1 = (await app.inject({ method: 'GET', url: '/leaves?from=0&limit=4' })).json();
    const page2 = (
      await app.inject({ method: 'GET', url: `/leaves?from=${page1.next}&limit=4` })
    ).json();
    expect(page1).toMatchObject({ from: 0, next: 4 });
    expect(page2).toMatchObject({ from: 4, next: 7 });
    const leaves = [...page1.leaves, ...page2.leaves];
    expect(leaves).toEqual(pres.map((pre) => commitmentOf(h.core(), '300', pre)));
    expect(h.core().treeRoot(leaves)).toBe(checkpoint!.root);
    const events = (await app.inject({ method: 'GET', url: '/events?after=5' })).json();
    expect(events.next).toBe(7);
    expect(events.events).toEqual([
      {
        id: 6,
        kind: 'deposit',
        time: expect.any(Number),
        amount: '300',
        commitment: leaves[5],
        index: 5,
      },
      {
        id: 7,
        kind: 'deposit',
        time: expect.any(Number),
        amount: '300',
        commitment: leaves[6],
        index: 6,
      },
    ]);
    expect((await app.inject({ method: 'GET', url: '/events?after=7' })).json()).toEqual({
      events: [],
      next: 7,
    });
    expect((await app.inject({ method: 'GET', url: '/checkpoints' })).json()).toEqual({
      checkpoints: [checkpoint],
      next: 1,
    });
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toEqual({
      status: 'ok',
      kind,
      leaves: 7,
      checkpoint: 1,
    });
  });

  it('refuses malformed queries with a clear 400, and unknown routes with 404', async () => {
    const { app } = await node();
    const bad = [
      `/leaves?limit=${PAGE_LIMITS.leaves.max + 1}`,
      '/leaves?limit=0',
      '/leaves?from=-1',
      '/leaves?from=abc',
      '/leaves?from=1.5',
      '/leaves?from=01',
      '/leaves?index=3',
      '/events?after=1&after=2',
      `/events?limit=${PAGE_LIMITS.events.max + 1}`,
      '/checkpoints?cursor=1',
      '/state?verbose=1',
    ];
    for (const url of bad) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error, url).toBe('invalid_request');
      expect(response.json().message, url).toMatch(/querystring/);
    }
    for (const url of ['/leaves/3/path', '/path?index=3', '/nope']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 'not_found', message: 'no such route' });
    }
    expect((await app.inject({ method: 'DELETE', url: '/state' })).statusCode).toBe(404);
  });

  it('deposits only with the operator token, checked before the body is parsed', async () => {
    const { app, store } = await node();
    const pre = randomDigest();
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-wrong-token' },
      { authorization: TOKEN },
      { authorization: `Basic ${TOKEN}` },
    ]) {
      const response = await app.inject({
        method: 'POST',
        url: '/deposit',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '{not json',
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('unauthorized');
    }
    const ok = await app.inject({
      method: 'POST',
      url: '/deposit',
      headers: auth,
      payload: { amount: '1000', pre },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({
      commitment: commitmentOf(h.core(), '1000', pre),
      index: 0,
      eventId: 1,
    });
    const again = await app.inject({
      method: 'POST',
      url: '/deposit',
      headers: auth,
      payload: { amount: '1000', pre },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('duplicate_commitment');
    const cases: [unknown, number, string][] = [
      [{ amount: 1000, pre }, 400, 'invalid_request'],
      [{ amount: '4611686018427387905', pre: randomDigest() }, 400, 'amount_out_of_range'],
      [{ amount: '0', pre: randomDigest() }, 400, 'amount_out_of_range'],
      [{ amount: '10', pre: `0x${'ff'.repeat(32)}` }, 400, 'invalid_request'],
      [{ amount: '10', pre: pre.toUpperCase() }, 400, 'invalid_request'],
      [{ amount: '10', pre: randomDigest(), memo: 'x' }, 400, 'invalid_request'],
      [{ amount: '10' }, 400, 'invalid_request'],
      [[1, 2], 400, 'invalid_request'],
      [{ amount: '1'.repeat(5000), pre }, 413, 'payload_too_large'],
    ];
    for (const [payload, status, error] of cases) {
      const response = await app.inject({
        method: 'POST',
        url: '/deposit',
        headers: auth,
        payload: payload as object,
      });
      expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(status);
      expect(response.json().error).toBe(error);
    }
    const text = await app.inject({
      method: 'POST',
      url: '/deposit',
      headers: { ...auth, 'content-type': 'text/plain' },
      payload: 'amount=1',
    });
    expect(text.statusCode).toBe(415);
    const broken = await app.inject({
      method: 'POST',
      url: '/deposit',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"amount":',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error).toBe('invalid_request');
    expect((await store.state()).size).toBe(1);
  });

  it('answers 503 pool_unavailable when the store is down, without hanging', async () => {
    const { app, store } = await node();
    await store.close();
    const started = Date.now();
    for (const request of [
      { method: 'GET' as const, url: '/state' },
      { method: 'GET' as const, url: '/leaves' },
      { method: 'GET' as const, url: '/events' },
      { method: 'GET' as const, url: '/checkpoints' },
      {
        method: 'POST' as const,
        url: '/deposit',
        headers: auth,
        payload: { amount: '5', pre: randomDigest() },
      },
    ]) {
      const response = await app.inject(request);
      expect(response.statusCode, request.url).toBe(503);
      expect(response.json()).toEqual({
        error: 'pool_unavailable',
        message: 'the pool store is unavailable',
      });
    }
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toEqual({ status: 'unavailable', kind, error: 'pool_unavailable' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('logs no client address, cursor or token', async () => {
    const { app, lines } = await node();
    const remoteAddress = '203.0.113.77';
    await app.inject({
      method: 'POST',
      url: '/deposit',
      headers: auth,
      payload: { amount: '5', pre: randomDigest() },
      remoteAddress,
    });
    await app.inject({
      method: 'GET',
      url: '/events?after=918273&limit=17',
      remoteAddress,
      headers: { 'x-forwarded-for': '198.51.100.9' },
    });
    await app.inject({ method: 'GET', url: '/leaves?from=564738', remoteAddress });
    await app.inject({ method: 'GET', url: '/checkpoints?after=192837', remoteAddress });
    await app.inject({ method: 'GET', url: '/leaves?from=bad-cursor-xyz', remoteAddress });
    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(5);
    expect(log).toContain('"route":"/events"');
    for (const secret of [
      remoteAddress,
      '198.51.100.9',
      '918273',
      '564738',
      '192837',
      'bad-cursor-xyz',
      TOKEN,
    ])
      expect(log).not.toContain(secret);
  });

  it('serves wallets over a real socket: they rebuild the tree from leaves (no path endpoint)', async () => {
    const { app, pool } = await node();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const operator = new PoolNodeClient(url, { token: TOKEN });
    const deposited = [];
    for (let i = 0; i < 5; i++) deposited.push(await operator.deposit('42', randomDigest()));
    await pool.checkpoint();
    const wallet = new PoolNodeClient(url);
    const state = await wallet.state();
    const leaves = await wallet.allLeaves(state.checkpoint!.size);
    expect(h.core().treeRoot(leaves)).toBe(state.checkpoint!.root);
    const mine = deposited[3]!;
    const path = h.core().treePath(leaves, mine.index);
    expect(h.core().rootFromPath(mine.commitment, mine.index, path)).toBe(state.checkpoint!.root);
    await expect(
      new PoolNodeClient(url, { token: 'nope-nope-nope-nope' }).deposit('1', randomDigest()),
    ).rejects.toEqual(expect.objectContaining({ code: 'unauthorized', status: 401 }));
    await expect(wallet.leaves(0, 10_000)).rejects.toBeInstanceOf(PoolNodeError);
  });
});
