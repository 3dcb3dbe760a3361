/**
 * @module The durable writes' metrics, read from the ledger at each scrape (`Ledger.commitStats`,
 * `ledger/commit-stats.ts`): groups and ops committed, groups by size, the time ops queue before
 * their group, the time a group's apply takes, the queue now and at its longest, and the store's
 * commits by phase (lock wait, work, commit with fsync) where the store measures them — with
 * `--workers N` on SQLite, the primary's store, which commits every worker's writes. The totals
 * are counters since start, summed over the workers (the queue's longest too: a sum of maxima, an
 * upper bound). docs/operations.md says how to read them.
 */

import { Counter, Gauge, type Registry } from 'prom-client';

import type { CommitStatsSnapshot, CommitTimingTotals } from '../ledger/index.js';

/** Registers the commit metrics in `registers`, each reading `stats()` when scraped. */
export function registerCommitGauges(
  registers: Registry[],
  stats: () => CommitStatsSnapshot,
): void {
  // A running total read from the ledger: set as a counter is, by its increase since zero.
  const total = (name: string, help: string, read: (s: CommitStatsSnapshot) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read(stats()));
      },
    });
  const gauge = (name: string, help: string, read: (s: CommitStatsSnapshot) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(stats()));
      },
    });
  total(
    'priv_stark_commit_groups_total',
    'Groups committed (one transaction each)',
    (s) => s.groups,
  );
  total('priv_stark_commit_ops_total', 'Ops committed in them', (s) => s.ops);
  total(
    'priv_stark_commit_queue_wait_seconds_total',
    'Summed over ops: from submit to the start of its group',
    (s) => s.queueWaitMs / 1000,
  );
  total(
    'priv_stark_commit_apply_seconds_total',
    "Summed over groups: the store's apply end to end (the writer thread's round trip included)",
    (s) => s.applyMs / 1000,
  );
  gauge('priv_stark_commit_queue', 'Ops waiting for a group now', (s) => s.queueLength);
  gauge('priv_stark_commit_queue_max', 'The longest the queue has been', (s) => s.maxQueueLength);
  new Counter({
    name: 'priv_stark_commit_group_size_total',
    help: 'Groups of at most `le` ops (cumulative, as a histogram’s buckets)',
    labelNames: ['le'],
    registers,
    collect() {
      this.reset();
      for (const bucket of stats().sizeBuckets) this.inc({ le: String(bucket.le) }, bucket.count);
    },
  });
  // The store's side only where this process's store commits (a worker's does not: the primary
  // registers these for its own store, `registerCommitStoreCounters`), so that no two processes
  // export the same family and a worker's zeros never stand for the primary's commits.
  if (stats().store !== null) registerCommitStoreCounters(registers, () => stats().store);
}

/** The store's commits by phase and their count, read from `timing()` when scraped. */
export function registerCommitStoreCounters(
  registers: Registry[],
  timing: () => CommitTimingTotals | null,
): void {
  new Counter({
    name: 'priv_stark_commit_store_seconds_total',
    help: "The store's commits by phase: lock (waiting for the write lock), work (the group's SQL), sync (the commit and its fsync)",
    labelNames: ['phase'],
    registers,
    collect() {
      this.reset();
      const store = timing();
      if (store === null) return;
      this.inc({ phase: 'lock' }, store.lockMs / 1000);
      this.inc({ phase: 'work' }, store.workMs / 1000);
      this.inc({ phase: 'sync' }, store.syncMs / 1000);
    },
  });
  new Counter({
    name: 'priv_stark_commit_store_commits_total',
    help: 'Commits the store timed',
    registers,
    collect() {
      this.reset();
      this.inc(timing()?.commits ?? 0);
    },
  });
}
