/**
 * @module Timing join: the addresses that read the public log just before an item's write — a
 * wallet that syncs right before it pays or exits names itself — over the 10 simulated seconds
 * before the write. A proof takes the same real time however the schedule is compressed, so the
 * window is never shorter than a proof's real time (2 s). The operator learns how long a proof
 * takes from the writes whose writer it sees (exits, direct hand-overs — the lag from that
 * address's last read to its write): no read nearer the write than {@link FLOOR_SHARE} of the
 * shortest such lag can be the one before it, and a read weighs by how usual its lag is among
 * them (a Gaussian kernel over the known lags, its width a quarter of their median, at least 1
 * simulated second or 300 ms real) — a read just after the floor is no likelier than one a proof's
 * usual time before, which under load is seconds. Without a known writer: no floor, and weights
 * decaying from the write (exponential, same width).
 */

import type { OperatorView, Read } from '../operator-view.js';
import { lowerBound } from '../roc.js';
import { evidenceScorer, weighted, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

const WINDOW_S = 10;
const TAU_S = 1;
const PROOF_WINDOW_MS = 2000;
const PROOF_TAU_MS = 300;
/** The floor's share of the shortest lag seen (a margin below it: the lags are a sample). */
const FLOOR_SHARE = 0.8;

/**
 * The lags, ms, from a known writer's last read to its write: over the writes that came from a
 * payer's own address (not a merchant's).
 */
export function knownWriteLags(view: OperatorView, reads: readonly Read[]): number[] {
  const bySource = new Map<string, number[]>();
  for (const r of reads) {
    const times = bySource.get(r.source);
    if (times === undefined) bySource.set(r.source, [r.time]);
    else times.push(r.time);
  }
  const lags: number[] = [];
  for (const item of view.items) {
    if (item.kind === 'deposit') continue;
    for (const source of item.sources) {
      const times = bySource.get(source);
      if (times === undefined || view.merchants.has(source)) continue;
      const i = lowerBound(times, item.time);
      if (i > 0) lags.push(item.time - times[i - 1]!);
    }
  }
  return lags;
}

/** The shortest of {@link knownWriteLags}; `null` when no write came from a payer's address. */
export function shortestWriteLag(view: OperatorView, reads: readonly Read[]): number | null {
  const lags = knownWriteLags(view, reads);
  return lags.length === 0 ? null : Math.min(...lags);
}

/** How usual a lag of `gapMs` is among `lags`: their Gaussian kernel of width `widthMs`, in (0, 1]. */
function lagWeight(gapMs: number, lags: readonly number[], widthMs: number): number {
  let sum = 0;
  for (const lag of lags) sum += Math.exp(-0.5 * ((gapMs - lag) / widthMs) ** 2);
  return sum / lags.length;
}

export const timingJoin: Heuristic = {
  name: 'timing join',
  leak: 'sync right before each write (millisecond times)',
  prepare(view, { compression }) {
    const windowMs = Math.max((WINDOW_S * 1000) / compression, PROOF_WINDOW_MS);
    const tauMs = Math.max((TAU_S * 1000) / compression, PROOF_TAU_MS);
    const reads = view.reads
      .filter((r) => !view.merchants.has(r.source))
      .sort((a, b) => a.time - b.time);
    const times = reads.map((r) => r.time);
    const lags = knownWriteLags(view, reads).sort((a, b) => a - b);
    const floorMs = lags.length === 0 ? 0 : FLOOR_SHARE * lags[0]!;
    const widthMs =
      lags.length === 0 ? tauMs : Math.max(tauMs, 0.25 * lags[Math.floor(lags.length / 2)]!);
    const weightOf = (gap: number) =>
      lags.length === 0 ? Math.exp(-gap / tauMs) : lagWeight(gap, lags, widthMs);
    const evidence = new Map<string, Evidence>();
    for (const item of view.items) {
      if (item.kind === 'deposit') continue;
      const weights = new Map<string, number>();
      for (let i = lowerBound(times, item.time - floorMs - windowMs); i < reads.length; i++) {
        const r = reads[i]!;
        const gap = item.time - r.time;
        if (gap <= 0 || gap < floorMs) break;
        const w = weightOf(gap);
        weights.set(r.source, Math.max(weights.get(r.source) ?? 0, w));
      }
      evidence.set(item.id, weighted(weights));
    }
    return evidenceScorer(evidence);
  },
};
