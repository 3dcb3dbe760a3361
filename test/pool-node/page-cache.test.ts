// The public log through an HTTP cache: nginx as a caching proxy in front of the pool node (Debian's
// nginx, `proxy_cache` honouring the node's Cache-Control) and two wallets reading it as their
// mirror, with different cursors: every full page reaches the pool node once, whoever asks it
// first; the page still filling reaches it at every read (`no-cache`: never older than the head).
// The node's headers: a full page immutable for a year, the filling page revalidated with a strong
// ETag and answered 304 while no checkpoint came; a cursor's read never stored.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore, randomDigest } from '../../src/core/index.js';
import { Ledger, openStore, type PoolStore } from '../../src/ledger/index.js';
import { buildPoolNode, PAGE_SIZES } from '../../src/pool-node/index.js';
import { type Nginx, nginxPath, startNginx } from '../../testkit/nginx.js';

const NGINX_REQUIRED = process.env.CI === 'true' || process.env.PRIV_STARK_REQUIRE_NGINX === '1';
const nginxAvailable = nginxPath() !== null || NGINX_REQUIRED;
if (!nginxAvailable)
  process.stderr.write('page-cache.test.ts: no nginx found: the cache cases skipped\n');

let core: PrivStarkCore;
let dir: string;
beforeAll(async () => {
  core = await loadCore();
  dir = mkdtempSync(join(tmpdir(), 'priv-stark-page-cache-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'public, no-cache';

interface Node {
  readonly url: string;
  readonly ledger: Ledger;
  readonly store: PoolStore;
  /** Every request the node answered: path and query, status, Cache-Control. */
  readonly answered: { url: string; status: number; cache: string | undefined }[];
}

let closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

async function startNode(name: string): Promise<Node> {
  const store = await openStore(core, { dataDir: join(dir, name) });
  const ledger = new Ledger({ core, store, checkpointIntervalMs: 600_000 });
  const app: FastifyInstance = await buildPoolNode({
    ledger,
    operatorToken: 'operator-token-0123456789',
    logger: false,
  });
  const answered: Node['answered'] = [];
  app.addHook('onResponse', async (request, reply) => {
    const cache = reply.getHeader('cache-control');
    answered.push({
      url: request.url,
      status: reply.statusCode,
      cache: typeof cache === 'string' ? cache : undefined,
    });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(
    () => store.close(),
    () => app.close(),
  );
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, ledger, store, answered };
}

/** `count` deposits of other wallets, in groups. */
async function crowd(store: PoolStore, count: number): Promise<void> {
  for (let done = 0; done < count; done += 500) {
    const ops = Array.from({ length: Math.min(500, count - done) }, () => ({
      kind: 'deposit' as const,
      amount: '1000',
      commitment: randomDigest(),
    }));
    await store.apply(ops, Date.now());
  }
}

/** A wallet reading through `mirror`, writing to the node, with one deposit of `amount`. */
async function fundedWallet(node: Node, mirror: string, amount: string): Promise<Wallet> {
  const wallet = await Wallet.create({ core, pool: node.url, poolMirror: mirror });
  const ticket = await wallet.depositTicket(amount);
  const deposited = await node.ledger.deposit({ amount: ticket.amount, pre: ticket.pre });
  expect(deposited.ok).toBe(true);
  return wallet;
}

describe('the public log behind a cache', () => {
  it.runIf(nginxAvailable)(
    'two wallets with different cursors reach the pool node once per full page',
    async () => {
      const node = await startNode('cached');
      const nginx: Nginx = await startNginx(node.url, { cache: true });
      closers.push(() => nginx.close());
      const first = await fundedWallet(node, nginx.url, '700');
      await crowd(node.store, 2500);
      await node.ledger.checkpoint();
      await first.sync();
      const second = await fundedWallet(node, nginx.url, '900');
      await crowd(node.store, 2000);
      await node.ledger.checkpoint();
      await second.sync();
      await first.sync();
      expect(first.balance().spendable).toBe(700n);
      expect(second.balance().spendable).toBe(900n);
      expect(first.checkpoint).toEqual(second.checkpoint);
      expect(first.leafCount).toBe(4502);

      const full = node.answered.filter((a) => a.cache === IMMUTABLE).map((a) => a.url);
      // Leaves 0–4095 and events 1–4000 fill pages: each reached the node once.
      expect(full.sort()).toEqual(
        [
          '/events?page=0',
          '/events?page=1',
          '/events?page=2',
          '/events?page=3',
          '/leaves?page=0',
        ].sort(),
      );
      // The filling pages and the head reached it at every read, never stored.
      const reads = (url: string) => node.answered.filter((a) => a.url === url).length;
      expect(reads('/state')).toBe(3);
      expect(reads('/leaves?page=1')).toBe(2);
      expect(reads('/events?page=4')).toBe(2);
      // Nothing but pages and the head (and the probe of nginx's start): no cursor reached the node.
      for (const { url } of node.answered.filter((a) => a.url !== '/'))
        expect(url).toMatch(/^\/(state|(leaves|events|checkpoints)\?page=\d+)$/);
      expect(nginx.errorLog()).not.toMatch(/\[(error|crit|alert|emerg)\]/);

      // Twin: without the cache, the same syncs take every page from the node again.
      const direct = await Wallet.create({ core, pool: node.url, sk: second.spendingKey });
      const before = node.answered.length;
      await direct.sync();
      const again = node.answered.slice(before).filter((a) => a.cache === IMMUTABLE);
      expect(again.map((a) => a.url)).toContain('/leaves?page=0');
      expect(again.map((a) => a.url)).toContain('/events?page=0');
    },
    120_000,
  );

  it('answers a full page immutable, the filling page no-cache with an ETag and 304, a cursor no-store', async () => {
    const node = await startNode('headers');
    await crowd(node.store, PAGE_SIZES.events + 10);
    await node.ledger.checkpoint();
    const get = (url: string, headers: Record<string, string> = {}) =>
      fetch(`${node.url}${url}`, { headers });
    const full = await get('/events?page=0');
    expect(full.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(((await full.json()) as { events: unknown[] }).events).toHaveLength(PAGE_SIZES.events);
    const filling = await get('/events?page=1');
    expect(filling.headers.get('cache-control')).toBe(REVALIDATE);
    const tag = filling.headers.get('etag');
    expect(tag).toMatch(/^"events\.1\.1\.[0-9a-f]{16}"$/);
    expect(((await filling.json()) as { events: unknown[] }).events).toHaveLength(10);
    // The same head: 304, no body, the same validator.
    const unchanged = await get('/events?page=1', { 'if-none-match': tag! });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(unchanged.headers.get('etag')).toBe(tag);
    // Twin: a new checkpoint makes another page, with another validator.
    await crowd(node.store, 5);
    await node.ledger.checkpoint();
    const grown = await get('/events?page=1', { 'if-none-match': tag! });
    expect(grown.status).toBe(200);
    expect(grown.headers.get('etag')).not.toBe(tag);
    expect(((await grown.json()) as { events: unknown[] }).events).toHaveLength(15);
    // Past the end: empty, filling. A cursor's read: never stored.
    const ahead = await get('/leaves?page=9');
    expect(ahead.headers.get('cache-control')).toBe(REVALIDATE);
    expect(await ahead.json()).toEqual({ from: 9 * PAGE_SIZES.leaves, leaves: [], next: 9 * 4096 });
    const cursor = await get('/events?after=3&limit=2');
    expect(cursor.headers.get('cache-control')).toBe('no-store');
    expect((await get('/state')).headers.get('cache-control')).toBe('no-cache');
    // A page and a cursor at once: refused.
    const both = await get('/events?page=1&after=3');
    expect(both.status).toBe(400);
    expect(((await both.json()) as { message: string }).message).toMatch(/querystring\/page/);
  });

  it('serves nothing a checkpoint has not published: pages, cursors, head and health', async () => {
    const node = await startNode('unpublished');
    await crowd(node.store, 3);
    await node.ledger.checkpoint();
    await crowd(node.store, 4);
    const json = async (url: string) => (await fetch(`${node.url}${url}`)).json();
    expect(((await json('/leaves?page=0')) as { leaves: unknown[] }).leaves).toHaveLength(3);
    expect(((await json('/leaves?from=0&limit=100')) as { leaves: unknown[] }).leaves).toHaveLength(
      3,
    );
    expect(((await json('/events?page=0')) as { events: unknown[] }).events).toHaveLength(3);
    expect(((await json('/events?after=0')) as { events: unknown[] }).events).toHaveLength(3);
    expect(await json('/state')).toMatchObject({ size: 3, events: 3, depositTotal: '3000' });
    expect(await json('/health')).toMatchObject({ leaves: 3, checkpoint: 1 });
    // The store has them all; a checkpoint publishes them.
    expect((await node.store.state()).size).toBe(7);
    await node.ledger.checkpoint();
    expect(((await json('/events?page=0')) as { events: unknown[] }).events).toHaveLength(7);
    expect(await json('/state')).toMatchObject({ size: 7, events: 7, depositTotal: '7000' });
  });
});
