/**
 * @module Anchor join: a proof's anchor names the sync it came from. A wallet that anchors to the
 * newest checkpoint of its last sync read the log between that checkpoint and the next one, and
 * not again before it wrote (else it would hold a newer one): the addresses that read in that
 * window and not between the next checkpoint and the write (less a second for the proof, stated
 * in real time: a proof takes as long however the schedule is compressed) are its candidates. Two
 * items sharing an anchor, or candidates, are joined. Deposits carry no anchor.
 */

import type { OperatorView } from '../operator-view.js';
import { evidenceScorer, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

/** For each anchor root, the addresses that read the log while it was the newest checkpoint. */
export function readersByAnchor(view: OperatorView): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const reads = [...view.reads].sort((a, b) => a.time - b.time);
  const cps = view.checkpoints;
  let r = 0;
  for (let i = 0; i < cps.length; i++) {
    const from = cps[i]!.time;
    const to = i + 1 < cps.length ? cps[i + 1]!.time : Number.POSITIVE_INFINITY;
    while (r < reads.length && reads[r]!.time < from) r++;
    const readers: string[] = [];
    for (let j = r; j < reads.length && reads[j]!.time < to; j++)
      if (!view.merchants.has(reads[j]!.source)) readers.push(reads[j]!.source);
    out.set(cps[i]!.root, readers);
  }
  return out;
}

/** Real time a wallet may read the log after choosing its anchor, before its write arrives. */
const PROOF_MARGIN_MS = 1000;

export const anchorJoin: Heuristic = {
  name: 'anchor join',
  leak: 'last-sync anchors',
  prepare(view) {
    const readers = readersByAnchor(view);
    const next = new Map(
      view.checkpoints.map((c, i) => [
        c.root,
        view.checkpoints[i + 1]?.time ?? Number.POSITIVE_INFINITY,
      ]),
    );
    const readsOf = new Map<string, number[]>();
    for (const r of view.reads) readsOf.set(r.source, [...(readsOf.get(r.source) ?? []), r.time]);
    const readAgain = (address: string, from: number, to: number) =>
      (readsOf.get(address) ?? []).some((t) => t >= from && t < to);
    const evidence = new Map<string, Evidence>();
    for (const item of view.items) {
      if (item.anchor === null) continue;
      const after = next.get(item.anchor) ?? Number.POSITIVE_INFINITY;
      const candidates = [...new Set(readers.get(item.anchor) ?? [])].filter(
        (a) => !readAgain(a, after, item.time - PROOF_MARGIN_MS),
      );
      const e = new Map<string, number>([[`anchor:${item.anchor}`, 0.5]]);
      for (const a of candidates) e.set(`address:${a}`, 0.5 / candidates.length);
      evidence.set(item.id, e);
    }
    return evidenceScorer(evidence);
  },
};
