// Exit destinations (src/scheme/caip10.ts): CAIP-10 grammar and bounds, EIP-55 checksums with the
// test vectors of EIP-55 itself (https://eips.ethereum.org/EIPS/eip-55, "Test Cases"), each paired
// with a must-fail twin (one letter's case flipped), and Solana's base58 public keys.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { checkDestination, isEip55, MAX_DESTINATION_CHARS } from '../../src/scheme/index.js';

// EIP-55 "Test Cases": all caps, all lower, normal.
const EIP55_VECTORS = [
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

function flipOneLetter(address: string): string {
  const hex = address.slice(2);
  const at = [...hex].findIndex((c) => /[a-fA-F]/.test(c));
  const c = hex[at]!;
  const flipped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
  return `0x${hex.slice(0, at)}${flipped}${hex.slice(at + 1)}`;
}

describe('EIP-55', () => {
  it('accepts every vector of EIP-55 — all caps, all lower, mixed — and refuses each with one letter flipped', () => {
    for (const address of EIP55_VECTORS) {
      expect(isEip55(address), address).toBe(true);
      expect(isEip55(flipOneLetter(address)), flipOneLetter(address)).toBe(false);
    }
  });

  it('takes only checksummed addresses as destinations (the all-lowercase form of a mixed-case checksum is refused)', () => {
    const good = EIP55_VECTORS[4]!;
    expect(checkDestination(`eip155:8453:${good}`)).toMatchObject({
      ok: true,
      namespace: 'eip155',
    });
    expect(checkDestination(`eip155:8453:${good.toLowerCase()}`).ok).toBe(false);
    // An account whose checksum is all lowercase has no other form: it is paid as it is.
    expect(checkDestination(`eip155:8453:${EIP55_VECTORS[2]!}`).ok).toBe(true);
    expect(checkDestination(`eip155:8453:${flipOneLetter(EIP55_VECTORS[2]!)}`).ok).toBe(false);
    expect(checkDestination(`eip155:8453:${flipOneLetter(good)}`).ok).toBe(false);
    expect(checkDestination(`eip155:base:${good}`).ok).toBe(false);
    expect(checkDestination(`eip155:8453:${good.slice(0, -1)}`).ok).toBe(false);
  });
});

describe('CAIP-10 destinations', () => {
  it('takes Solana base58 public keys of 32 bytes and refuses other lengths and alphabets', () => {
    const key = 'So11111111111111111111111111111111111111112';
    expect(checkDestination(`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${key}`).ok).toBe(true);
    expect(checkDestination(`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${key}0`).ok).toBe(false);
    expect(checkDestination('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:abc').ok).toBe(false);
  });

  it('refuses unsupported namespaces, bad grammar and anything past the bound', () => {
    expect(
      checkDestination('cosmos:cosmoshub-3:cosmos1t2uflqwqe0fsj0shcfkrvpukewcw40yjj6hdc0').ok,
    ).toBe(false);
    for (const bad of ['', 'eip155', 'eip155:1', 'EIP155:1:0x00', 'eip155:1:0x5aAe b6', 42, null])
      expect(checkDestination(bad).ok).toBe(false);
    expect(checkDestination(`eip155:1:${'a'.repeat(MAX_DESTINATION_CHARS)}`).ok).toBe(false);
  });

  it('never throws on any string (fast-check)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.anything()), (value) => {
        const verdict = checkDestination(value);
        expect(typeof verdict.ok).toBe('boolean');
        if (!verdict.ok) expect(typeof verdict.why).toBe('string');
      }),
    );
  });
});
