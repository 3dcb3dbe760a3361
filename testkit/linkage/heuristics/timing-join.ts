/**
 * @module Timing join: the addresses that read the public log just before an item's write — a
 * wallet that syncs right before it pays or exits names itself — weighted by closeness
 * (exponential, 1 simulated second), over the 10 simulated seconds before the write. A proof takes
 * the same real time however the schedule is compressed, so neither window is shorter than the
 * real time a proof takes (300 ms for the decay, 2 s for the window).
 */

import { evidenceScorer, weighted, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

const WINDOW_S = 10;
const TAU_S = 1;
const PROOF_WINDOW_MS = 2000;
const PROOF_TAU_MS = 300;

export const timingJoin: Heuristic = {
  name: 'timing join',
  leak: 'sync right before each write (millisecond times)',
  prepare(view, { compression }) {
    const windowMs = Math.max((WINDOW_S * 1000) / compression, PROOF_WINDOW_MS);
    const tauMs = Math.max((TAU_S * 1000) / compression, PROOF_TAU_MS);
    const reads = [...view.reads].sort((a, b) => a.time - b.time);
    const evidence = new Map<string, Evidence>();
    for (const item of view.items) {
      if (item.kind === 'deposit') continue;
      const weights = new Map<string, number>();
      let lo = 0;
      let hi = reads.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (reads[mid]!.time < item.time - windowMs) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < reads.length; i++) {
        const r = reads[i]!;
        if (r.time >= item.time) break;
        if (view.merchants.has(r.source)) continue;
        const w = Math.exp(-(item.time - r.time) / tauMs);
        weights.set(r.source, Math.max(weights.get(r.source) ?? 0, w));
      }
      evidence.set(item.id, weighted(weights));
    }
    return evidenceScorer(evidence);
  },
};
