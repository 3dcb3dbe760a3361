/**
 * @module Exit destinations: CAIP-10 account ids (`namespace:reference:address`,
 * https://github.com/ChainAgnostic/CAIPs/blob/main/CAIPs/caip-10.md), checked before anything is
 * proven or paid. Length and grammar are bounded as CAIP-2/CAIP-10 say; the address must also be
 * valid for its chain, with its checksum where the chain has one:
 *
 * - `eip155` (EVM chains): `0x` + 40 hex digits whose letters' case is their EIP-55 checksum (the
 *   all-lowercase form of an address whose checksum is mixed case is refused: a typo would go
 *   unnoticed; an address whose checksum is all lowercase is taken so);
 * - `solana`: base58 of a 32-byte public key (Solana addresses carry no checksum).
 *
 * Other namespaces are refused: a payout process can only pay chains whose addresses it checks.
 */

import { keccak_256 } from '@noble/hashes/sha3';

/**
 * The longest destination taken: 128 characters (CAIP-10 allows 170; the payment context encoding
 * takes 128, and every address of the namespaces below fits in under 90).
 */
export const MAX_DESTINATION_CHARS = 128;

const CAIP10 = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$/;
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** The verdict on a destination. */
export type DestinationCheck =
  | { readonly ok: true; readonly namespace: string; readonly reference: string }
  | { readonly ok: false; readonly why: string };

/** Checks a CAIP-10 account id as an exit destination. */
export function checkDestination(value: unknown): DestinationCheck {
  if (typeof value !== 'string' || value.length > MAX_DESTINATION_CHARS)
    return {
      ok: false,
      why: `a CAIP-10 account id of at most ${MAX_DESTINATION_CHARS} characters`,
    };
  const match = CAIP10.exec(value);
  if (!match) return { ok: false, why: 'not a CAIP-10 account id (namespace:reference:address)' };
  const [, namespace = '', reference = '', address = ''] = match;
  if (namespace === 'eip155') {
    if (!/^[0-9]{1,32}$/.test(reference))
      return { ok: false, why: 'eip155 needs a decimal chain id' };
    if (!isEip55(address)) return { ok: false, why: 'not an EIP-55 checksummed address' };
    return { ok: true, namespace, reference };
  }
  if (namespace === 'solana') {
    if (base58Length(address) !== 32) return { ok: false, why: 'not a base58 Solana address' };
    return { ok: true, namespace, reference };
  }
  return { ok: false, why: `namespace ${namespace} is not supported (eip155, solana)` };
}

/** Whether `address` is `0x` + 40 hex digits whose letters' case follows EIP-55. */
export function isEip55(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const hex = address.slice(2);
  const hash = keccak_256(new TextEncoder().encode(hex.toLowerCase()));
  for (let i = 0; i < 40; i++) {
    const char = hex[i] ?? '';
    if (!/[a-fA-F]/.test(char)) continue;
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    if (nibble >= 8 !== (char === char.toUpperCase())) return false;
  }
  // Every letter's case is the checksum's — all lowercase too, where the checksum says so (EIP-55's
  // own "all lower" vectors): refusing those would leave the account no form to be paid at. The
  // lowercase form of any other address fails above.
  return true;
}

/** Bytes of a base58 string, or -1 when it is not base58. */
function base58Length(text: string): number {
  let value = 0n;
  for (const char of text) {
    const digit = BASE58.indexOf(char);
    if (digit < 0) return -1;
    value = value * 58n + BigInt(digit);
  }
  let bytes = 0;
  while (value > 0n) {
    value >>= 8n;
    bytes++;
  }
  for (const char of text) {
    if (char !== '1') break;
    bytes++;
  }
  return bytes;
}
