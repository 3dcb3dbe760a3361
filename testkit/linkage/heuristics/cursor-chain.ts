/**
 * @module Cursor chain: a wallet that reads the log by exact cursor starts each sync where its
 * last one ended, so its reads chain across sessions and addresses: a read of `…?after=c` follows
 * the one earlier read of the same list whose reply said `next: c`. An item joins the chains its
 * own write's address read in (half its weight: the session that wrote it) and the chains that read
 * while its anchor was the newest checkpoint (the other half). Reads of fixed pages (`?page=n`)
 * carry no cursor and chain nothing.
 */

import type { OperatorView, Read } from '../operator-view.js';
import { evidenceScorer, type Evidence, weighted } from './evidence.js';
import type { Heuristic } from './heuristic.js';

function cursorOf(read: Read): { list: string; cursor: string } | null {
  const url = new URL(read.path, 'http://operator');
  const cursor = url.searchParams.get('after') ?? url.searchParams.get('from');
  return cursor === null ? null : { list: url.pathname, cursor };
}

/**
 * Chain id of every read: a read continues the chain that ends where it starts — the one whose
 * last read came from the same address if there is one (a session's next page), else the only
 * chain ending there; when several do and none shares its address, it starts a chain of its own.
 */
export function chainsOf(view: OperatorView): Map<Read, string> {
  const reads = [...view.reads].sort((a, b) => a.time - b.time);
  const chainOf = reads.map((_, i) => i);
  /** Chains (by first read) whose last read's reply ends at a list's cursor, and that read's source. */
  const ends = new Map<string, Map<number, string>>();
  const endsAt = (key: string) => {
    const map = ends.get(key) ?? new Map<number, string>();
    ends.set(key, map);
    return map;
  };
  reads.forEach((read, i) => {
    const c = cursorOf(read);
    if (c === null) return;
    const here = endsAt(`${c.list} ${c.cursor}`);
    const sameSource = [...here].find(([, source]) => source === read.source);
    const chosen = sameSource?.[0] ?? (here.size === 1 ? [...here.keys()][0] : undefined);
    if (chosen !== undefined) {
      chainOf[i] = chosen;
      here.delete(chosen);
    }
    // A read that found nothing new ends where it began.
    const next = read.next ?? c.cursor;
    endsAt(`${c.list} ${next}`).set(chainOf[i]!, read.source);
  });
  const out = new Map<Read, string>();
  reads.forEach((read, i) => {
    if (cursorOf(read) !== null) out.set(read, `chain:${chainOf[i]}`);
  });
  return out;
}

export const cursorChain: Heuristic = {
  name: 'cursor chain',
  leak: 'exact cursors',
  prepare(view) {
    const chains = chainsOf(view);
    const chainsBySource = new Map<string, Set<string>>();
    for (const [read, chain] of chains)
      chainsBySource.set(read.source, (chainsBySource.get(read.source) ?? new Set()).add(chain));
    const cps = view.checkpoints;
    const byRoot = new Map(cps.map((c, i) => [c.root, i]));
    const evidence = new Map<string, Evidence>();
    for (const item of view.items) {
      const weights = new Map<string, number>();
      const own = new Set<string>();
      for (const source of item.sources)
        if (!view.merchants.has(source))
          for (const chain of chainsBySource.get(source) ?? []) own.add(chain);
      for (const chain of own) weights.set(chain, 0.5 / own.size);
      const i = item.anchor === null ? undefined : byRoot.get(item.anchor);
      if (i !== undefined) {
        const from = cps[i]!.time;
        const to = i + 1 < cps.length ? cps[i + 1]!.time : Number.POSITIVE_INFINITY;
        const window = new Set<string>();
        for (const [read, chain] of chains)
          if (read.time >= from && read.time < to) window.add(chain);
        for (const chain of window)
          weights.set(chain, (weights.get(chain) ?? 0) + 0.5 / window.size);
      }
      evidence.set(item.id, weighted(weights));
    }
    return evidenceScorer(evidence);
  },
};
