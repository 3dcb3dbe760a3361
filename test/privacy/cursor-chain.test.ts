// The cursor chain on reads worked out by hand: a read from where one address's chain ended
// continues it whole and joins the payments of both addresses, while a read from the log's start
// joins nothing, even where a read that found the log empty ended (the must-fail twin); where two chains end at one cursor, each of the two reads
// from there carries half of each (and a chain of its own), so it joins both earlier payments
// equally; reads of fixed pages chain nothing.

import { describe, expect, it } from 'vitest';

import { chainsOf, cursorChain } from '../../testkit/linkage/heuristics/cursor-chain.js';
import type { Item, OperatorView, Read } from '../../testkit/linkage/operator-view.js';

const MERCHANT = '127.2.0.1';

const read = (time: number, source: string, path: string, next: number | null): Read => ({
  time,
  source,
  path,
  next: next === null ? null : String(next),
});

const payment = (id: string, time: number, source: string): Item => ({
  id: `p:${id}`,
  kind: 'payment',
  time,
  amount: '10000',
  keys: [id],
  anchor: null,
  sources: [source],
  counterparty: MERCHANT,
  inline: false,
});

const EMPTY = {
  requests: [],
  events: [],
  chainDeposits: [],
  checkpoints: [],
  merchants: new Set([MERCHANT]),
  linkUploads: [],
};

function view(reads: Read[], items: Item[]): OperatorView {
  return { ...EMPTY, reads, items };
}

describe('cursor chain', () => {
  it('a read from where another address ended continues its chain; one from the start does not', () => {
    const reads = [
      // 127.16.9.2 found the log empty: it ends at 0, where every wallet's first read starts.
      read(0, '127.16.9.2', '/events?after=0', 0),
      read(1, '127.16.0.2', '/events?after=0&limit=5', 5),
      read(2, '127.16.1.2', '/events?after=0&limit=3', 3),
      read(3, '127.16.0.3', '/events?after=5&limit=4', 9),
    ];
    const chains = chainsOf(view(reads, []));
    expect(new Set([...chains.values()].map((c) => [...c.keys()].join())).size).toBe(3);
    expect(chains.get(reads[3]!)).toEqual(chains.get(reads[1]!));
    const items = [
      payment('a1', 10, '127.16.0.2'),
      payment('a2', 11, '127.16.0.3'),
      payment('b1', 12, '127.16.1.2'),
      payment('c1', 13, '127.16.9.2'),
    ];
    const score = cursorChain.prepare(view(reads, items), { compression: 1 });
    expect(score(items[0]!, items[1]!)).toBeGreaterThan(0);
    for (const [x, y] of [
      [0, 2],
      [1, 2],
      [0, 3],
      [2, 3],
    ] as const)
      expect(score(items[x]!, items[y]!)).toBe(0);
  });

  it('two chains ending at one cursor: each read from there carries half of each, and its own', () => {
    const reads = [
      read(1, '127.16.0.2', '/events?after=0&limit=5', 5),
      read(2, '127.16.1.2', '/events?after=0&limit=5', 5),
      read(3, '127.16.0.3', '/events?after=5&limit=4', 9),
      read(4, '127.16.1.3', '/events?after=5&limit=7', 12),
      read(5, '127.16.0.4', '/events?after=9&limit=1', 10),
    ];
    const chains = chainsOf(view(reads, []));
    const [a, b] = [[...chains.get(reads[0]!)!.keys()][0]!, [...chains.get(reads[1]!)!.keys()][0]!];
    for (const later of [reads[2]!, reads[3]!]) {
      const shares = chains.get(later)!;
      expect(shares.get(a)).toBeCloseTo(0.25);
      expect(shares.get(b)).toBeCloseTo(0.25);
      expect(shares.size).toBe(3);
    }
    // Past the collision the chain is unique again: the next read continues it whole.
    expect(chains.get(reads[4]!)).toEqual(chains.get(reads[2]!));
    const items = [
      payment('a1', 10, '127.16.0.2'),
      payment('b1', 11, '127.16.1.2'),
      payment('x', 12, '127.16.0.3'),
      payment('y', 13, '127.16.0.4'),
    ];
    const score = cursorChain.prepare(view(reads, items), { compression: 1 });
    expect(score(items[2]!, items[0]!)).toBeCloseTo(score(items[2]!, items[1]!));
    expect(score(items[2]!, items[3]!)).toBeGreaterThan(score(items[2]!, items[0]!));
  });

  it('reads of fixed pages chain nothing', () => {
    const reads = [
      read(1, '127.16.0.2', '/events?page=0', 5),
      read(2, '127.16.0.3', '/events?page=0', 5),
    ];
    expect(chainsOf(view(reads, [])).size).toBe(0);
    const items = [payment('a1', 10, '127.16.0.2'), payment('a2', 11, '127.16.0.3')];
    const score = cursorChain.prepare(view(reads, items), { compression: 1 });
    expect(score(items[0]!, items[1]!)).toBe(0);
  });
});
