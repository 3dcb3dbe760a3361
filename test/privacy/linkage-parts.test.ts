// The linkage harness's parts, each against a case worked out by hand, without the service: each
// actor's loopback source address as the operator's recording proxy sees it (the must-fail twin: a
// request outside any actor comes from 127.0.0.1), what the proxy records and forwards, the fields
// it reads in bodies, the heuristics' scores on a small view built by hand (a shared wallet address
// joins, a merchant's address joins nothing; an upload joins its payment through millisecond
// public times, not through checkpoint times), the anchor's readers, and the pairs' labels.

import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { encodeHandOverFrame } from '../../src/scheme/index.js';
import { bodyFields } from '../../testkit/linkage/body-fields.js';
import { addressJoin } from '../../testkit/linkage/heuristics/address-join.js';
import { anchorCandidates, anchorJoin } from '../../testkit/linkage/heuristics/anchor-join.js';
import { timingJoin } from '../../testkit/linkage/heuristics/timing-join.js';
import { uploadTiming } from '../../testkit/linkage/heuristics/upload-timing.js';
import { BURST_GAP_MS, LinkObserver } from '../../testkit/linkage/link-observer.js';
import type { Item, OperatorView } from '../../testkit/linkage/operator-view.js';
import { labelledPairs } from '../../testkit/linkage/pairs.js';
import { type RecordingProxy, startRecordingProxy } from '../../testkit/linkage/recording-proxy.js';
import { actorAddress, withSourceAddress } from '../../testkit/linkage/source-address.js';
import type { GroundTruth } from '../../testkit/linkage/truth.js';

describe('source addresses and the recording proxy', () => {
  let upstream: Server;
  let proxy: RecordingProxy;
  const received: string[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ reference: `0x${'ab'.repeat(32)}`, next: 7 }));
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    proxy = await startRecordingProxy(
      'pool',
      `http://127.0.0.1:${(upstream.address() as { port: number }).port}`,
    );
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => upstream.close(r));
  });

  it('records each actor at its own address, through fetch, many at once', async () => {
    proxy.records.length = 0;
    await Promise.all(
      [0, 1, 2, 3].map((i) =>
        withSourceAddress(actorAddress(i), async () => {
          for (let k = 0; k < 5; k++) await (await fetch(`${proxy.url}/state?i=${i}`)).text();
        }),
      ),
    );
    expect(proxy.records).toHaveLength(20);
    for (const r of proxy.records)
      expect(r.source).toBe(
        actorAddress(Number(new URL(r.path, 'http://x').searchParams.get('i'))),
      );
  });

  it('the link observer sees each upload of an actor — its address, start and size — on a kept-alive connection too; none outside an actor', async () => {
    // Straight to the upstream, which keeps connections alive (the proxy closes each): two
    // requests on one connection are two uploads.
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    const observer = new LinkObserver();
    const before = Date.now();
    try {
      await withSourceAddress(actorAddress(11), async () => {
        for (const size of [100_000, 40_000]) {
          await (
            await fetch(`${upstreamUrl}/proofs`, { method: 'POST', body: 'x'.repeat(size) })
          ).text();
          await new Promise((r) => setTimeout(r, 3 * BURST_GAP_MS));
        }
      });
      // A connection opened outside any actor (to the proxy, which closes its connections).
      await (
        await fetch(`${proxy.url}/proofs`, { method: 'POST', body: 'y'.repeat(90_000) })
      ).text();
    } finally {
      observer.stop();
    }
    const uploads = observer.uploads();
    expect(uploads.map((u) => u.source)).toEqual([actorAddress(11), actorAddress(11)]);
    expect(uploads[0]!.bytes).toBeGreaterThan(100_000);
    expect(uploads[0]!.bytes).toBeLessThan(101_000);
    expect(uploads[1]!.bytes).toBeGreaterThan(40_000);
    expect(uploads[1]!.bytes).toBeLessThan(41_000);
    expect(uploads[0]!.time).toBeGreaterThanOrEqual(before);
    expect(uploads[1]!.time).toBeGreaterThan(uploads[0]!.time);
  });

  it('must-fail twin: outside any actor the request comes from 127.0.0.1', async () => {
    proxy.records.length = 0;
    await (await fetch(`${proxy.url}/state`)).text();
    expect(proxy.records[0]!.source).toBe('127.0.0.1');
    expect(actorAddress(0)).not.toBe('127.0.0.1');
  });

  it('forwards the body unchanged and records method, path, status, size, digest and fields', async () => {
    proxy.records.length = 0;
    const body = JSON.stringify({ root: '0x01', nullifier: '0x02', proof: 'AAAA' });
    const reply = await withSourceAddress(actorAddress(9), () =>
      fetch(`${proxy.url}/proofs?x=1`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(reply.headers.get('connection')).toBe('close');
    expect(await reply.json()).toEqual({ reference: `0x${'ab'.repeat(32)}`, next: 7 });
    expect(received.at(-1)).toBe(body);
    const r = proxy.records[0]!;
    expect(r).toMatchObject({
      service: 'pool',
      source: actorAddress(9),
      method: 'POST',
      path: '/proofs?x=1',
      status: 200,
      bytes: body.length,
    });
    expect(r.digest).toBe(createHash('sha256').update(body).digest('hex'));
    expect(r.sent.roots).toEqual(['0x01']);
    expect(r.sent.nullifiers).toEqual(['0x02']);
    expect(r.answered.references).toEqual([`0x${'ab'.repeat(32)}`]);
    expect(r.answered.cursors).toEqual(['7']);
  });
});

describe('body fields', () => {
  it('finds what a /settle nests in its payload, and a transition pair, and nothing in non-JSON', () => {
    const settle = bodyFields(
      JSON.stringify({
        paymentPayload: {
          payload: {
            root: 'R',
            nullifier: 'N',
            proofRef: 'P',
            amount: '10',
            recipient: 'pstark1x',
          },
        },
        paymentRequirements: { payTo: 'pstark1x', amount: '10' },
      }),
    );
    expect(settle).toMatchObject({
      roots: ['R'],
      nullifiers: ['N'],
      references: ['P'],
      amounts: ['10'],
      recipients: ['pstark1x'],
    });
    expect(
      bodyFields(JSON.stringify({ nullifiers: ['A', 'B'], exit: '5', destination: 'eip155:1:0x' })),
    ).toMatchObject({
      nullifiers: ['A', 'B'],
      amounts: ['5'],
      destinations: ['eip155:1:0x'],
    });
    expect(bodyFields('not json').nullifiers).toEqual([]);
  });

  it("reads a hand-over frame's header as the operator would; a broken frame names nothing", () => {
    const frame = Buffer.from(
      encodeHandOverFrame({ root: 'R', nullifier: 'N', payTo: 'pstark1x', amount: '10' }, PROOF),
    );
    expect(bodyFields(frame)).toMatchObject({
      roots: ['R'],
      nullifiers: ['N'],
      recipients: ['pstark1x'],
      amounts: ['10'],
    });
    expect(bodyFields(frame.subarray(0, 12)).nullifiers).toEqual([]);
  });
});

const PROOF = Uint8Array.from([1, 2, 3]);

/** A payment item for the hand-made view. */
const payment = (
  id: string,
  time: number,
  sources: string[],
  anchor: string | null = null,
): Item => ({
  id: `p:${id}`,
  kind: 'payment',
  time,
  amount: '10000',
  keys: [id],
  anchor,
  sources,
  counterparty: '127.2.0.1',
  inline: false,
});

function view(items: Item[], extra: Partial<OperatorView> = {}): OperatorView {
  return {
    requests: [],
    events: [],
    chainDeposits: [],
    checkpoints: [],
    items,
    reads: [],
    merchants: new Set(['127.2.0.1']),
    linkUploads: [],
    ...extra,
  };
}

describe('heuristics on a view worked by hand', () => {
  it('address join: a shared wallet address scores, a shared merchant (relay) address does not', () => {
    const v = view([
      payment('a1', 0, ['127.1.0.1']),
      payment('a2', 1, ['127.1.0.1']),
      payment('b1', 2, ['127.1.0.2']),
      payment('r1', 3, ['127.2.0.1']),
      payment('r2', 4, ['127.2.0.1']),
    ]);
    const score = addressJoin.prepare(v, { compression: 1 });
    const [a1, a2, b1, r1, r2] = v.items as Item[];
    // One token of weight 1 in each, shared by two items: 1·1/2.
    expect(score(a1!, a2!)).toBe(0.5);
    expect(score(a1!, b1!)).toBe(0);
    expect(score(r1!, r2!)).toBe(0);
  });

  it('anchor join: the addresses whose last head read before the write fell in the anchor’s window are its candidates', () => {
    const v = view(
      [
        payment('x', 30_000, [], 'root1'),
        payment('y', 31_000, [], 'root1'),
        payment('z', 32_000, [], 'root2'),
      ],
      {
        checkpoints: [
          { seq: 1, root: 'root1', size: 1, time: 10_000 },
          { seq: 2, root: 'root2', size: 2, time: 20_000 },
        ],
        reads: [
          // A: its sync's head read in root1's window; its page reads after root2 name nothing newer.
          { time: 12_000, source: '127.1.0.1', path: '/state', next: null },
          { time: 20_500, source: '127.1.0.1', path: '/checkpoints?page=0', next: null },
          // B: read in root1's window, then its head again after root2: it holds root2.
          { time: 15_000, source: '127.1.0.2', path: '/state', next: null },
          { time: 21_000, source: '127.1.0.2', path: '/state', next: null },
          // C: a page read only in root1's window (no head read): not a candidate.
          { time: 16_000, source: '127.1.0.3', path: '/events?page=0', next: null },
          // D: a head read in root2's window 0.5 s before x — within a proof's time, so not x's
          // head read — and 2.5 s before z.
          { time: 29_500, source: '127.1.0.4', path: '/state', next: null },
          // A merchant's head read never counts.
          { time: 13_000, source: '127.2.0.1', path: '/state', next: null },
        ],
      },
    );
    const candidates = anchorCandidates(v);
    expect(candidates.get('p:x')).toEqual(['127.1.0.1']);
    expect(candidates.get('p:y')).toEqual(['127.1.0.1']);
    // D read at 29.5 s, in root2's window and at least 1 s before z: z's candidates are B and D.
    expect(candidates.get('p:z')).toEqual(['127.1.0.2', '127.1.0.4']);
    const score = anchorJoin.prepare(v, { compression: 1 });
    const [x, y, z] = v.items as Item[];
    expect(score(x!, y!)).toBeGreaterThan(0);
    expect(score(x!, z!)).toBe(0);
  });

  it('timing join: the address that read just before a write weighs most', () => {
    const v = view([payment('x', 10_000, []), payment('y', 20_000, []), payment('z', 30_000, [])], {
      reads: [
        { time: 9_900, source: '127.1.0.1', path: '/state', next: null },
        { time: 19_950, source: '127.1.0.1', path: '/state', next: null },
        { time: 29_900, source: '127.1.0.2', path: '/state', next: null },
      ],
    });
    const score = timingJoin.prepare(v, { compression: 1 });
    const [x, y, z] = v.items as Item[];
    expect(score(x!, y!)).toBeGreaterThan(0);
    expect(score(x!, z!)).toBe(0);
  });

  it('upload timing: millisecond public times join an upload to its payment; checkpoint times do not', () => {
    // Wallets 127.1.0.1 (a1, a2) and 127.1.0.2 (b1, b2) each upload a proof 300 ms before their
    // payment arrives; all four arrive between checkpoints 1 (t = 0) and 2 (t = 60 s).
    const arrivals = { a1: 10_000, b1: 20_000, a2: 30_000, b2: 40_000 };
    const owner = (id: string) => (id.startsWith('a') ? '127.1.0.1' : '127.1.0.2');
    const v = view(
      Object.entries(arrivals).map(([id, at]) => payment(id, at, [])),
      {
        events: Object.entries(arrivals).map(([id, at], i) => ({
          id: i + 1,
          kind: 'settlement',
          nullifier: id,
          created_at: at,
          checkpoint_seq: 2,
        })),
        checkpoints: [
          { seq: 1, root: 'r1', size: 1, time: 0 },
          { seq: 2, root: 'r2', size: 5, time: 60_000 },
        ],
        linkUploads: [
          ...Object.entries(arrivals).map(([id, at]) => ({
            source: owner(id),
            time: at - 300,
            bytes: 110_000,
          })),
          // A small request names nothing; a merchant's relay is no payer.
          { source: '127.1.0.2', time: 9_900, bytes: 1_200 },
          { source: '127.2.0.1', time: 9_950, bytes: 110_000 },
        ],
      },
    );
    const [a1, b1, a2, b2] = v.items as Item[];
    const arrival = uploadTiming.prepare(v, { compression: 1, publicTimes: 'arrival' });
    expect(arrival(a1!, a2!)).toBeGreaterThan(arrival(a1!, b1!));
    expect(arrival(b1!, b2!)).toBeGreaterThan(arrival(a2!, b2!));
    expect(arrival(a1!, b2!)).toBe(0);
    // Its twin: at checkpoint granularity every upload of the interval names its address alike.
    const checkpoint = uploadTiming.prepare(v, { compression: 1, publicTimes: 'checkpoint' });
    expect(checkpoint(a1!, a2!)).toBeCloseTo(checkpoint(a1!, b1!), 12);
    expect(checkpoint(a1!, b2!)).toBeGreaterThan(0);
  });
});

describe('labelled pairs', () => {
  it('labels by owner, keeps every same-wallet pair and types them', () => {
    const items = [
      payment('a1', 0, ['127.1.0.1']),
      payment('a2', 1, ['127.2.0.1']),
      payment('b1', 2, ['127.1.0.2']),
      { ...payment('da', 0, []), id: 'd:da', kind: 'deposit' as const, keys: ['da'] },
    ];
    const truth: GroundTruth = {
      actors: [
        { address: '127.1.0.1', role: 'wallet', id: 0 },
        { address: '127.1.0.2', role: 'wallet', id: 1 },
        { address: '127.2.0.1', role: 'merchant', id: 0 },
      ],
      deposits: new Map([['da', 0]]),
      nullifiers: new Map([
        ['a1', 0],
        ['a2', 0],
        ['b1', 1],
      ]),
    };
    const pairs = labelledPairs(view(items), truth);
    const pp = pairs.get('payment-payment')!;
    expect(pp).toHaveLength(3);
    expect(pp.filter((p) => p.same).map((p) => [p.a.id, p.b.id])).toEqual([['p:a1', 'p:a2']]);
    // a1 went direct from its wallet's own address, a2 by the merchant's relay.
    expect(pp.find((p) => p.a.id === 'p:a1' && p.b.id === 'p:a2')!.privateTransport).toBe(false);
    expect(pairs.get('deposit-payment')!.filter((p) => p.same)).toHaveLength(2);
    expect(pairs.get('deposit-exit')).toEqual([]);
  });
});
