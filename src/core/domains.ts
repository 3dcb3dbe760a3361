/**
 * @module The domain tags of the core's hash, by name: what `PrivStarkCore.hashElements` takes,
 * and what the note and transition derivations hash under.
 */

/** Domain tags of the hash, as in `crates/core/src/sponge.rs`. */
export const DOMAINS = {
  OWNER: 1,
  PRE: 2,
  NOTE: 3,
  NODE: 4,
  NULLIFIER: 5,
  CONTEXT: 6,
  RECIPIENT_RHO: 7,
  CHANGE_RHO: 8,
  DEPOSIT_RHO: 9,
  TRANSITION_RHO_1: 10,
  TRANSITION_RHO_2: 11,
  TRANSITION_MEMO: 12,
  REFUND_RHO: 13,
} as const;

/** A domain name. */
export type Domain = keyof typeof DOMAINS;
