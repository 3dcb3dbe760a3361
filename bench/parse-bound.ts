// What reading one hand-over body costs the event loop, by spelling (issue 27, item 2: the body as
// raw bytes, and the body parsed off the event loop): the JSON body parsed by the listeners' parser
// and its base64 proof decoded (decodeProof), against the frame decoded (decodeHandOverFrame) —
// the same fields and a proof of the same size — and, for scale, a compact /settle body parsed.
// What parsing off the event loop could save at most is this cost less a message to a thread.

import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import { parseJsonWithoutPoisoning } from '../src/listener/json-body.js';
import {
  decodeHandOverFrame,
  decodeProof,
  encodeHandOverFrame,
  encodeProof,
} from '../src/scheme/index.js';

/** µs per body (median of `rounds` of `count` bodies). */
export interface ParseBound {
  readonly proofBytes: number;
  readonly jsonHandOverUs: number;
  readonly frameHandOverUs: number;
  readonly settleBodyUs: number;
  readonly settleBodyBytes: number;
}

const FIELDS = {
  scheme: 'priv-stark/v1',
  network: 'shielded:devnet',
  asset: 'dUSD',
  payTo: `pstark1${'q'.repeat(58)}`,
  amount: '10000',
  resourceId: 'GET /weather',
  expiry: 1_900_000_020,
  root: `0x${'1a'.repeat(32)}`,
  nullifier: `0x${'2b'.repeat(32)}`,
  commitment: `0x${'3c'.repeat(32)}`,
};

/** Each spelling of a hand-over with a `proofBytes`-byte proof, read `count` times per round. */
export function parseBound(proofBytes: number, count = 2000, rounds = 5): ParseBound {
  const proof = randomBytes(proofBytes);
  const json = JSON.stringify({ ...FIELDS, proof: encodeProof(proof) });
  const frame = encodeHandOverFrame(FIELDS, proof);
  const settle = JSON.stringify({
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      accepted: { ...FIELDS, maxTimeoutSeconds: 300, extra: { resourceId: FIELDS.resourceId } },
      payload: { ...FIELDS, proofRef: FIELDS.root },
    },
    paymentRequirements: { ...FIELDS, maxTimeoutSeconds: 300, extra: {} },
  });
  const time = (read: () => unknown) => {
    const per: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const start = performance.now();
      for (let i = 0; i < count; i++) read();
      per.push(((performance.now() - start) * 1000) / count);
    }
    per.sort((a, b) => a - b);
    return Number(per[per.length >> 1]!.toFixed(1));
  };
  // Fastify hands the JSON parser a string decoded from the socket's bytes: decode it here too.
  const jsonBytes = Buffer.from(json);
  const frameBytes = Buffer.from(frame);
  return {
    proofBytes,
    jsonHandOverUs: time(() => {
      const body = parseJsonWithoutPoisoning(jsonBytes.toString('utf8')) as { proof: string };
      return decodeProof(body.proof);
    }),
    frameHandOverUs: time(() => decodeHandOverFrame(frameBytes)),
    settleBodyUs: time(() => parseJsonWithoutPoisoning(Buffer.from(settle).toString('utf8'))),
    settleBodyBytes: Buffer.byteLength(settle),
  };
}
