/**
 * @module The log digest (docs/audit.md, "Log digest"): a hash chain over the public log, each link
 * `digest_k = SHA-256(digest_{k−1} ‖ encodeEvent(event_k) ‖ proofHash_k)` from 32 zero bytes, so an
 * attested digest fixes every event before it, its order and the proof it was applied with — a
 * rewritten, dropped or reordered event, or a swapped proof, changes every digest after it.
 * `proofHash` is the SHA-256 of the archived proof's bytes, or 32 zero bytes for an event applied
 * without a proof (a deposit, a refund).
 */

import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';

import type { PoolEvent } from '../ledger/store.js';
import { encodeEvent } from './event-encoding.js';

/** The digest before the first event: 32 zero bytes. */
export const GENESIS_LOG_DIGEST: Uint8Array = new Uint8Array(32);

/** The proof hash of an event applied without a proof. */
export const NO_PROOF_HASH: Uint8Array = new Uint8Array(32);

/** The proof hash of `proof` (its bytes as archived), or {@link NO_PROOF_HASH} for none. */
export function proofHashOf(proof: Uint8Array | null): Uint8Array {
  return proof === null ? NO_PROOF_HASH : sha256(proof);
}

/** The link after `previous` for `event` applied with a proof hashing to `proofHash`. */
export function nextLogDigest(
  previous: Uint8Array,
  event: PoolEvent,
  proofHash: Uint8Array,
): Uint8Array {
  if (previous.length !== 32 || proofHash.length !== 32)
    throw new RangeError('a log digest and a proof hash are 32 bytes each');
  const encoded = encodeEvent(event);
  const input = new Uint8Array(64 + encoded.length);
  input.set(previous, 0);
  input.set(encoded, 32);
  input.set(proofHash, 32 + encoded.length);
  return sha256(input);
}

/** The digest after `events` in order, each with its proof hash, from `start` (genesis). */
export function logDigest(
  events: readonly { readonly event: PoolEvent; readonly proofHash: Uint8Array }[],
  start: Uint8Array = GENESIS_LOG_DIGEST,
): Uint8Array {
  let digest = start;
  for (const { event, proofHash } of events) digest = nextLogDigest(digest, event, proofHash);
  return digest;
}

/** A digest as 0x and 64 lowercase hex digits (the attestation's `bytes32`). */
export function digestHex(digest: Uint8Array): `0x${string}` {
  return `0x${bytesToHex(digest)}`;
}
