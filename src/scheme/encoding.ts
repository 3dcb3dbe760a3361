/**
 * @module Canonical encodings of this profile: the proof's base64, amounts, expiries. Each value
 * has exactly one accepted spelling, so two different strings never name the same payment.
 * Digests and shielded addresses are checked by the core (`parseDigest`, `decodeAddress`).
 */

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
  const bytes = Buffer.from(text, 'base64');
  // Node's decoder skips characters outside the alphabet; re-encoding shows any such leniency.
  if (bytes.length === 0 || bytes.toString('base64') !== text) return { ok: false, reason: 'invalid_payload' };
  if (bytes.length > MAX_PROOF_BYTES) return { ok: false, reason: 'payload_too_large' };
  return { ok: true, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) };
}

/** Canonical base64 of proof bytes (what a payer sends). */
export function encodeProof(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

const AMOUNT_FORMAT = /^[1-9][0-9]{0,18}$/;

/**
 * Whether `text` is an amount on the wire: decimal atomic units, no sign, no leading zero,
 * `0 < amount < 2^62`.
 */
export function isAmount(text: string): boolean {
  return AMOUNT_FORMAT.test(text) && BigInt(text) < MAX_AMOUNT_EXCLUSIVE;
}

/** Whether an expiry has the profile's granularity (rounded up to a multiple of 60 s). */
export function isExpiryGranular(expiry: number): boolean {
  return Number.isSafeInteger(expiry) && expiry % EXPIRY_GRANULARITY_SECONDS === 0;
}

/** Where an expiry stands against the clock: `now < expiry ≤ now + maxTimeoutSeconds + 60`. */
export function expiryStatus(expiry: number, nowSeconds: number, maxTimeoutSeconds: number): 'ok' | 'payment_expired' | 'expiry_too_far' {
  if (expiry <= nowSeconds) return 'payment_expired';
  if (expiry > nowSeconds + maxTimeoutSeconds + EXPIRY_SLACK_SECONDS) return 'expiry_too_far';
  return 'ok';
}

/** The expiry a payer sets: `now + maxTimeoutSeconds` rounded up to the granularity. */
export function expiryFor(nowSeconds: number, maxTimeoutSeconds: number): number {
  const target = nowSeconds + maxTimeoutSeconds;
  return Math.ceil(target / EXPIRY_GRANULARITY_SECONDS) * EXPIRY_GRANULARITY_SECONDS;
}
