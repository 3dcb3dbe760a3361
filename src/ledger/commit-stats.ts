/**
 * @module Where the ledger's durable writes spend their time (issue 27, "find the bottleneck"):
 * the group committer's side — how many ops each group carries, how long an op queues before its
 * group starts, how long a group's `store.apply` takes end to end, how long the queue is — and the
 * store's side of one commit, where the store can tell: waiting for the write lock (`BEGIN
 * IMMEDIATE`), the group's own SQL, and the commit with its fsync. The metrics listener exports
 * them (`priv_stark_commit_*`, docs/operations.md) and the flow bench reports them per payment.
 */

/** Where one durable commit (one group's transaction) spent its time, ms. */
export interface CommitTiming {
  /** Waiting for the write lock: another writer (process or connection) held it. */
  readonly lockMs: number;
  /** The group's reads and writes inside the transaction. */
  readonly workMs: number;
  /** The commit: the WAL written and fsynced. */
  readonly syncMs: number;
}

/** Sums over the commits a store made, by phase (the store's side). */
export interface CommitTimingTotals {
  readonly commits: number;
  readonly lockMs: number;
  readonly workMs: number;
  readonly syncMs: number;
}

/** Accumulates {@link CommitTiming}s into {@link CommitTimingTotals}. */
export class CommitTimingSums {
  private totals = { commits: 0, lockMs: 0, workMs: 0, syncMs: 0 };

  add(timing: CommitTiming): void {
    this.totals.commits += 1;
    this.totals.lockMs += timing.lockMs;
    this.totals.workMs += timing.workMs;
    this.totals.syncMs += timing.syncMs;
  }

  snapshot(): CommitTimingTotals {
    return { ...this.totals };
  }
}

/** Upper bounds of the group-size buckets (ops per group); the last bucket is everything above. */
export const GROUP_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512] as const;

/** The committer's figures since start, and the store's where it keeps them. */
export interface CommitStatsSnapshot {
  /** Groups applied (each one transaction, one fsync). */
  readonly groups: number;
  /** Ops in them. */
  readonly ops: number;
  /** Groups by size: `counts[i]` groups of at most `GROUP_SIZE_BUCKETS[i]` ops (cumulative). */
  readonly sizeBuckets: readonly { readonly le: number; readonly count: number }[];
  /** Summed over ops: from submit to the start of its group's `store.apply`, ms. */
  readonly queueWaitMs: number;
  /** Summed over groups: `store.apply` end to end, ms (the writer thread's round trip included). */
  readonly applyMs: number;
  /** Ops waiting for a group now. */
  readonly queueLength: number;
  /** The longest the queue has been. */
  readonly maxQueueLength: number;
  /** The store's side of its commits, where it measures them (SQLite in this process). */
  readonly store: CommitTimingTotals | null;
}

/** The committer's side, accumulated by `GroupCommitter`. */
export class CommitStats {
  private groups = 0;
  private ops = 0;
  private readonly sizes = new Array<number>(GROUP_SIZE_BUCKETS.length).fill(0);
  private queueWaitMs = 0;
  private applyMs = 0;
  private queueLength = 0;
  private maxQueueLength = 0;

  /** The queue's length now. */
  queued(length: number): void {
    this.queueLength = length;
    if (length > this.maxQueueLength) this.maxQueueLength = length;
  }

  /** One group applied: its size, its ops' summed queue wait and its apply time, ms. */
  group(size: number, queueWaitMs: number, applyMs: number): void {
    this.groups += 1;
    this.ops += size;
    this.queueWaitMs += queueWaitMs;
    this.applyMs += applyMs;
    GROUP_SIZE_BUCKETS.forEach((le, i) => {
      if (size <= le) this.sizes[i]! += 1;
    });
  }

  snapshot(store: CommitTimingTotals | null = null): CommitStatsSnapshot {
    return {
      groups: this.groups,
      ops: this.ops,
      sizeBuckets: GROUP_SIZE_BUCKETS.map((le, i) => ({ le, count: this.sizes[i]! })),
      queueWaitMs: this.queueWaitMs,
      applyMs: this.applyMs,
      queueLength: this.queueLength,
      maxQueueLength: this.maxQueueLength,
      store,
    };
  }
}
