/**
 * @module Cursor chain: a wallet that reads the log by exact cursor starts each sync where its
 * last one ended, so its reads chain across sessions and addresses: a read of `…?after=c` follows
 * an earlier read of the same list whose reply said `next: c`. The log moves only when a
 * checkpoint publishes, so wallets that synced between the same two checkpoints end at one cursor;
 * the next read from there may continue any of their chains, and takes an equal share of each
 * (the chains' shares still unclaimed) rather than none. An item joins the chains its own write's
 * address read in. Reads of fixed pages (`?page=n`) carry no cursor and chain nothing.
 */

import type { OperatorView, Read } from '../operator-view.js';
import { evidenceScorer, type Evidence, weighted } from './evidence.js';
import type { Heuristic } from './heuristic.js';

function cursorOf(read: Read): { list: string; cursor: string } | null {
  const url = new URL(read.path, 'http://operator');
  const cursor = url.searchParams.get('after') ?? url.searchParams.get('from');
  return cursor === null ? null : { list: url.pathname, cursor };
}

/** Chain → the share of it a read carries (shares of one read sum to 1). */
export type ChainShares = ReadonlyMap<string, number>;

/** A chain's end: the shares of the read that ended there, its source, and how much is unclaimed. */
interface End {
  readonly shares: ChainShares;
  readonly source: string;
  unclaimed: number;
}

/**
 * How much of a read that could continue several chains is a chain of its own: whichever it
 * continues, what it reads from here on is one wallet's, so its successors keep that share whole
 * while the inherited ones stay split.
 */
const OWN_SHARE = 0.5;

function blend(parts: readonly { shares: ChainShares; weight: number }[]): Map<string, number> {
  let total = 0;
  for (const p of parts) total += p.weight;
  const out = new Map<string, number>();
  for (const p of parts)
    for (const [chain, share] of p.shares)
      out.set(chain, (out.get(chain) ?? 0) + (share * p.weight) / total);
  return out;
}

/**
 * The chains of every read by cursor, in arrival order. A read continues, whole, the chain whose
 * last read came from its own address and ended where it starts (a session's next page); a read
 * from the log's start, or from a cursor no chain ends at, begins a chain; a read from a cursor
 * where the chains of other addresses end continues each of them by its unclaimed share (two
 * chains ending there and two reads from there: each read half of each) and begins one of its own
 * beside them ({@link OWN_SHARE}).
 */
export function chainsOf(view: OperatorView): Map<Read, ChainShares> {
  const reads = [...view.reads].sort((a, b) => a.time - b.time);
  /** Chain ends by list and cursor. */
  const ends = new Map<string, End[]>();
  const out = new Map<Read, ChainShares>();
  reads.forEach((read, i) => {
    const c = cursorOf(read);
    if (c === null) return;
    const here = ends.get(`${c.list} ${c.cursor}`) ?? [];
    const own = new Map([[`chain:${i}`, 1]]);
    const same = here.findIndex((e) => e.source === read.source);
    let shares: ChainShares;
    if (same >= 0) {
      shares = here[same]!.shares;
      here.splice(same, 1);
    } else if (c.cursor === '0' || here.length === 0) shares = own;
    else {
      const several = here.length > 1;
      const open = here.reduce((sum, e) => sum + e.unclaimed, 0);
      const inherited = blend(here.map((e) => ({ shares: e.shares, weight: e.unclaimed })));
      // One read's worth of the chains ending here is claimed, from each by its unclaimed share.
      for (const e of here) e.unclaimed -= e.unclaimed / open;
      for (let j = here.length - 1; j >= 0; j--) if (here[j]!.unclaimed < 1e-9) here.splice(j, 1);
      shares = !several
        ? inherited
        : blend([
            { shares: inherited, weight: 1 - OWN_SHARE },
            { shares: own, weight: OWN_SHARE },
          ]);
    }
    out.set(read, shares);
    // A read that found nothing new ends where it began.
    const key = `${c.list} ${read.next ?? c.cursor}`;
    ends.set(key, [...(ends.get(key) ?? []), { shares, source: read.source, unclaimed: 1 }]);
  });
  return out;
}

export const cursorChain: Heuristic = {
  name: 'cursor chain',
  leak: 'exact cursors',
  prepare(view) {
    const chains = chainsOf(view);
    const bySource = new Map<string, ChainShares[]>();
    for (const [read, shares] of chains)
      bySource.set(read.source, [...(bySource.get(read.source) ?? []), shares]);
    const evidence = new Map<string, Evidence>();
    for (const item of view.items) {
      const own: ChainShares[] = [];
      for (const source of item.sources)
        if (!view.merchants.has(source)) own.push(...(bySource.get(source) ?? []));
      evidence.set(item.id, weighted(blend(own.map((shares) => ({ shares, weight: 1 })))));
    }
    return evidenceScorer(evidence);
  },
};
