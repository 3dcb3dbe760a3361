// The timing join's floor (testkit/linkage/heuristics/timing-join.ts), on views worked by hand: a
// read nearer a write than the shortest lag the operator saw from a known writer's last read to its
// write cannot be the read before that write's proof, so it joins nothing — and without a known
// writer there is no floor and the same read joins.

import { describe, expect, it } from 'vitest';

import { shortestWriteLag, timingJoin } from '../../testkit/linkage/heuristics/timing-join.js';
import type { Item, OperatorView, Read } from '../../testkit/linkage/operator-view.js';

const MERCHANT = '127.2.0.1';
const A = '127.1.0.1';
const B = '127.1.0.2';

const item = (id: string, kind: Item['kind'], time: number, sources: string[]): Item => ({
  id: `${kind[0]}:${id}`,
  kind,
  time,
  amount: '10000',
  keys: [id],
  anchor: null,
  sources,
  counterparty: kind === 'payment' ? MERCHANT : null,
  inline: false,
});

const read = (time: number, source: string): Read => ({ time, source, path: '/state', next: null });

// The heuristic reads only the items, the reads and the merchants' addresses.
const view = (items: Item[], reads: Read[]): OperatorView =>
  ({
    requests: [],
    events: [],
    checkpoints: [],
    items,
    reads,
    merchants: new Set([MERCHANT]),
  }) as Partial<OperatorView> as OperatorView;

// Payments 30 s apart (beyond the 10 s window): A reads 900 ms before x and y, B 50 ms before x
// and z.
const payments = [
  item('x', 'payment', 30_000, [MERCHANT]),
  item('y', 'payment', 60_000, [MERCHANT]),
  item('z', 'payment', 90_000, [MERCHANT]),
];
const reads = [
  read(29_100, A),
  read(29_950, B),
  read(59_100, A),
  read(89_950, B),
  read(119_000, A),
];
// An exit from A's own address 1 s after A's last read: a known writer's lag (floor 0.5 · 1 s).
const exit = item('e', 'exit', 120_000, [A]);
const [x, y, z] = payments as [Item, Item, Item];

describe('timing join: no read nearer the write than a known writer’s shortest lag', () => {
  it('learns the shortest lag from writes that came from a payer’s own address, not a merchant’s', () => {
    expect(shortestWriteLag(view([...payments, exit], reads), reads)).toBe(1000);
    expect(shortestWriteLag(view(payments, reads), reads)).toBeNull();
  });

  it('with a known writer, the read 900 ms before joins x and y; the one 50 ms before joins nothing', () => {
    const score = timingJoin.prepare(view([...payments, exit], reads), { compression: 1 });
    expect(score(x, y)).toBeGreaterThan(0);
    expect(score(x, z)).toBe(0);
  });

  it('must-fail twin: without a known writer there is no floor, and B’s near reads join x and z', () => {
    const score = timingJoin.prepare(view(payments, reads), { compression: 1 });
    expect(score(x, z)).toBeGreaterThan(0);
    // x's evidence is mostly B's (50 ms against 900 ms): x–z outscores x–y.
    expect(score(x, z)).toBeGreaterThan(score(x, y));
  });
});
