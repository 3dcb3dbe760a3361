/** Builders of store ops with random canonical digests, taking `Partial` overrides. */

import { type DigestHex, type PrivStarkCore, randomDigest } from '../../../src/core/index.js';
import {
  type DepositOp,
  type HandOverOp,
  type SettlementOp,
  settlementId,
} from '../../../src/ledger/index.js';
import { STAND_IN_PROOF } from '../../../testkit/stand-in-proof.js';

/** A deposit op of a random commitment. */
export function depositOp(overrides: Partial<DepositOp> = {}): DepositOp {
  return { kind: 'deposit', amount: '1000', commitment: randomDigest(), ...overrides };
}

/** A settlement op of a random nullifier (the store does not check notes: the pool derives them). */
export function settlementOp(
  core: PrivStarkCore,
  overrides: Partial<SettlementOp> = {},
): SettlementOp {
  const nullifier = overrides.nullifier ?? randomDigest();
  return {
    kind: 'settlement',
    nullifier,
    settlementId: settlementId(nullifier),
    change: randomDigest(),
    recipientNote: randomDigest(),
    recipient: core.encodeAddress(randomDigest()),
    amount: '250',
    proof: STAND_IN_PROOF,
    ...overrides,
  };
}

/**
 * A hand-over op of a random reference and nullifier (the store does not verify proofs: the ledger
 * did before submitting), with the profile's limits unless overridden.
 */
export function handOverOp(overrides: Partial<HandOverOp> = {}): HandOverOp {
  return {
    kind: 'handover',
    reference: randomDigest(),
    parameterSet: 1,
    root: randomDigest(),
    nullifier: randomDigest(),
    change: randomDigest(),
    amount: '250',
    ctx: randomDigest(),
    proof: new Uint8Array([1, 2, 3, 4]),
    expiresAt: Number.MAX_SAFE_INTEGER,
    capacity: 10_000,
    perNullifier: 2,
    ...overrides,
  };
}

/** Every leaf of a store, by paging. */
export async function allLeaves(store: {
  leaves(from: number, limit: number): Promise<DigestHex[]>;
}): Promise<DigestHex[]> {
  const out: DigestHex[] = [];
  for (;;) {
    const page = await store.leaves(out.length, 1000);
    out.push(...page);
    if (page.length < 1000) return out;
  }
}
