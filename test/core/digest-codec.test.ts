// The digest's byte codec (src/core/digest.ts), which the facade and the wallet's leaf stores run
// on millions of digests per sync: it accepts exactly what DIGEST_FORMAT accepts, decodes to the
// bytes the hex spells, and encodes back to the same text.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { DIGEST_FORMAT, digestOfBytes, writeDigestBytes } from '../../src/core/digest.js';

const hex = (bytes: Uint8Array) =>
  `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;

describe('digest codec', () => {
  it('decodes and encodes any 32 bytes, at any offset', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.nat(40), (bytes, offset) => {
        const text = hex(bytes);
        const out = new Uint8Array(offset + 32);
        expect(writeDigestBytes(text, out, offset)).toBe(true);
        expect(out.subarray(offset)).toEqual(bytes);
        expect(digestOfBytes(out, offset)).toBe(text);
      }),
    );
  });

  it('must-fail twins: refuses exactly what DIGEST_FORMAT refuses', () => {
    const good = `0x${'0123456789abcdef'.repeat(4)}`;
    const twins = [
      good.toUpperCase().replace('0X', '0x'),
      `0X${good.slice(2)}`,
      good.slice(2),
      good.slice(0, 65),
      `${good}0`,
      `${good.slice(0, 10)}g${good.slice(11)}`,
      `${good.slice(0, 10)}\u0661${good.slice(11)}`,
      `${good.slice(0, 65)}\u00e9`,
      '',
    ];
    const out = new Uint8Array(32);
    expect(writeDigestBytes(good, out, 0)).toBe(true);
    for (const twin of twins) {
      expect(DIGEST_FORMAT.test(twin)).toBe(false);
      expect(writeDigestBytes(twin, out, 0), JSON.stringify(twin)).toBe(false);
    }
    fc.assert(
      fc.property(fc.string({ minLength: 60, maxLength: 70, unit: 'binary' }), (text) => {
        expect(writeDigestBytes(text, out, 0)).toBe(DIGEST_FORMAT.test(text));
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^0x[0-9a-fA-F]{64}$/), (text) => {
        expect(writeDigestBytes(text, out, 0)).toBe(DIGEST_FORMAT.test(text));
      }),
    );
  });

  it('reads missing bytes past the end as zero', () => {
    expect(digestOfBytes(new Uint8Array([0xab]))).toBe(`0xab${'0'.repeat(62)}`);
  });
});
