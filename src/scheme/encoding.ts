/**
 * @module Canonical encodings of this profile: the proof's base64, amounts, expiries. Each value
 * has exactly one accepted spelling, so two different strings never name the same payment.
 * Digests and shielded addresses are checked by the core (`parseDigest`, `decodeAddress`).
 */

import type { ProofReference } from '../core/facade.js';
import {
  EXPIRY_GRANULARITY_SECONDS,
  EXPIRY_SLACK_SECONDS,
  MAX_AMOUNT_EXCLUSIVE,
  MAX_PROOF_BASE64_CHARS,
  MAX_PROOF_BYTES,
} from './profile.js';

/** A decoded proof, or why not. */
export type ProofDecoding =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly reason: 'payload_too_large' | 'invalid_payload' };

/**
 * Decodes the proof: canonical standard base64 (alphabet `A–Z a–z 0–9 + /`, `=` padding to a
 * multiple of 4, zero padding bits, no whitespace) of 1 to {@link MAX_PROOF_BYTES} bytes. A
 * string too long to hold a proof of that size is refused before it is decoded.
 * @example
 * decodeProof('AAEC'); // { ok: true, bytes: Uint8Array [0, 1, 2] }
 */
export function decodeProof(text: string): ProofDecoding {
  if (text.length > MAX_PROOF_BASE64_CHARS) return { ok: false, reason: 'payload_too_large' };
  if (text.length === 0 || text.length % 4 !== 0) return { ok: false, reason: 'invalid_payload' };
  const bytes = decodeBase64Strict(text);
  if (bytes === null || bytes.length === 0) return { ok: false, reason: 'invalid_payload' };
  if (bytes.length > MAX_PROOF_BYTES) return { ok: false, reason: 'payload_too_large' };
  return { ok: true, bytes };
}

/** Canonical base64 of proof bytes (what a payer sends). */
export function encodeProof(bytes: Uint8Array): string {
  return encodeBase64(bytes);
}

// Base64 without Node's Buffer (this module also runs in browsers), by table. The strict decoder
// refuses anything but the one canonical spelling instead of skipping it; it looks characters up in
// pairs (12 bits per lookup), which keeps it within a few times Buffer's native speed.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ENCODE = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const PAD = 61; // '='
/** Sextet of a character code, -1 outside the alphabet. */
const SEXTET = new Int32Array(256).fill(-1);
for (let i = 0; i < 64; i++) SEXTET[ENCODE[i]!] = i;
/** 12 bits of a pair of character codes `(c0 << 8) | c1`, negative when either is outside the alphabet. */
const PAIR = new Int32Array(1 << 16).fill(-1);
for (let i = 0; i < 64; i++)
  for (let j = 0; j < 64; j++) PAIR[(ENCODE[i]! << 8) | ENCODE[j]!] = (i << 6) | j;
const ascii = new TextDecoder();
const utf8 = new TextEncoder();

/** Canonical standard base64 of any bytes (the proof's encoding; also the x402 headers'). */
export function encodeBase64(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = ENCODE[n >>> 18]!;
    out[o++] = ENCODE[(n >>> 12) & 63]!;
    out[o++] = ENCODE[(n >>> 6) & 63]!;
    out[o++] = ENCODE[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    out[o++] = ENCODE[n >>> 18]!;
    out[o++] = ENCODE[(n >>> 12) & 63]!;
    out[o++] = rest === 2 ? ENCODE[(n >>> 6) & 63]! : PAD;
    out[o++] = PAD;
  }
  return ascii.decode(out);
}

/** Node's `Buffer`, as far as base64 goes (absent in browsers). */
interface NativeBase64 {
  from(text: string, encoding: 'base64'): Uint8Array & { toString(encoding: 'base64'): string };
}
// On a server the proof is decoded on every request: Node's native codec takes about a fifth of
// the table's time on a 60 KB proof (≈40 µs against ≈200 µs of the event loop's time).
const native = (globalThis as { Buffer?: NativeBase64 }).Buffer;

/** Canonical standard base64 (length a multiple of 4, `=` only at the end, zero padding bits) or `null`. */
function decodeBase64Strict(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  if (native !== undefined) {
    // Node's decoder skips what is not base64; only the canonical spelling re-encodes to the text.
    const bytes = native.from(text, 'base64');
    return bytes.toString('base64') === text
      ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)
      : null;
  }
  // One native pass to bytes; a character outside ASCII becomes a multi-byte sequence (refused).
  const chars = utf8.encode(text);
  if (chars.length !== text.length) return null;
  const padding = chars[chars.length - 1] === PAD ? (chars[chars.length - 2] === PAD ? 2 : 1) : 0;
  const full = chars.length - (padding > 0 ? 4 : 0);
  const out = new Uint8Array((chars.length / 4) * 3 - padding);
  let o = 0;
  let bad = 0;
  for (let i = 0; i < full; i += 4) {
    const high = PAIR[(chars[i]! << 8) | chars[i + 1]!]!;
    const low = PAIR[(chars[i + 2]! << 8) | chars[i + 3]!]!;
    bad |= high | low;
    const n = (high << 12) | low;
    out[o] = n >>> 16;
    out[o + 1] = (n >>> 8) & 255;
    out[o + 2] = n & 255;
    o += 3;
  }
  if (padding > 0) {
    const a = SEXTET[chars[full]!]!;
    const b = SEXTET[chars[full + 1]!]!;
    const c = padding === 2 ? 0 : SEXTET[chars[full + 2]!]!;
    bad |= a | b | c;
    const n = (a << 18) | (b << 12) | (c << 6);
    // Padding bits must be zero: otherwise two spellings would decode to the same bytes.
    if ((padding === 2 ? n & 0xffff : n & 0xff) !== 0) return null;
    out[o++] = n >>> 16;
    if (padding === 1) out[o] = (n >>> 8) & 255;
  }
  return bad < 0 ? null : out;
}

const PROOF_REFERENCE_FORMAT = /^0x[0-9a-f]{64}$/;

/** Whether `text` has the form of a proof reference (`0x` + 64 lowercase hex digits). */
export function isProofReference(text: unknown): text is ProofReference {
  return typeof text === 'string' && PROOF_REFERENCE_FORMAT.test(text);
}

const AMOUNT_FORMAT = /^[1-9][0-9]{0,18}$/;

/**
 * Parses an amount on the wire: decimal atomic units, no sign, no leading zero,
 * `0 < amount < 2^62`.
 * @returns the amount, or `null` when it is not one
 */
export function parseAmount(text: unknown): bigint | null {
  if (typeof text !== 'string' || !AMOUNT_FORMAT.test(text)) return null;
  const value = BigInt(text);
  return value < MAX_AMOUNT_EXCLUSIVE ? value : null;
}

/** Whether `text` is an amount on the wire (see {@link parseAmount}). */
export function isAmount(text: string): boolean {
  return parseAmount(text) !== null;
}

/** Whether an expiry has the profile's granularity (rounded up to a multiple of 60 s). */
export function isExpiryGranular(expiry: number): boolean {
  return Number.isSafeInteger(expiry) && expiry % EXPIRY_GRANULARITY_SECONDS === 0;
}

/** Whether a payment's expiry has come by the clock (unix seconds): `expiry ≤ now`. */
export function hasExpired(expiry: number, nowSeconds: number): boolean {
  return expiry <= nowSeconds;
}

/** Where an expiry stands against the clock: `now < expiry ≤ now + maxTimeoutSeconds + 60`. */
export function expiryStatus(
  expiry: number,
  nowSeconds: number,
  maxTimeoutSeconds: number,
): 'ok' | 'payment_expired' | 'expiry_too_far' {
  if (hasExpired(expiry, nowSeconds)) return 'payment_expired';
  if (expiry > nowSeconds + maxTimeoutSeconds + EXPIRY_SLACK_SECONDS) return 'expiry_too_far';
  return 'ok';
}

/** The expiry a payer sets: `now + maxTimeoutSeconds` rounded up to the granularity. */
export function expiryFor(nowSeconds: number, maxTimeoutSeconds: number): number {
  const target = nowSeconds + maxTimeoutSeconds;
  return Math.ceil(target / EXPIRY_GRANULARITY_SECONDS) * EXPIRY_GRANULARITY_SECONDS;
}
