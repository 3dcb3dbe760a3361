// The scheme's HTTP client sends exactly the bytes the stock x402 client would: the same
// PAYMENT-SIGNATURE header for any payload (fast-check, any Unicode in its strings), which the stock
// decoder reads back; other x402 versions are left to the stock encoder.

import { x402Client, x402HTTPClient } from '@x402/core/client';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { PrivStarkHttpClient } from '../../src/client/index.js';
import { encodeProof } from '../../src/scheme/index.js';

const stock = new x402HTTPClient(new x402Client());
const ours = new PrivStarkHttpClient(new x402Client());

const payloadOf = (text: string, proof: Uint8Array, version: number) =>
  ({
    x402Version: version,
    resource: {
      url: `http://127.0.0.1/${encodeURIComponent(text)}`,
      description: text,
      mimeType: 'application/json',
    },
    accepted: {
      scheme: 'priv-stark/v1',
      network: 'shielded:devnet',
      asset: 'dUSD',
      amount: '10000',
      payTo: text,
      maxTimeoutSeconds: 300,
      extra: { resourceId: text },
    },
    payload: { proof: encodeProof(proof), note: text },
  }) as unknown as PaymentPayload;

describe('PAYMENT-SIGNATURE encoding', () => {
  it('is byte-identical to the stock client and decodes with the stock decoder (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.uint8Array({ minLength: 1, maxLength: 3000 }),
        (text, proof) => {
          const payload = payloadOf(text, proof, 2);
          const header = ours.encodePaymentSignatureHeader(payload);
          expect(header).toEqual(stock.encodePaymentSignatureHeader(payload));
          expect(decodePaymentSignatureHeader(header['PAYMENT-SIGNATURE']!)).toEqual(payload);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is the same for a proof-sized payload, and x402 v1 goes to the stock encoder', () => {
    const big = payloadOf(
      'GET /weather',
      new Uint8Array(60_000).map((_, i) => (i * 7919) % 256),
      2,
    );
    expect(ours.encodePaymentSignatureHeader(big)).toEqual(stock.encodePaymentSignatureHeader(big));
    const v1 = payloadOf('x', new Uint8Array([1, 2, 3]), 1);
    expect(ours.encodePaymentSignatureHeader(v1)).toEqual({
      'X-PAYMENT': stock.encodePaymentSignatureHeader(v1)['X-PAYMENT'],
    });
  });
});
