/**
 * @module Reasons the ledger refuses something, and the error of a store that failed.
 *
 * Rule rejections are data ({@link LedgerRejection}), never exceptions: the settlement and the
 * deposit return them. Their codes are a subset of the profile's registry (`src/scheme/reasons.ts`:
 * the facilitator's table and the deposit reasons), and so are their messages. A store that cannot
 * answer (down, locked, disk full, timed out) throws {@link PoolUnavailableError}, which the HTTP
 * layers turn into 503 `pool_unavailable`.
 */

import { type PoolNodeReason, messageOf, type Reason } from '../scheme/reasons.js';

/** Every reason the ledger refuses a settlement, a note transition, a deposit or a payout with. */
export const LEDGER_REASONS = [
  // the facilitator's table (priv-stark-v1 §4)
  'invalid_payload',
  'unsupported_scheme',
  'unsupported_network',
  'unsupported_asset',
  'payment_requirements_mismatch',
  'payment_expired',
  'expiry_too_far',
  'unknown_root',
  'root_too_old',
  'nullifier_already_spent',
  'duplicate_settlement',
  'unknown_proof_reference',
  'invalid_priv_stark_proof',
  // deposits, hand-overs and capacity
  'amount_out_of_range',
  'duplicate_commitment',
  'tree_full',
  'too_many_proofs',
  'proof_store_full',
  // exits and their payouts
  'invalid_destination',
  'unknown_withdrawal',
  'payout_conflict',
] as const satisfies readonly (Reason | PoolNodeReason)[];

/** A reason from {@link LEDGER_REASONS}. */
export type LedgerReason = (typeof LEDGER_REASONS)[number];

/** Whether `code` is a reason of {@link LEDGER_REASONS}. */
export function isLedgerReason(code: unknown): code is LedgerReason {
  return typeof code === 'string' && (LEDGER_REASONS as readonly string[]).includes(code);
}

/** A refusal by the ledger's rules. Nothing changed in the pool. */
export interface LedgerRejection {
  readonly ok: false;
  readonly reason: LedgerReason;
  /** The registry's generic message: no keys, roots or internals. */
  readonly message: string;
  /** For `duplicate_settlement`: the id of the settlement that spent the nullifier first. */
  readonly settlementId?: string;
}

/** Builds a {@link LedgerRejection} with the reason's generic message. */
export function reject(
  reason: LedgerReason,
  extra: { settlementId?: string } = {},
): LedgerRejection {
  const out: { ok: false; reason: LedgerReason; message: string; settlementId?: string } = {
    ok: false,
    reason,
    message: messageOf(reason),
  };
  if (extra.settlementId !== undefined) out.settlementId = extra.settlementId;
  return out;
}

/**
 * The store could not answer: it is down, locked past its timeout, out of space, or the
 * connection broke. The operation's outcome is either "nothing happened" or, when the failure hit
 * the commit itself, unknown — a retry then reports `duplicate_settlement` with the original id,
 * never a second success.
 */
export class PoolUnavailableError extends Error {
  /** Always `pool_unavailable`. */
  readonly code = 'pool_unavailable' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PoolUnavailableError';
  }
}

/** Wraps anything a driver threw into a {@link PoolUnavailableError} (kept as `cause`). */
export function unavailable(error: unknown, what: string): PoolUnavailableError {
  if (error instanceof PoolUnavailableError) return error;
  return new PoolUnavailableError(`the pool store failed during ${what}`, { cause: error });
}
