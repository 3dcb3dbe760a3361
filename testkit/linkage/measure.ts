/**
 * @module The linkage test's measure of one run: for every heuristic and every pair type, the
 * ROC AUC with its 95 % bootstrap interval — over the pairs whose payments went by relay, inline
 * or proxy (what the pass criterion reads) and over all pairs — the best combination of the
 * operator's heuristics (the mean and the maximum of their scores as percentiles within the pair type, the
 * better of the two), and the share of payments by each transport.
 */

import { HEURISTICS } from './heuristics/index.js';
import {
  labelledPairs,
  PAIR_TYPES,
  type Pair,
  type PairType,
  type Transport,
  transports,
} from './pairs.js';
import { type AucEstimate, aucWithInterval } from './roc.js';
import type { LinkageRun } from './run.js';

export const COMBINATION = 'best combination';

/** One line of the measure. */
export interface AucLine {
  readonly heuristic: string;
  readonly pairType: PairType;
  /** `private`: pairs whose payments went by relay, inline or proxy; `all`: every pair. */
  readonly scope: 'private' | 'all';
  readonly estimate: AucEstimate;
}

export interface LinkageMeasure {
  readonly lines: readonly AucLine[];
  /** Payments by transport. */
  readonly transports: Readonly<Record<Transport, number>>;
  /** Pairs scored per type (same-wallet + sampled cross-wallet). */
  readonly pairs: Readonly<Record<PairType, number>>;
}

/** Percentile of each score within its list (ties share their mean rank). */
function percentiles(scores: readonly number[]): number[] {
  const order = scores.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(scores.length);
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    const rank = (i + j) / 2 / Math.max(1, order.length - 1);
    for (let k = i; k <= j; k++) out[order[k]![1]] = rank;
    i = j + 1;
  }
  return out;
}

/** Measures `run` (bootstrap `replicates` per AUC). */
export function measureRun(
  run: Pick<LinkageRun, 'view' | 'truth' | 'config'>,
  options: { replicates?: number } = {},
): LinkageMeasure {
  const replicates = options.replicates ?? 300;
  const { view, truth } = run;
  const context = {
    compression: run.config.compression,
    publicTimes: run.config.publicTimes ?? 'checkpoint',
  };
  const scorers = HEURISTICS.map((h) => ({
    name: h.name,
    operators: h.observer !== 'network',
    score: h.prepare(view, context),
  }));
  const pairsByType = labelledPairs(view, truth);
  const lines: AucLine[] = [];
  const pairs = {} as Record<PairType, number>;
  for (const type of PAIR_TYPES) {
    const all = pairsByType.get(type) ?? [];
    pairs[type] = all.length;
    const columns = scorers.map((s) => all.map((p) => s.score(p.a, p.b)));
    // The combination is the operator's: a network observer's heuristic is reported beside it.
    const ranked = columns.filter((_, k) => scorers[k]!.operators).map(percentiles);
    const mean = all.map((_, i) => ranked.reduce((sum, c) => sum + c[i]!, 0) / ranked.length);
    const max = all.map((_, i) => Math.max(...ranked.map((c) => c[i]!)));
    for (const scope of ['private', 'all'] as const) {
      if (scope === 'private' && type === 'deposit-exit') continue;
      const keep = (p: Pair) => scope === 'all' || p.privateTransport;
      const estimateOf = (scores: readonly number[]) =>
        aucWithInterval(
          all.flatMap((p, i) => (keep(p) ? [{ score: scores[i]!, same: p.same }] : [])),
          { replicates },
        );
      scorers.forEach((s, k) => {
        lines.push({ heuristic: s.name, pairType: type, scope, estimate: estimateOf(columns[k]!) });
      });
      const candidates = [estimateOf(mean), estimateOf(max)];
      const best = candidates.reduce((a, b) => (b.auc > a.auc ? b : a));
      lines.push({ heuristic: COMBINATION, pairType: type, scope, estimate: best });
    }
  }
  const counts: Record<Transport, number> = {
    inline: 0,
    relay: 0,
    proxy: 0,
    direct: 0,
    unknown: 0,
  };
  for (const t of transports(view, truth).values()) counts[t]++;
  return { lines, transports: counts, pairs };
}

/** The measure as a table (markdown), for test output and the bench. */
export function measureTable(measure: LinkageMeasure, scope: AucLine['scope']): string {
  const rows = measure.lines.filter((l) => l.scope === scope);
  const names = [...new Set(rows.map((l) => l.heuristic))];
  const types = [...new Set(rows.map((l) => l.pairType))];
  const cell = (l: AucLine | undefined) =>
    l === undefined || Number.isNaN(l.estimate.auc)
      ? '–'
      : `${l.estimate.auc.toFixed(2)} [${l.estimate.low.toFixed(2)}, ${l.estimate.high.toFixed(2)}]`;
  const head = `| heuristic | ${types.join(' | ')} |\n|---|${types.map(() => '---:').join('|')}|`;
  const body = names.map(
    (n) =>
      `| ${n} | ${types.map((t) => cell(rows.find((l) => l.heuristic === n && l.pairType === t))).join(' | ')} |`,
  );
  return [head, ...body].join('\n');
}
