/**
 * @module The note arithmetic the pool does in the clear (priv-stark-v1 §2): the deposit
 * commitment `H_NOTE(amount ‖ pre)`, the recipient note
 * `H_NOTE(amount ‖ H_PRE(owner ‖ H_RECIPIENT_RHO(nf)))` and the settlement id. Everything hashes
 * with the core; nothing here re-implements RPO.
 */

import { createHash } from 'node:crypto';

import { type DigestHex, digestElements, type PrivStarkCore } from '../core/index.js';

/** The hashing the pool needs from the core. */
export type NoteHasher = Pick<PrivStarkCore, 'hashElements' | 'parseDigest'>;

/** `cm = H_NOTE(value ‖ pre)`. */
export function noteCommitment(core: NoteHasher, value: bigint, pre: string): DigestHex {
  return core.hashElements('NOTE', [value, ...digestElements(pre)]);
}

/** `pre = H_PRE(owner ‖ rho)`. */
export function precommitment(core: NoteHasher, owner: string, rho: string): DigestHex {
  return core.hashElements('PRE', [...digestElements(owner), ...digestElements(rho)]);
}

/** The recipient note of a settlement: `H_NOTE(amount ‖ H_PRE(owner ‖ H_RECIPIENT_RHO(nf)))`. */
export function recipientNote(
  core: NoteHasher,
  amount: bigint,
  recipientOwner: string,
  nullifier: string,
): DigestHex {
  const rho = core.hashElements('RECIPIENT_RHO', digestElements(nullifier));
  return noteCommitment(core, amount, precommitment(core, recipientOwner, rho));
}

/**
 * The settlement id of a nullifier: SHA-256 of a fixed label and the nullifier's 32 bytes, written
 * like a digest (`0x` + 64 hex). Deterministic, so a duplicate reports the original id without a
 * lookup, and every instance sharing a store agrees on it.
 */
export function settlementId(nullifier: string): string {
  const hash = createHash('sha256');
  hash.update('priv-stark/v1 settlement\0');
  hash.update(Buffer.from(nullifier.slice(2), 'hex'));
  return `0x${hash.digest('hex')}`;
}

/** The id of the transition whose first nullifier is `nullifier`, derived as {@link settlementId}. */
export function transitionId(nullifier: string): string {
  const hash = createHash('sha256');
  hash.update('priv-stark/v1 transition\0');
  hash.update(Buffer.from(nullifier.slice(2), 'hex'));
  return `0x${hash.digest('hex')}`;
}
