/**
 * @module Refill timing: transparent splits name their recipient — the wallet's own shielded
 * address — and come right after what emptied a note: a payment (a top-up) or a deposit (the
 * first splits). Each item's evidence is the recipients of the transfers within 5 simulated
 * seconds after it — after a payment's settlement (the `/settle` that took it: a wallet learns
 * its payment went through only then), after a deposit's arrival (the checkpoint that published
 * it would be finer) — weighted by closeness. A split is proved after what triggered it, and a proof
 * takes the same real time however the schedule is compressed, so neither window is shorter than
 * that real time (2 s for the window, 300 ms for the decay), as in the timing join.
 */

import { evidenceScorer, weighted, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

const WINDOW_S = 5;
const TAU_S = 1;
const PROOF_WINDOW_MS = 2000;
const PROOF_TAU_MS = 300;

export const refillTiming: Heuristic = {
  name: 'refill timing',
  leak: 'transparent splits',
  prepare(view, { compression }) {
    const windowMs = Math.max((WINDOW_S * 1000) / compression, PROOF_WINDOW_MS);
    const tauMs = Math.max((TAU_S * 1000) / compression, PROOF_TAU_MS);
    const transfers = view.items.filter((i) => i.kind === 'transfer' && i.counterparty !== null);
    const settledAt = new Map<string, number>();
    for (const r of view.requests)
      if (r.service === 'facilitator' && r.path.startsWith('/settle') && r.status === 200)
        for (const n of r.sent.nullifiers) settledAt.set(n, r.time);
    const evidence = new Map<string, Evidence>();
    for (const item of view.items) {
      if (item.kind === 'transfer') continue;
      const weights = new Map<string, number>();
      const from =
        (item.kind === 'payment' ? settledAt.get(item.keys[0]!) : undefined) ?? item.time;
      for (const t of transfers) {
        const after = t.time - from;
        if (after <= 0 || after > windowMs) continue;
        const w = Math.exp(-after / tauMs);
        weights.set(t.counterparty!, Math.max(weights.get(t.counterparty!) ?? 0, w));
      }
      evidence.set(item.id, weighted(weights));
    }
    return evidenceScorer(evidence);
  },
};
