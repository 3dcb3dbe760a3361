// The durable writes of a bench run, read from the service's metrics (`priv_stark_commit_*`,
// src/http/commit-metrics.ts) before and after it: groups per payment, ops per group, how long an
// op queued for its group, and a commit's time in the store by phase (lock wait, the group's SQL,
// the commit with its fsync). What issue 27 asks to find first: whether commits bound the service.

/** The commit gauges at one moment (totals since the service started). */
export interface CommitCounters {
  readonly groups: number;
  readonly ops: number;
  readonly queueWaitS: number;
  readonly applyS: number;
  readonly queueMax: number;
  readonly storeCommits: number;
  readonly lockS: number;
  readonly workS: number;
  readonly syncS: number;
}

/** The commit gauges now, or `null` when the service exports none (a build from before them). */
export async function scrapeCommits(metricsUrl: string): Promise<CommitCounters | null> {
  let text: string;
  try {
    text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  } catch {
    return null;
  }
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
  };
  const groups = value('priv_stark_commit_groups_total');
  if (Number.isNaN(groups)) return null;
  return {
    groups,
    ops: value('priv_stark_commit_ops_total'),
    queueWaitS: value('priv_stark_commit_queue_wait_seconds_total'),
    applyS: value('priv_stark_commit_apply_seconds_total'),
    queueMax: value('priv_stark_commit_queue_max'),
    storeCommits: value('priv_stark_commit_store_commits_total'),
    lockS: value('priv_stark_commit_store_seconds_total{phase="lock"}') || 0,
    workS: value('priv_stark_commit_store_seconds_total{phase="work"}') || 0,
    syncS: value('priv_stark_commit_store_seconds_total{phase="sync"}') || 0,
  };
}

/** What a run's commits were, per payment and per group (ms), from the gauges around it. */
export interface CommitFigures {
  readonly groupsPerPayment: number;
  readonly opsPerGroup: number;
  readonly queueWaitMsPerOp: number;
  readonly applyMsPerGroup: number;
  /** The store's phases per commit, ms (`null` where the store times none: another process's). */
  readonly storeMsPerCommit: { lock: number; work: number; sync: number } | null;
  /** The store's time per payment, ms: how much of a second the commits take at this rate. */
  readonly storeMsPerPayment: number | null;
  readonly queueMax: number;
}

const r3 = (x: number) => Number(x.toFixed(3));

/** The figures of the run between `before` and `after` that made `payments` payments. */
export function commitFigures(
  before: CommitCounters | null,
  after: CommitCounters | null,
  payments: number,
): CommitFigures | null {
  if (before === null || after === null || payments === 0) return null;
  const groups = after.groups - before.groups;
  const ops = after.ops - before.ops;
  const commits = after.storeCommits - before.storeCommits;
  const lock = after.lockS - before.lockS;
  const work = after.workS - before.workS;
  const sync = after.syncS - before.syncS;
  return {
    groupsPerPayment: r3(groups / payments),
    opsPerGroup: r3(ops / Math.max(1, groups)),
    queueWaitMsPerOp: r3(((after.queueWaitS - before.queueWaitS) * 1000) / Math.max(1, ops)),
    applyMsPerGroup: r3(((after.applyS - before.applyS) * 1000) / Math.max(1, groups)),
    storeMsPerCommit:
      commits > 0
        ? {
            lock: r3((lock * 1000) / commits),
            work: r3((work * 1000) / commits),
            sync: r3((sync * 1000) / commits),
          }
        : null,
    storeMsPerPayment: commits > 0 ? r3(((lock + work + sync) * 1000) / payments) : null,
    queueMax: after.queueMax,
  };
}
