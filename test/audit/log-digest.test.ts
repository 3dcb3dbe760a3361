// The log digest and its canonical event encoding (src/audit/, docs/audit.md) against vectors
// computed apart, from the spec alone, with Python's struct and hashlib
// (test/audit/log-digest-vectors.py → log-digest-vectors.json): one event of each kind, every
// integer width and a UTF-8 memo, and the chain over them with and without proofs. Each must-fail
// twin changes one thing — an order, an amount, a proof — and the digest moves; off-shape fields
// are refused, never encoded loosely.

import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import {
  digestHex,
  EventEncodingError,
  encodeEvent,
  logDigest,
  nextLogDigest,
  proofHashOf,
} from '../../src/audit/index.js';
import type { PoolEvent } from '../../src/ledger/store.js';

const vectors = JSON.parse(
  readFileSync(new URL('./log-digest-vectors.json', import.meta.url), 'utf8'),
) as { events: PoolEvent[]; links: { encoded: string; digest: string }[] };
const proofs = [
  null,
  'proof of the settlement',
  'proof of the transition',
  'proof of the withdrawal',
  null,
].map((p) => (p === null ? null : new TextEncoder().encode(p)));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const chain = (events: readonly PoolEvent[], proof = proofs) =>
  digestHex(logDigest(events.map((event, i) => ({ event, proofHash: proofHashOf(proof[i]!) }))));

describe('event encoding, version 1', () => {
  it('encodes each kind as the vectors say', () => {
    vectors.events.forEach((event, i) => {
      expect(hex(encodeEvent(event))).toBe(vectors.links[i]!.encoded);
    });
  });

  it('refuses a field off its shape', () => {
    const deposit = vectors.events[0] as Extract<PoolEvent, { kind: 'deposit' }>;
    const bad: Partial<Record<string, unknown>>[] = [
      { amount: '01' },
      { amount: '-1' },
      { amount: (1n << 128n).toString() },
      { amount: '1e6' },
      { commitment: `0x${'C1'.padStart(64, '0')}` },
      { commitment: `0x${'c1'.padStart(62, '0')}` },
      { id: 1.5 },
      { time: -1 },
      { index: Number.MAX_SAFE_INTEGER + 1 },
      { kind: 'mint' },
    ];
    for (const change of bad)
      expect(() => encodeEvent({ ...deposit, ...change } as PoolEvent)).toThrow(EventEncodingError);
  });
});

describe('log digest', () => {
  it('chains the events as the vectors say, link by link', () => {
    let digest: Uint8Array = new Uint8Array(32);
    vectors.events.forEach((event, i) => {
      digest = nextLogDigest(digest, event, proofHashOf(proofs[i]!));
      expect(digestHex(digest)).toBe(vectors.links[i]!.digest);
    });
    expect(chain(vectors.events)).toBe(vectors.links.at(-1)!.digest);
  });

  it('must-fail twins: a reordered pair, an amount off by one or another proof moves the digest', () => {
    const last = vectors.links.at(-1)!.digest;
    const [a, b, c, ...rest] = vectors.events as [PoolEvent, PoolEvent, PoolEvent, ...PoolEvent[]];
    expect(
      chain([a, c, b, ...rest], [proofs[0]!, proofs[2]!, proofs[1]!, ...proofs.slice(3)]),
    ).not.toBe(last);
    const settlement = b as Extract<PoolEvent, { kind: 'settlement' }>;
    expect(chain([a, { ...settlement, amount: '10001' }, c, ...rest])).not.toBe(last);
    const forged = [...proofs];
    forged[2] = new TextEncoder().encode('another proof');
    expect(chain(vectors.events, forged)).not.toBe(last);
    // A proof where there was none (a deposit) moves it too.
    forged[2] = proofs[2]!;
    forged[0] = new TextEncoder().encode('');
    expect(chain(vectors.events, forged)).not.toBe(last);
  });
});
