/**
 * @module Upload timing — the heuristic of a network observer on the wallets' own links, not of the
 * operator: it sees each connection's time, size and source address (`link-observer.ts`), and the
 * public log says when each payment, transfer and exit happened. A compact hand-over or an inline
 * proof is an upload of 80–150 KB, so an upload from an address just before an item's public time
 * names that address for it, weighted by closeness (exponential, 1 simulated second, at least
 * 300 ms real) over the 10 simulated seconds (at least 2 s real) before. With millisecond public
 * times that is about one upload; at checkpoint granularity the observer knows only that the item
 * arrived between two checkpoints, so the weight is flat over that interval and decays only before
 * it: every upload of the interval names its address alike.
 */

import type { OperatorView } from '../operator-view.js';
import { lowerBound } from '../roc.js';
import { evidenceScorer, weighted, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

const WINDOW_S = 10;
const TAU_S = 1;
const PROOF_WINDOW_MS = 2000;
const PROOF_TAU_MS = 300;
/** Below a proof's size: a connection that carried less carried no proof. */
export const MIN_UPLOAD_BYTES = 32 * 1024;

/** When the public log says an item happened: no later than `at`, no earlier than `at − spanMs`. */
export interface PublishedTime {
  readonly at: number;
  readonly spanMs: number;
}

/**
 * Each event's published time by its first nullifier, as `publicTimes` says the log shows it: at
 * its arrival (span 0), or at the time of the checkpoint that published it — it arrived after the
 * checkpoint before, which the log shows too.
 */
export function publishedTimes(
  view: OperatorView,
  publicTimes: 'checkpoint' | 'arrival',
): Map<string, PublishedTime> {
  const checkpoints = [...view.checkpoints].sort((a, b) => a.seq - b.seq);
  const bySeq = new Map(checkpoints.map((c, i) => [c.seq, i]));
  const times = new Map<string, PublishedTime>();
  for (const e of view.events) {
    if (e.nullifier === null || e.nullifier === undefined) continue;
    if (publicTimes === 'arrival') {
      times.set(String(e.nullifier), { at: Number(e.created_at), spanMs: 0 });
      continue;
    }
    const i = bySeq.get(Number(e.checkpoint_seq));
    if (i === undefined) continue;
    const at = checkpoints[i]!.time;
    const before = i > 0 ? checkpoints[i - 1]!.time : at;
    times.set(String(e.nullifier), { at, spanMs: at - before });
  }
  return times;
}

export const uploadTiming: Heuristic = {
  name: 'upload timing',
  leak: 'millisecond public event times',
  observer: 'network',
  prepare(view, { compression, publicTimes: published = 'checkpoint' }) {
    const windowMs = Math.max((WINDOW_S * 1000) / compression, PROOF_WINDOW_MS);
    const tauMs = Math.max((TAU_S * 1000) / compression, PROOF_TAU_MS);
    const uploads = view.linkUploads
      .filter((u) => u.bytes >= MIN_UPLOAD_BYTES && !view.merchants.has(u.source))
      .sort((a, b) => a.time - b.time);
    const times = uploads.map((u) => u.time);
    const itemTimes = publishedTimes(view, published);
    const evidence = new Map<string, Evidence>();
    for (const item of view.items) {
      if (item.kind === 'deposit') continue;
      const time = itemTimes.get(item.keys[0]!);
      if (time === undefined) continue;
      const { at, spanMs } = time;
      const weights = new Map<string, number>();
      for (let i = lowerBound(times, at - spanMs - windowMs); i < uploads.length; i++) {
        const u = uploads[i]!;
        const gap = at - u.time;
        if (gap < 0) break;
        const w = Math.exp(-Math.max(0, gap - spanMs) / tauMs);
        weights.set(u.source, Math.max(weights.get(u.source) ?? 0, w));
      }
      evidence.set(item.id, weighted(weights));
    }
    return evidenceScorer(evidence);
  },
};
