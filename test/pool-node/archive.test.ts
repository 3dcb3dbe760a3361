// The proof archive's public pages (GET /archive?page=, GET /archive/state) on a pool node on
// loopback: the proofs of a page of published positions with the anchor and context they were bound
// to; a full page immutable, the filling page revalidated; a pruned page 410 for good, the pages
// after it still served; the query checked as sent. And the node's recorded log digests
// (GET /digests?page=), equal to what a reader folds from the events and archive pages.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore, randomDigest } from '../../src/core/index.js';
import { digestHex, logDigest, proofHashOf } from '../../src/audit/index.js';
import { Ledger, openStore, type PoolEvent, type PoolStore } from '../../src/ledger/index.js';
import { buildPoolNode, PAGE_SIZES } from '../../src/pool-node/index.js';
import { depositOp, settlementOp } from '../ledger/helpers/ops.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'public, no-cache';

let core: PrivStarkCore;
let dir: string;
beforeAll(async () => {
  core = await loadCore();
  dir = mkdtempSync(join(tmpdir(), 'priv-stark-archive-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

async function startNode(
  name: string,
  logDigestIntervalMs = 0,
): Promise<{ url: string; ledger: Ledger; store: PoolStore }> {
  const store = await openStore(core, { dataDir: join(dir, name) });
  const ledger = new Ledger({ core, store, checkpointIntervalMs: 600_000 });
  const app: FastifyInstance = await buildPoolNode({
    ledger,
    operatorToken: 'operator-token-0123456789',
    logger: false,
    logDigestIntervalMs,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(
    () => store.close(),
    () => app.close(),
  );
  const { port } = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, ledger, store };
}

const [ROOT, CTX] = [randomDigest(), randomDigest()];

/** `count` settlements, proof `i` the bytes `[i mod 256, 7]`, in groups. */
async function settle(store: PoolStore, count: number): Promise<void> {
  for (let done = 0; done < count; done += 200) {
    const ops = Array.from({ length: Math.min(200, count - done) }, (_, i) =>
      settlementOp(core, {
        proof: { root: ROOT, ctx: CTX, bytes: new Uint8Array([(done + i) % 256, 7]) },
      }),
    );
    await store.apply(ops, Date.now());
  }
}

// biome-ignore lint/suspicious/noExplicitAny: replies are read field by field
type Json = any;

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text ? (JSON.parse(text) as Json) : null,
  };
}

describe('the proof archive over HTTP', () => {
  it('serves a page of proofs with their anchor and context; the filling page revalidated, a full one immutable', async () => {
    const node = await startNode('pages');
    await node.store.apply([depositOp()], Date.now());
    await settle(node.store, PAGE_SIZES.archive + 5);
    await node.ledger.checkpoint();
    const full = await get(`${node.url}/archive?page=0`);
    expect(full.status).toBe(200);
    expect(full.headers.get('cache-control')).toBe(IMMUTABLE);
    // 106 events, the deposit's without a proof; a checkpoint places them in nullifier order, so
    // the deposit falls on either page: each page serves exactly its settlements' proofs.
    expect(full.json.from).toBe(0);
    expect(full.json.next).toBe(PAGE_SIZES.archive);
    const events = await node.store.publishedEvents(0, PAGE_SIZES.archive + 6);
    const settledOn = (page: number) =>
      events
        .filter(
          (e) => e.kind === 'settlement' && Math.floor((e.id - 1) / PAGE_SIZES.archive) === page,
        )
        .map((e) => e.id);
    expect(settledOn(0).length + settledOn(1).length).toBe(PAGE_SIZES.archive + 5);
    expect(full.json.proofs.map((p: Json) => p.id)).toEqual(settledOn(0));
    const first = full.json.proofs[0];
    expect({ root: first.root, ctx: first.ctx }).toEqual({ root: ROOT, ctx: CTX });
    const stored = await node.store.archivedProofs(0, PAGE_SIZES.archive);
    expect(Buffer.from(first.proof, 'base64').equals(Buffer.from(stored[0]!.proof))).toBe(true);
    // The filling page: its six positions, revalidated, 304 while no checkpoint came.
    const filling = await get(`${node.url}/archive?page=1`);
    expect(filling.headers.get('cache-control')).toBe(REVALIDATE);
    expect(filling.json.proofs.map((p: Json) => p.id)).toEqual(settledOn(1));
    expect(filling.json.next).toBe(PAGE_SIZES.archive + 6);
    const tag = filling.headers.get('etag')!;
    expect((await get(`${node.url}/archive?page=1`, { 'if-none-match': tag })).status).toBe(304);
    // A page past the head: empty, filling.
    expect((await get(`${node.url}/archive?page=9`)).json).toEqual({
      from: 900,
      proofs: [],
      next: 900,
    });
    expect((await get(`${node.url}/archive/state`)).json).toEqual({
      pageSize: PAGE_SIZES.archive,
      events: PAGE_SIZES.archive + 6,
      prunedThrough: 0,
      legacyThrough: 0,
      retentionDays: 30,
    });
  });

  it('answers a pruned page 410 archive_pruned for good; the pages after it stay', async () => {
    const node = await startNode('pruned');
    await settle(node.store, PAGE_SIZES.archive + 3);
    await node.ledger.checkpoint();
    const before = await get(`${node.url}/archive?page=0`);
    expect(before.json.proofs).toHaveLength(PAGE_SIZES.archive);
    expect(await node.store.pruneArchive(Date.now() + 1, PAGE_SIZES.archive)).toEqual({
      prunedThrough: PAGE_SIZES.archive,
      dropped: PAGE_SIZES.archive,
    });
    const gone = await get(`${node.url}/archive?page=0`);
    expect(gone.status).toBe(410);
    expect(gone.json.error).toBe('archive_pruned');
    expect(gone.headers.get('cache-control')).toBe(IMMUTABLE);
    // Twin: the page after it is whole.
    const next = await get(`${node.url}/archive?page=1`);
    expect(next.status).toBe(200);
    expect(next.json.proofs).toHaveLength(3);
    expect((await get(`${node.url}/archive/state`)).json).toMatchObject({
      prunedThrough: PAGE_SIZES.archive,
    });
  });

  it('checks the query as sent: a page number and nothing else', async () => {
    const node = await startNode('query');
    for (const query of ['', '?page=x', '?page=01', '?page=0&after=3', '?page=-1']) {
      expect((await get(`${node.url}/archive${query}`)).status, query).toBe(400);
      expect((await get(`${node.url}/digests${query}`)).status, query).toBe(400);
    }
  });

  it('records a log digest after each checkpoint, equal to what a reader folds from the pages', async () => {
    const node = await startNode('digests', 50);
    await node.store.apply([depositOp()], Date.now());
    await settle(node.store, 3);
    await node.ledger.checkpoint();
    let page: Json = null;
    for (let i = 0; i < 100 && !(page?.digests.length > 0); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      page = (await get(`${node.url}/digests?page=0`)).json;
    }
    expect(page.digests).toHaveLength(1);
    expect(page.digests[0]).toMatchObject({ seq: 1, events: 4 });
    // The reader's side: the events page and the archive page, folded from genesis.
    const events = (await get(`${node.url}/events?page=0`)).json.events as PoolEvent[];
    const proofs = new Map<number, Uint8Array>(
      (await get(`${node.url}/archive?page=0`)).json.proofs.map((p: Json) => [
        p.id,
        new Uint8Array(Buffer.from(p.proof, 'base64')),
      ]),
    );
    const folded = logDigest(
      events.map((event) => ({ event, proofHash: proofHashOf(proofs.get(event.id) ?? null) })),
    );
    expect(page.digests[0].digest).toBe(digestHex(folded));
  });
});
