/**
 * @module Cursor chain: a wallet that reads the log by exact cursor starts each sync where its
 * last one ended, so its reads chain across sessions and addresses: a read of `…?after=c` follows
 * the one earlier read of the same list whose reply said `next: c`. Items join the chains that read
 * while their anchor was the newest checkpoint. Reads of fixed pages (`?page=n`) carry no cursor
 * and chain nothing.
 */

import type { OperatorView, Read } from '../operator-view.js';
import { evidenceScorer, uniform, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

function cursorOf(read: Read): { list: string; cursor: string } | null {
  const url = new URL(read.path, 'http://operator');
  const cursor = url.searchParams.get('after') ?? url.searchParams.get('from');
  return cursor === null ? null : { list: url.pathname, cursor };
}

/** Chain id of every read (union-find over unambiguous cursor links), by read index. */
export function chainsOf(view: OperatorView): Map<Read, string> {
  const reads = [...view.reads].sort((a, b) => a.time - b.time);
  const parent = reads.map((_, i) => i);
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root]!;
    return root;
  };
  const open = new Map<string, number[]>();
  reads.forEach((read, i) => {
    const c = cursorOf(read);
    if (c === null) return;
    const waiting = open.get(`${c.list} ${c.cursor}`);
    if (waiting !== undefined && waiting.length === 1) parent[find(i)] = find(waiting[0]!);
    if (read.next !== null) {
      const key = `${c.list} ${read.next}`;
      open.set(key, [...(open.get(key) ?? []), i]);
    }
  });
  const out = new Map<Read, string>();
  reads.forEach((read, i) => {
    if (cursorOf(read) !== null) out.set(read, `chain:${find(i)}`);
  });
  return out;
}

export const cursorChain: Heuristic = {
  name: 'cursor chain',
  leak: 'exact cursors',
  prepare(view) {
    const chains = chainsOf(view);
    const cps = view.checkpoints;
    const byRoot = new Map(cps.map((c, i) => [c.root, i]));
    const evidence = new Map<string, Evidence>();
    for (const item of view.items) {
      if (item.anchor === null) continue;
      const i = byRoot.get(item.anchor);
      if (i === undefined) continue;
      const from = cps[i]!.time;
      const to = i + 1 < cps.length ? cps[i + 1]!.time : Number.POSITIVE_INFINITY;
      const tokens: string[] = [];
      for (const [read, chain] of chains)
        if (read.time >= from && read.time < to) tokens.push(chain);
      evidence.set(item.id, uniform(tokens));
    }
    return evidenceScorer(evidence);
  },
};
