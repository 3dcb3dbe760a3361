// Where the durable writes spend their time (ledger/commit-stats.ts), on both stores: the group
// committer counts groups, ops, their sizes, queue waits and apply times; the store times each
// commit by phase (lock, work, sync). Ops submitted while a group commits go together in the next
// one — the figures show it — and a group the store refuses whole is not counted as committed.

import { describe, expect, it } from 'vitest';

import { GroupCommitter } from '../../src/ledger/index.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { depositOp } from './helpers/ops.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const NOW = 1_800_000_000_000;
const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

describe.each(kinds)('commit figures on the %s store', (kind) => {
  const h = storeHarness(kind);

  it('one lone op is a group of one; ops queued behind it go together; the store times every commit', async () => {
    const { store } = await h.fresh();
    const committer = new GroupCommitter(store, () => NOW, 512);
    expect(committer.stats.snapshot()).toMatchObject({ groups: 0, ops: 0, queueLength: 0 });
    expect((await committer.submit(depositOp({ amount: '5' }))).ok).toBe(true);
    // 40 at once: the first drain takes every op queued by then, so fewer groups than ops.
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => committer.submit(depositOp({ amount: String(i + 1) }))),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    const stats = committer.stats.snapshot(store.commitTiming?.() ?? null);
    expect(stats.ops).toBe(41);
    // The 40 were all queued before the drain's next turn: one group of 40 after the lone one.
    expect(stats.groups).toBe(2);
    expect(stats.sizeBuckets[0]).toEqual({ le: 1, count: 1 });
    expect(stats.sizeBuckets.find((b) => b.le === 32)).toEqual({ le: 32, count: 1 });
    expect(stats.sizeBuckets.find((b) => b.le === 64)).toEqual({ le: 64, count: 2 });
    expect(stats.sizeBuckets.at(-1)).toEqual({ le: 512, count: stats.groups });
    expect(stats.maxQueueLength).toBeGreaterThanOrEqual(40);
    expect(stats.queueLength).toBe(0);
    expect(stats.queueWaitMs).toBeGreaterThan(0);
    expect(stats.applyMs).toBeGreaterThan(0);
    // The store's side: one timed commit per group, every phase measured and non-negative.
    expect(stats.store).not.toBeNull();
    expect(stats.store!.commits).toBe(stats.groups);
    for (const phase of ['lockMs', 'workMs', 'syncMs'] as const)
      expect(stats.store![phase], phase).toBeGreaterThanOrEqual(0);
    expect(stats.store!.workMs + stats.store!.syncMs).toBeGreaterThan(0);
    // The phases fit inside the apply round trips that contain them.
    expect(stats.store!.lockMs + stats.store!.workMs + stats.store!.syncMs).toBeLessThanOrEqual(
      stats.applyMs + 1,
    );
  });

  it('a group the store fails is not counted; the twin after it is', async () => {
    const { store } = await h.fresh();
    const committer = new GroupCommitter(store, () => NOW, 512);
    await store.close();
    await expect(committer.submit(depositOp({ amount: '5' }))).rejects.toThrow();
    expect(committer.stats.snapshot()).toMatchObject({ groups: 0, ops: 0 });
    const { store: open } = await h.fresh();
    const working = new GroupCommitter(open, () => NOW, 512);
    expect((await working.submit(depositOp({ amount: '5' }))).ok).toBe(true);
    expect(working.stats.snapshot()).toMatchObject({ groups: 1, ops: 1 });
  });
});
