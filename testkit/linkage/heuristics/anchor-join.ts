/**
 * @module Anchor join: a proof's anchor names the sync it came from. A sync starts with a read of
 * the pool node's head (`/state`), which names the newest checkpoint; a wallet that anchors to the
 * newest checkpoint of its last sync made that head read between the checkpoint and the next one,
 * and none after it before it wrote (else it would hold a newer one). The addresses whose last head
 * read before the write (less a second for the proof, stated in real time: a proof takes as long
 * however the schedule is compressed) falls in the anchor's window are its candidates; the page
 * reads that follow a head read belong to the same sync and name nothing newer. Two items sharing
 * an anchor, or candidates, are joined. Deposits carry no anchor.
 */

import type { OperatorView } from '../operator-view.js';
import { upperBound } from '../roc.js';
import { evidenceScorer, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

/** Real time a wallet may read the log after choosing its anchor, before its write arrives. */
const PROOF_MARGIN_MS = 1000;

const HEAD_READ = /^\/state(\?|$)/;

/** Each address's head reads (`/state`), oldest first; merchants' left out. */
export function headReadsBySource(view: OperatorView): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of view.reads) {
    if (!HEAD_READ.test(r.path) || view.merchants.has(r.source)) continue;
    const list = out.get(r.source);
    if (list === undefined) out.set(r.source, [r.time]);
    else list.push(r.time);
  }
  for (const list of out.values()) list.sort((a, b) => a - b);
  return out;
}

/** The last of `times` (ascending) at or before `until`, or -∞. */
function lastAtOrBefore(times: readonly number[], until: number): number {
  const i = upperBound(times, until);
  return i === 0 ? Number.NEGATIVE_INFINITY : times[i - 1]!;
}

/**
 * Each anchored item's candidates: the addresses whose last head read before its write (less
 * {@link PROOF_MARGIN_MS}) fell while its anchor was the newest checkpoint.
 */
export function anchorCandidates(view: OperatorView): Map<string, string[]> {
  const heads = headReadsBySource(view);
  const cps = view.checkpoints;
  const windowOf = new Map(
    cps.map((c, i) => [c.root, [c.time, cps[i + 1]?.time ?? Number.POSITIVE_INFINITY] as const]),
  );
  const out = new Map<string, string[]>();
  for (const item of view.items) {
    if (item.anchor === null) continue;
    const window = windowOf.get(item.anchor);
    const candidates: string[] = [];
    if (window !== undefined)
      for (const [address, times] of heads) {
        const last = lastAtOrBefore(times, item.time - PROOF_MARGIN_MS);
        if (last >= window[0] && last < window[1]) candidates.push(address);
      }
    out.set(item.id, candidates);
  }
  return out;
}

export const anchorJoin: Heuristic = {
  name: 'anchor join',
  leak: 'last-sync anchors',
  prepare(view) {
    const anchorOf = new Map(view.items.map((i) => [i.id, i.anchor]));
    const evidence = new Map<string, Evidence>();
    for (const [id, candidates] of anchorCandidates(view)) {
      const e = new Map<string, number>([[`anchor:${anchorOf.get(id)}`, 0.5]]);
      for (const a of candidates) e.set(`address:${a}`, 0.5 / candidates.length);
      evidence.set(id, e);
    }
    return evidenceScorer(evidence);
  },
};
