/**
 * @module Timing join: the addresses that read the public log just before an item's write — a
 * wallet that syncs right before it pays or exits names itself — weighted by closeness
 * (exponential, 1 simulated second), over the 10 simulated seconds before the write. A proof takes
 * the same real time however the schedule is compressed, so neither window is shorter than the
 * real time a proof takes (300 ms for the decay, 2 s for the window); and no read nearer the write
 * than a proof takes can be the one before it: the operator learns how near from the writes whose
 * writer it sees (exits, direct hand-overs — the lag from that address's last read to its write),
 * and counts only reads at least {@link FLOOR_SHARE} of the shortest such lag before a write, so a
 * machine whose proofs slow under load moves the floor with them.
 */

import type { OperatorView, Read } from '../operator-view.js';
import { lowerBound } from '../roc.js';
import { evidenceScorer, weighted, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

const WINDOW_S = 10;
const TAU_S = 1;
const PROOF_WINDOW_MS = 2000;
const PROOF_TAU_MS = 300;
/**
 * The floor's share of the shortest lag seen — a margin below it, for the lags are a sample: a
 * small run sees few known writers (the timing twin: 3–4 direct hand-overs and 2 exits), whose
 * shortest lag can be twice a relayed payment's (62–280 ms measured, one run). At 0.8 a fresh-clone
 * CI run's floor hid quick payers' own reads and the twin read 0.85; half keeps them in.
 */
const FLOOR_SHARE = 0.5;

/**
 * The shortest lag, ms, from a known writer's last read to its write: over the writes that came
 * from a payer's own address (not a merchant's); `null` when none did.
 */
export function shortestWriteLag(view: OperatorView, reads: readonly Read[]): number | null {
  const bySource = new Map<string, number[]>();
  for (const r of reads) {
    const times = bySource.get(r.source);
    if (times === undefined) bySource.set(r.source, [r.time]);
    else times.push(r.time);
  }
  let shortest: number | null = null;
  for (const item of view.items) {
    if (item.kind === 'deposit') continue;
    for (const source of item.sources) {
      const times = bySource.get(source);
      if (times === undefined || view.merchants.has(source)) continue;
      const i = lowerBound(times, item.time);
      if (i === 0) continue;
      const lag = item.time - times[i - 1]!;
      if (shortest === null || lag < shortest) shortest = lag;
    }
  }
  return shortest;
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
    const floorMs = FLOOR_SHARE * (shortestWriteLag(view, reads) ?? 0);
    const evidence = new Map<string, Evidence>();
    for (const item of view.items) {
      if (item.kind === 'deposit') continue;
      const weights = new Map<string, number>();
      const end = item.time - floorMs;
      for (let i = lowerBound(times, end - windowMs); i < reads.length; i++) {
        const r = reads[i]!;
        const gap = item.time - r.time;
        if (gap <= 0 || gap < floorMs) break;
        const w = Math.exp(-(gap - floorMs) / tauMs);
        weights.set(r.source, Math.max(weights.get(r.source) ?? 0, w));
      }
      evidence.set(item.id, weighted(weights));
    }
    return evidenceScorer(evidence);
  },
};
