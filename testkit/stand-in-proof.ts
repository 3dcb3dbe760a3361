/**
 * The proof of ops written straight into a store (suites, benches, seeded pools): a store verifies
 * nothing — the ledger did before it submits an op — it archives what it is given
 * (`src/ledger/proof-archive.ts`): these bytes, bound to a stand-in anchor and context digest.
 */

const STAND_IN_DIGEST = `0x${'5a'.repeat(32)}` as const;

/** A settlement's or transition's archived proof, as a store op carries it. */
export const STAND_IN_PROOF = {
  root: STAND_IN_DIGEST,
  ctx: STAND_IN_DIGEST,
  bytes: new Uint8Array([0x70, 0x72, 0x6f, 0x6f, 0x66]),
} as const;
