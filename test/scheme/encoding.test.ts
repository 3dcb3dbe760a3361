// Canonical encodings of the profile: exactly one accepted spelling of each proof, amount and
// expiry; size limits of the proof at the byte.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { Ledger, type PoolStore } from '../../src/ledger/index.js';
import { loadCore } from '../../src/core/index.js';
import {
  decodeProof,
  DEVNET_NETWORK,
  encodeProof,
  EXPIRY_GRANULARITY_SECONDS,
  expiryFor,
  expiryStatus,
  isAmount,
  isExpiryGranular,
  MAX_PROOF_BASE64_CHARS,
  MAX_PROOF_BYTES,
  SCHEME,
} from '../../src/scheme/index.js';

describe('proof base64', () => {
  it('round-trips any bytes up to the limit (fast-check)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 600 }), (bytes) => {
        const decoded = decodeProof(encodeProof(bytes));
        expect(decoded.ok).toBe(true);
        if (decoded.ok) expect(Buffer.from(decoded.bytes).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it('refuses every non-canonical spelling as invalid_payload', () => {
    const canonical = encodeProof(Uint8Array.from([1, 2, 3, 4])); // 'AQIDBA=='
    expect(canonical).toBe('AQIDBA==');
    for (const text of [
      '',
      'AQIDBA', // padding missing
      'AQIDBA=', // wrong padding
      'AQIDBA===',
      'AQIDBB==', // non-zero padding bits
      'AQID BA==', // whitespace
      'AQID\nBA==',
      'AQ-DBA==', // base64url alphabet
      'AQ_DBA==',
      '====',
      'AQIDBA==AAAA', // padding inside
      'AQI*BA==',
    ]) {
      expect(decodeProof(text), JSON.stringify(text)).toEqual({
        ok: false,
        reason: 'invalid_payload',
      });
    }
  });

  it('refuses anything that is not canonical base64 (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), (text) => {
        const decoded = decodeProof(text);
        if (decoded.ok) expect(encodeProof(decoded.bytes)).toBe(text);
      }),
    );
  });

  it('accepts exactly 128 KiB and refuses one byte more with payload_too_large', () => {
    expect(MAX_PROOF_BYTES).toBe(128 * 1024);
    const max = decodeProof(encodeProof(new Uint8Array(MAX_PROOF_BYTES).fill(7)));
    expect(max.ok && max.bytes.length).toBe(MAX_PROOF_BYTES);
    expect(decodeProof(encodeProof(new Uint8Array(MAX_PROOF_BYTES + 1)))).toEqual({
      ok: false,
      reason: 'payload_too_large',
    });
    expect(decodeProof('A'.repeat(MAX_PROOF_BASE64_CHARS + 4))).toEqual({
      ok: false,
      reason: 'payload_too_large',
    });
  });

  it('is what the ledger uses: the scheme, the network and its asset', async () => {
    const ledger = new Ledger({ core: await loadCore(), store: {} as PoolStore });
    expect({
      scheme: SCHEME,
      network: DEVNET_NETWORK.network,
      asset: DEVNET_NETWORK.asset,
      decimals: DEVNET_NETWORK.decimals,
    }).toEqual({
      scheme: ledger.scheme,
      network: ledger.network,
      asset: ledger.asset,
      decimals: 6,
    });
  });
});

describe('amounts', () => {
  it('accept decimal atomic units with 0 < amount < 2^62 and nothing else', () => {
    for (const ok of ['1', '10000', '4611686018427387903']) expect(isAmount(ok), ok).toBe(true);
    for (const bad of [
      '0',
      '00',
      '01',
      '-1',
      '+1',
      '1.0',
      '1e3',
      ' 1',
      '1 ',
      '0x10',
      '4611686018427387904',
      '18446744073709551616',
      '',
      '１',
    ]) {
      expect(isAmount(bad), bad).toBe(false);
    }
  });
});

describe('expiry', () => {
  it('is a multiple of 60 seconds', () => {
    expect(EXPIRY_GRANULARITY_SECONDS).toBe(60);
    expect(isExpiryGranular(1_795_000_020)).toBe(true);
    expect(isExpiryGranular(1_795_000_021)).toBe(false);
    expect(isExpiryGranular(1.5)).toBe(false);
  });

  it('lies in now < expiry ≤ now + maxTimeoutSeconds + 60', () => {
    const now = 1_795_000_000;
    expect(expiryStatus(now, now, 300)).toBe('payment_expired');
    expect(expiryStatus(now - 60, now, 300)).toBe('payment_expired');
    expect(expiryStatus(now + 1, now, 300)).toBe('ok');
    expect(expiryStatus(now + 360, now, 300)).toBe('ok');
    expect(expiryStatus(now + 361, now, 300)).toBe('expiry_too_far');
  });

  it('is what a payer computes: now + maxTimeoutSeconds rounded up, always acceptable (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_700_000_000, max: 2_100_000_000 }),
        fc.integer({ min: 1, max: 86_400 }),
        (now, timeout) => {
          const expiry = expiryFor(now, timeout);
          expect(isExpiryGranular(expiry)).toBe(true);
          expect(expiryStatus(expiry, now, timeout)).toBe('ok');
        },
      ),
    );
  });
});
