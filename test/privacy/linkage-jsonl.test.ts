// The linkage test's published files (testkit/linkage/jsonl.ts, jsonl-read.ts; schema in
// docs/privacy.md, "The linkage test"): a view assembled from pool rows and recorded requests,
// written as JSON Lines and read back, gives the same items, reads and truth — and so the same
// AUCs — as the run it came from; a request line dropped (the merchant's /settle) loses the payment
// it carried, and a file without its run line is refused.

import { describe, expect, it } from 'vitest';

import { noFields } from '../../testkit/linkage/body-fields.js';
import { DEFAULT_CONFIG } from '../../testkit/linkage/config.js';
import { truthLines, viewLines } from '../../testkit/linkage/jsonl.js';
import { JsonlError, readPublishedRun } from '../../testkit/linkage/jsonl-read.js';
import { measureRun } from '../../testkit/linkage/measure.js';
import { assembleOperatorView } from '../../testkit/linkage/operator-view.js';
import type { RecordedRequest } from '../../testkit/linkage/recording-proxy.js';
import type { GroundTruth } from '../../testkit/linkage/truth.js';

const hex = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

function request(
  time: number,
  source: string,
  method: string,
  path: string,
  sent: Partial<ReturnType<typeof noFields>> = {},
): RecordedRequest {
  return {
    service: path === '/settle' ? 'facilitator' : 'pool',
    time,
    source,
    method,
    path,
    status: 200,
    bytes: method === 'POST' ? 100 : 0,
    digest: method === 'POST' ? 'ab'.repeat(32) : 'e3'.repeat(32),
    sent: { ...noFields(), ...sent },
    answered: noFields(),
  };
}

/** Two wallets (0: 127.1.0.1, 1: 127.1.0.2), each a deposit, a payment at merchant 127.2.0.1, an exit. */
function run() {
  const events: Record<string, unknown>[] = [];
  const requests: RecordedRequest[] = [];
  const truth: GroundTruth = {
    actors: [
      { address: '127.1.0.1', role: 'wallet', id: 0 },
      { address: '127.1.0.2', role: 'wallet', id: 1 },
      { address: '127.2.0.1', role: 'merchant', id: 0 },
    ],
    deposits: new Map(),
    nullifiers: new Map(),
  };
  const checkpoints = [
    { seq: 1, root: hex(900), size: 2, time: 1_000 },
    { seq: 2, root: hex(901), size: 4, time: 60_000 },
  ];
  for (const w of [0, 1]) {
    const source = `127.1.0.${w + 1}`;
    const [commitment, paid, exited] = [hex(10 + w), hex(20 + w), hex(30 + w)];
    (truth.deposits as Map<string, number>).set(commitment, w);
    (truth.nullifiers as Map<string, number>).set(paid, w);
    (truth.nullifiers as Map<string, number>).set(exited, w);
    events.push(
      { id: 1 + 3 * w, kind: 'deposit', created_at: 500 + w, amount: '1000000', commitment },
      {
        id: 2 + 3 * w,
        kind: 'settlement',
        created_at: 30_000 + w,
        amount: '10000',
        nullifier: paid,
      },
      {
        id: 3 + 3 * w,
        kind: 'withdrawal',
        created_at: 70_000 + w,
        amount: '990000',
        nullifier: exited,
        recipient: `eip155:8453:0x${'a'.repeat(40)}`,
      },
    );
    requests.push(
      request(2_000 + w, source, 'GET', '/state'),
      request(2_100 + w, source, 'GET', '/events?page=0'),
      request(29_000 + w, source, 'POST', '/proofs', { nullifiers: [paid], roots: [hex(900)] }),
      request(29_500 + w, '127.2.0.1', 'POST', '/settle', {
        nullifiers: [paid],
        roots: [hex(900)],
        references: [hex(40 + w)],
      }),
      request(61_000 + w, source, 'GET', '/state'),
      request(69_000 + w, source, 'POST', '/transitions', {
        nullifiers: [exited],
        roots: [hex(901)],
      }),
    );
  }
  const view = assembleOperatorView({ events, checkpoints, chainDeposits: [] }, requests);
  return { config: { ...DEFAULT_CONFIG, compression: 1 }, view, truth };
}

describe('the published JSON Lines', () => {
  it('read back give the items, reads, truth and AUCs of the run they were written from', () => {
    const original = run();
    const back = readPublishedRun(viewLines(original).join('\n'), truthLines(original).join('\n'));
    expect(back.config).toEqual(original.config);
    expect(back.view.items).toEqual(original.view.items);
    expect(back.view.items.map((i) => i.kind).sort()).toEqual(
      ['deposit', 'deposit', 'exit', 'exit', 'payment', 'payment'].sort(),
    );
    expect(back.view.reads).toEqual(original.view.reads);
    expect(back.view.merchants).toEqual(original.view.merchants);
    expect(back.truth.deposits).toEqual(original.truth.deposits);
    // The truth file names each item's first nullifier: the ones the items carry.
    for (const item of original.view.items)
      if (item.kind !== 'deposit')
        expect(back.truth.nullifiers.get(item.keys[0]!)).toBe(
          original.truth.nullifiers.get(item.keys[0]!),
        );
    const lines = (r: typeof original) =>
      measureRun(r, { replicates: 20 }).lines.map((l) => [
        l.heuristic,
        l.pairType,
        l.scope,
        l.estimate.auc,
      ]);
    expect(lines(back)).toEqual(lines(original));
  });

  it('lose a payment with its /settle line, and are refused without their run line', () => {
    const original = run();
    const view = viewLines(original).filter((l) => !l.includes('"path":"/settle"'));
    const back = readPublishedRun(view.join('\n'), truthLines(original).join('\n'));
    expect(back.view.items.filter((i) => i.kind === 'payment')).toHaveLength(0);
    expect(() =>
      readPublishedRun(view.slice(1).join('\n'), truthLines(original).join('\n')),
    ).toThrow(JsonlError);
  });
});
