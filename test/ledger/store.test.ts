// The store conformance suite: every test runs against the embedded SQLite store and a real
// PostgreSQL 15 (a throwaway cluster, or DATABASE_URL), through the one PoolStore interface.

import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { randomDigest } from '../../src/core/index.js';
import {
  MIGRATIONS,
  openSqliteStore,
  openStore,
  PoolUnavailableError,
  SCHEMA_VERSION,
  SchemaTooNewError,
  SQLITE_PAGE_BYTES,
  settlementId,
  sqlitePath,
} from '../../src/ledger/index.js';
import { ledgerProblems } from './helpers/invariants.js';
import { allLeaves, depositOp, settlementOp } from './helpers/ops.js';
import { failingTrigger, rawSql } from './helpers/raw-sql.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const NOW = 1_800_000_000_000;

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

describe.each(kinds)('%s store conformance', (kind) => {
  const h = storeHarness(kind);

  it('opens empty and migrated', async () => {
    const { store } = await h.fresh();
    const empty = h.core().emptyFrontier();
    expect(store.kind).toBe(kind);
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    expect(await store.state()).toEqual({
      size: 0,
      root: empty.root,
      events: 0,
      depositTotal: '0',
      withdrawnTotal: '0',
      paidOutTotal: '0',
      refundedTotal: '0',
      checkpoint: null,
    });
    const frontier = await store.frontier();
    expect(frontier.size).toBe(0);
    expect(Buffer.from(frontier.state).equals(Buffer.from(empty.state))).toBe(true);
    expect(await store.leaves(0, 10)).toEqual([]);
    expect(await store.events(0, 10)).toEqual([]);
    expect(await store.checkpoints(0, 10)).toEqual([]);
    await store.ping();
  });

  it('migrations are idempotent across reopenings and concurrent openings', async () => {
    const { open, config } = await h.fresh();
    const [a, b] = await Promise.all([open(), open()]);
    await a.apply([depositOp()], NOW);
    expect((await b.state()).size).toBe(1);
    await rawSql(kind, config, 'SELECT 1');
    const reopened = await open();
    expect((await reopened.state()).size).toBe(1);
  });

  it('refuses a database written by a newer schema', async () => {
    const { config, open } = await h.fresh();
    await rawSql(
      kind,
      config,
      `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${SCHEMA_VERSION + 1}, 'future', 0)`,
    );
    await expect(open()).rejects.toBeInstanceOf(SchemaTooNewError);
  });

  it('appends deposits with their indexes, events and the running total', async () => {
    const { store } = await h.fresh();
    const ops = [
      depositOp({ amount: '5' }),
      depositOp({ amount: '7' }),
      depositOp({ amount: String(2n ** 62n - 1n) }),
    ];
    const results = await store.apply(ops, NOW);
    expect(results).toEqual(
      ops.map((op, i) => ({
        ok: true,
        kind: 'deposit',
        eventId: i + 1,
        index: i,
        commitment: op.commitment,
      })),
    );
    const state = await store.state();
    expect(state.size).toBe(3);
    expect(state.events).toBe(3);
    expect(state.depositTotal).toBe((12n + 2n ** 62n - 1n).toString());
    expect(await store.leaves(0, 10)).toEqual(ops.map((op) => op.commitment));
    expect(await store.events(0, 10)).toEqual(
      ops.map((op, i) => ({
        id: i + 1,
        kind: 'deposit',
        time: NOW,
        amount: op.amount,
        commitment: op.commitment,
        index: i,
      })),
    );
  });

  it('refuses a deposit commitment already in the tree (and its must-pass twin)', async () => {
    const { store } = await h.fresh();
    const first = depositOp();
    await store.apply([first], NOW);
    const before = await store.state();
    const [again, fresh, twice] = await store.apply(
      [{ ...first, amount: '1' }, depositOp(), first],
      NOW,
    );
    expect(again).toEqual({ ok: false, reason: 'duplicate_commitment' });
    expect(fresh?.ok).toBe(true);
    expect(twice).toEqual({ ok: false, reason: 'duplicate_commitment' });
    const after = await store.state();
    expect(after.size).toBe(before.size + 1);
    expect(after.depositTotal).toBe((BigInt(before.depositTotal) + 1000n).toString());
    // within one group too
    const same = depositOp();
    const results = await store.apply([same, same], NOW);
    expect(results.map((r) => r.ok)).toEqual([true, false]);
  });

  it('applies a settlement: nullifier, change then recipient note, event', async () => {
    const { store } = await h.fresh();
    await store.apply([depositOp(), depositOp()], NOW);
    const op = settlementOp(h.core());
    const [result] = await store.apply([op], NOW + 5);
    expect(result).toEqual({
      ok: true,
      kind: 'settlement',
      eventId: 3,
      settlementId: op.settlementId,
      changeIndex: 2,
      recipientIndex: 3,
      recipientNote: op.recipientNote,
    });
    expect(await store.leaves(2, 10)).toEqual([op.change, op.recipientNote]);
    expect(await store.nullifier(op.nullifier)).toEqual({
      settlementId: op.settlementId,
      eventId: 3,
    });
    expect(await store.nullifier(randomDigest())).toBeNull();
    expect(await store.events(2, 10)).toEqual([
      {
        id: 3,
        kind: 'settlement',
        time: NOW + 5,
        settlementId: op.settlementId,
        nullifier: op.nullifier,
        change: op.change,
        changeIndex: 2,
        recipient: op.recipient,
        amount: op.amount,
        recipientNote: op.recipientNote,
        recipientIndex: 3,
      },
    ]);
    expect((await store.state()).depositTotal).toBe('2000');
  });

  it('accepts a nullifier once: later and same-group duplicates report the original id and change nothing', async () => {
    const { store } = await h.fresh();
    const op = settlementOp(h.core());
    await store.apply([op], NOW);
    const before = await store.state();
    const retry = settlementOp(h.core(), { nullifier: op.nullifier });
    expect(await store.apply([retry], NOW)).toEqual([
      { ok: false, reason: 'duplicate_settlement', settlementId: settlementId(op.nullifier) },
    ]);
    expect(await store.state()).toEqual(before);
    const other = settlementOp(h.core());
    const results = await store.apply(
      [other, settlementOp(h.core(), { nullifier: other.nullifier }), depositOp()],
      NOW,
    );
    expect(results.map((r) => (r.ok ? 'ok' : r.reason))).toEqual([
      'ok',
      'duplicate_settlement',
      'ok',
    ]);
    expect((await store.state()).size).toBe(before.size + 3);
  });

  it('one of many concurrent handles wins a nullifier', async () => {
    const { open } = await h.fresh();
    const handles = await Promise.all([open(), open(), open()]);
    const op = settlementOp(h.core());
    const results = (
      await Promise.all(handles.flatMap((s) => [s.apply([op], NOW), s.apply([op], NOW)]))
    ).flat();
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'duplicate_settlement')).toHaveLength(5);
    expect((await handles[0]!.state()).size).toBe(2);
  });

  it('a group that fails part-way writes nothing at all', async () => {
    const { store, config } = await h.fresh();
    await store.apply([depositOp()], NOW);
    const before = await store.state();
    const leavesBefore = await allLeaves(store);
    const bad = settlementOp(h.core(), { recipient: 'boom' });
    await rawSql(kind, config, failingTrigger(kind, 'boom'));
    const good = settlementOp(h.core());
    await expect(store.apply([good, depositOp(), bad], NOW)).rejects.toBeInstanceOf(
      PoolUnavailableError,
    );
    expect(await store.state()).toEqual(before);
    expect(await allLeaves(store)).toEqual(leavesBefore);
    expect(await store.nullifier(good.nullifier)).toBeNull();
    expect(await store.events(before.events, 10)).toEqual([]);
    // the must-pass twin: the same group without the poisoned op applies
    const results = await store.apply([good, depositOp()], NOW);
    expect(results.every((r) => r.ok)).toBe(true);
  });

  it('the stored root always equals the root of all leaves, and paths from a rebuilt tree check out', async () => {
    const { store, open } = await h.fresh();
    const core = h.core();
    let handle = store;
    const group = fc.array(
      fc.oneof(fc.constant('deposit' as const), fc.constant('settlement' as const)),
      { minLength: 1, maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(group, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.nat(),
        async (groups, reopen, pick) => {
          for (const kinds of groups) {
            await handle.apply(
              kinds.map((k) => (k === 'deposit' ? depositOp() : settlementOp(core))),
              NOW,
            );
          }
          if (reopen) handle = await open();
          const leaves = await allLeaves(handle);
          const state = await handle.state();
          const frontier = await handle.frontier();
          expect(leaves.length).toBe(state.size);
          expect(frontier.root).toBe(state.root);
          expect(core.treeRoot(leaves)).toBe(state.root);
          const index = pick % leaves.length;
          expect(core.rootFromPath(leaves[index]!, index, core.treePath(leaves, index))).toBe(
            state.root,
          );
          // appending to the restored frontier equals appending to a rebuilt one
          const probe = randomDigest();
          expect(core.frontierAppend(frontier, [probe]).root).toBe(
            core.treeRoot([...leaves, probe]),
          );
        },
      ),
      { numRuns: 12 },
    );
  });

  it('publishes checkpoints only when the tree changed, spaced by the gap; old ones stay', async () => {
    const { store } = await h.fresh();
    expect(await store.checkpoint(NOW, 0)).toBeNull(); // empty tree
    await store.apply([depositOp(), depositOp()], NOW);
    const first = await store.checkpoint(NOW, 2000);
    expect(first).toEqual({ seq: 1, root: (await store.state()).root, size: 2, time: NOW });
    expect(await store.checkpoint(NOW + 5000, 2000)).toBeNull(); // unchanged
    await store.apply([depositOp()], NOW);
    expect(await store.checkpoint(NOW + 1000, 2000)).toBeNull(); // too soon
    const second = await store.checkpoint(NOW + 2000, 2000);
    expect(second).toMatchObject({ seq: 2, size: 3, time: NOW + 2000 });
    expect(await store.checkpointByRoot(first!.root)).toEqual(first);
    expect(await store.checkpointByRoot(second!.root)).toEqual(second);
    expect(await store.checkpointByRoot(randomDigest())).toBeNull();
    expect((await store.state()).checkpoint).toEqual(second);
    expect(await store.checkpoints(0, 10)).toEqual([first, second]);
    expect(await store.checkpoints(1, 10)).toEqual([second]);
    const leaves = await allLeaves(store);
    expect(h.core().treeRoot(leaves.slice(0, first!.size))).toBe(first!.root);
  });

  it('concurrent checkpoint timers on one ledger publish once', async () => {
    const { open } = await h.fresh();
    const handles = await Promise.all([open(), open(), open()]);
    await handles[0]!.apply([depositOp()], NOW);
    const published = await Promise.all(
      handles.flatMap((s) => [s.checkpoint(NOW, 1800), s.checkpoint(NOW + 1, 1800)]),
    );
    expect(published.filter((c) => c !== null)).toHaveLength(1);
    expect(await handles[1]!.checkpoints(0, 10)).toHaveLength(1);
  });

  it('pages events, leaves and checkpoints by cursor without gaps', async () => {
    const { store } = await h.fresh();
    const core = h.core();
    for (let round = 0; round < 5; round++) {
      await store.apply([depositOp(), settlementOp(core), depositOp()], NOW + round);
      await store.checkpoint(NOW + round, 0);
    }
    const ids: number[] = [];
    for (let after = 0; ; ) {
      const page = await store.events(after, 4);
      if (page.length === 0) break;
      ids.push(...page.map((e) => e.id));
      after = page[page.length - 1]!.id;
    }
    expect(ids).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    const paged = [
      ...(await store.leaves(0, 7)),
      ...(await store.leaves(7, 7)),
      ...(await store.leaves(14, 7)),
    ];
    expect(paged).toEqual(await allLeaves(store));
    expect(paged).toHaveLength(20);
    expect(await store.leaves(20, 7)).toEqual([]);
    expect((await store.checkpoints(2, 2)).map((c) => c.seq)).toEqual([3, 4]);
  });

  it('fails with PoolUnavailableError, never hangs, when the store is gone', async () => {
    const { open } = await h.fresh();
    const store = await open();
    await store.close();
    for (const call of [
      () => store.apply([depositOp()], NOW),
      () => store.state(),
      () => store.checkpoint(NOW, 0),
      () => store.leaves(0, 1),
      () => store.events(0, 1),
      () => store.nullifier(randomDigest()),
      () => store.ping(),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(PoolUnavailableError);
    }
  });
});

describe('sqlite store specifics', () => {
  const h = storeHarness('sqlite');

  it('runs in WAL mode with synchronous=FULL', async () => {
    const { config } = await h.fresh();
    const db = new Database(sqlitePath(config.dataDir!), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('creates a new pool with 16 KiB pages', async () => {
    const { config } = await h.fresh();
    const db = new Database(sqlitePath(config.dataDir!), { readonly: true });
    expect(db.pragma('page_size', { simple: true })).toBe(SQLITE_PAGE_BYTES);
    expect(SQLITE_PAGE_BYTES).toBe(16_384);
    db.close();
  });

  it('keeps the page size of a pool created with 4 KiB pages, and its data', async () => {
    const { config, store: first, open } = await h.fresh();
    const path = sqlitePath(config.dataDir!);
    await first.apply([depositOp()], NOW);
    await first.close();
    // An older release's file: the same pool rewritten with SQLite's default page size.
    const old = new Database(path);
    old.pragma('journal_mode = DELETE');
    old.pragma('page_size = 4096');
    old.exec('VACUUM');
    old.pragma('journal_mode = WAL');
    expect(old.pragma('page_size', { simple: true })).toBe(4096);
    old.close();
    const store = await open();
    expect((await store.state()).size).toBe(1);
    await store.apply([depositOp()], NOW);
    expect((await store.state()).size).toBe(2);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('page_size', { simple: true })).toBe(4096);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('gives PoolUnavailableError when another process holds the lock past the busy timeout', async () => {
    const { config, open } = await h.fresh();
    const store = await open({ busyTimeoutMs: 200 });
    const blocker = new Database(sqlitePath(config.dataDir!));
    blocker.exec('BEGIN EXCLUSIVE');
    try {
      const started = Date.now();
      await expect(store.apply([depositOp()], NOW)).rejects.toBeInstanceOf(PoolUnavailableError);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    expect((await store.apply([depositOp()], NOW))[0]?.ok).toBe(true);
  });

  it('writes on the calling thread too (writer: inline), with the same rules', async () => {
    const { config } = await h.fresh();
    const store = await openSqliteStore({
      tree: h.core(),
      dataDir: config.dataDir!,
      writer: 'inline',
    });
    try {
      const op = settlementOp(h.core());
      const results = await store.apply(
        [depositOp(), op, settlementOp(h.core(), { nullifier: op.nullifier })],
        NOW,
      );
      expect(results.map((r) => (r.ok ? 'ok' : r.reason))).toEqual([
        'ok',
        'ok',
        'duplicate_settlement',
      ]);
      expect(await store.checkpoint(NOW, 0)).toMatchObject({ seq: 1, size: 3 });
      expect(await ledgerProblems(h.core(), store)).toEqual([]);
    } finally {
      await store.close();
    }
    await expect(store.apply([depositOp()], NOW)).rejects.toBeInstanceOf(PoolUnavailableError);
  });

  it('defaults the data directory to ./data', async () => {
    const previous = process.cwd();
    const { config } = await h.fresh();
    process.chdir(config.dataDir!);
    try {
      const store = await openStore(h.core());
      expect((await store.state()).size).toBe(0);
      await store.close();
      expect(sqlitePath('./data')).toBe(sqlitePath(`${config.dataDir}/data`));
    } finally {
      process.chdir(previous);
    }
  });
});

describe.runIf(postgresAvailable() && !process.env.DATABASE_URL)('postgres store specifics', () => {
  const h = storeHarness('postgres');

  it('gives PoolUnavailableError while the server is down and recovers when it is back', async () => {
    const { store } = await h.fresh();
    await store.apply([depositOp()], NOW);
    h.postgres().pause();
    try {
      const started = Date.now();
      await expect(store.apply([depositOp()], NOW)).rejects.toBeInstanceOf(PoolUnavailableError);
      await expect(store.state()).rejects.toBeInstanceOf(PoolUnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(PoolUnavailableError);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      h.postgres().resume();
    }
    expect((await store.apply([depositOp()], NOW))[0]?.ok).toBe(true);
    expect((await store.state()).size).toBe(2);
  });
});
