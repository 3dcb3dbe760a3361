/**
 * @module ROC AUC of a linkage score against the ground truth, written out by hand: the
 * Mann–Whitney statistic (the probability that a same-wallet pair scores above a pair of two
 * wallets, ties counted half), and its 95 % interval by a stratified percentile bootstrap (the
 * same-wallet and the cross-wallet pairs resampled apart, so every replicate has both).
 */

import { Random } from './random.js';

/** One pair's score and whether its two items came from one wallet. */
export interface Scored {
  readonly score: number;
  readonly same: boolean;
}

/** An AUC with its bootstrap interval and the counts it rests on. */
export interface AucEstimate {
  readonly auc: number;
  readonly low: number;
  readonly high: number;
  readonly positives: number;
  readonly negatives: number;
}

/**
 * Weighted AUC: Σ w_p·w_n·([s_p > s_n] + ½[s_p = s_n]) / (Σ w_p · Σ w_n), by one pass over the
 * negatives sorted with prefix sums of their weights (weights are bootstrap multiplicities).
 */
function weightedAuc(
  pos: readonly number[],
  posWeight: readonly number[],
  negSorted: readonly number[],
  negWeight: readonly number[],
): number {
  const below: number[] = new Array(negSorted.length + 1);
  below[0] = 0;
  for (let i = 0; i < negSorted.length; i++) below[i + 1] = below[i]! + negWeight[i]!;
  const total = below[negSorted.length]!;
  let sum = 0;
  let posTotal = 0;
  for (let i = 0; i < pos.length; i++) {
    const w = posWeight[i]!;
    if (w === 0) continue;
    const s = pos[i]!;
    const lo = lowerBound(negSorted, s);
    const hi = upperBound(negSorted, s);
    sum += w * (below[lo]! + 0.5 * (below[hi]! - below[lo]!));
    posTotal += w;
  }
  return posTotal === 0 || total === 0 ? Number.NaN : sum / (posTotal * total);
}

/** The first index of `sorted` (ascending) whose value is at or above `value`. */
export function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index of `sorted` (ascending) whose value is above `value`. */
export function upperBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The AUC of `pairs` (NaN when either class is empty). */
export function rocAuc(pairs: readonly Scored[]): number {
  const pos = pairs.filter((p) => p.same).map((p) => p.score);
  const neg = pairs
    .filter((p) => !p.same)
    .map((p) => p.score)
    .sort((a, b) => a - b);
  return weightedAuc(
    pos,
    pos.map(() => 1),
    neg,
    neg.map(() => 1),
  );
}

/** Multiplicities of a resample with replacement of `n` items. */
function resample(n: number, random: Random): number[] {
  const counts = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) counts[random.below(n)]!++;
  return counts;
}

/** The q-quantile of sorted values (linear between order statistics). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/**
 * The AUC of `pairs` with its 95 % percentile-bootstrap interval over `replicates` resamples.
 * Pairs sharing a wallet are not independent; the docs say so (docs/privacy.md).
 */
export function aucWithInterval(
  pairs: readonly Scored[],
  options: { replicates?: number; seed?: number } = {},
): AucEstimate {
  const replicates = options.replicates ?? 500;
  const random = new Random(options.seed ?? 25);
  const pos = pairs.filter((p) => p.same).map((p) => p.score);
  const neg = pairs
    .filter((p) => !p.same)
    .map((p) => p.score)
    .sort((a, b) => a - b);
  const ones = (n: number) => new Array<number>(n).fill(1);
  const auc = weightedAuc(pos, ones(pos.length), neg, ones(neg.length));
  const estimates: number[] = [];
  if (pos.length > 0 && neg.length > 0)
    for (let r = 0; r < replicates; r++)
      estimates.push(
        weightedAuc(pos, resample(pos.length, random), neg, resample(neg.length, random)),
      );
  estimates.sort((a, b) => a - b);
  return {
    auc,
    low: quantile(estimates, 0.025),
    high: quantile(estimates, 0.975),
    positives: pos.length,
    negatives: neg.length,
  };
}
