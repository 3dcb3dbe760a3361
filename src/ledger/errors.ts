/**
 * @module Reasons the pool refuses something, and the error of a store that failed.
 *
 * Rule rejections are data ({@link PoolRejection}), never exceptions: the transition and the
 * deposit return them. Their codes are stable snake_case strings and, where they overlap with the
 * facilitator's table (priv-stark-v1 §4), identical to it character for character. A store that
 * cannot answer (down, locked, disk full, timed out) throws {@link PoolUnavailableError}, which the
 * HTTP layers turn into 503 `pool_unavailable`.
 */

/** Every reason the pool refuses a transition or a deposit with. */
export const POOL_REASONS = [
  // shared with the facilitator's table (priv-stark-v1 §4)
  'invalid_payload',
  'unsupported_scheme',
  'unsupported_network',
  'unsupported_asset',
  'payment_requirements_mismatch',
  'payment_expired',
  'unknown_root',
  'duplicate_settlement',
  'invalid_priv_stark_proof',
  // the pool's own (deposits, capacity)
  'amount_out_of_range',
  'duplicate_commitment',
  'tree_full',
] as const;

/** A reason from {@link POOL_REASONS}. */
export type PoolReason = (typeof POOL_REASONS)[number];

/** A refusal by the pool's rules. Nothing changed in the pool. */
export interface PoolRejection {
  readonly ok: false;
  readonly reason: PoolReason;
  /** A short generic message: no keys, roots or internals. */
  readonly message: string;
  /** For `duplicate_settlement`: the id of the settlement that spent the nullifier first. */
  readonly settlementId?: string;
}

const MESSAGES: Record<PoolReason, string> = {
  invalid_payload: 'the request is malformed',
  unsupported_scheme: 'the payment scheme is not supported by this pool',
  unsupported_network: 'the payment network is not this pool',
  unsupported_asset: 'the asset is not this pool\'s asset',
  payment_requirements_mismatch: 'the proof does not match the payment',
  payment_expired: 'the payment has expired',
  unknown_root: 'the anchor is not a checkpoint of this pool',
  duplicate_settlement: 'the nullifier has already been settled',
  invalid_priv_stark_proof: 'the proof does not verify',
  amount_out_of_range: 'the amount must be an integer with 0 < amount < 2^62',
  duplicate_commitment: 'the commitment is already in the tree',
  tree_full: 'the pool tree is full',
};

/** Builds a {@link PoolRejection} with the reason's generic message. */
export function reject(reason: PoolReason, extra: { settlementId?: string; message?: string } = {}): PoolRejection {
  const out: { ok: false; reason: PoolReason; message: string; settlementId?: string } = {
    ok: false,
    reason,
    message: extra.message ?? MESSAGES[reason],
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
