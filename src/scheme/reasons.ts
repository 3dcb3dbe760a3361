/**
 * @module The reason registry of this profile (priv-stark-v1.md §4): every reason a `/verify` or
 * `/settle` reply can carry, its one HTTP status and its generic message, and beside them the
 * reasons of the ledger's deposits. These tables are the complete list; the HTTP layers, the
 * ledger, the metrics and the docs read them from here. Messages are
 * forwarded verbatim to callers, so they name no keys, roots, policies or internals.
 */

/** One entry of the registry. */
export interface ReasonEntry {
  /** The one status this reason is answered with. */
  readonly status: number;
  /** The generic message (`invalidMessage` / `errorMessage`). */
  readonly message: string;
}

/** Every reason, in the order of the checks that produce them. */
export const REASONS = {
  unauthorized: { status: 401, message: 'missing or unknown API key' },
  payload_too_large: { status: 413, message: 'the request or the proof exceeds the size limit' },
  rate_limited: { status: 429, message: 'too many requests, retry later' },
  invalid_payload: { status: 400, message: 'the request is malformed' },
  unsupported_scheme: { status: 400, message: 'the payment scheme is not supported' },
  unsupported_network: { status: 400, message: 'the payment network is not supported' },
  unsupported_asset: { status: 400, message: "the asset is not the network's asset" },
  payment_requirements_mismatch: {
    status: 400,
    message: 'the payment does not match the payment requirements',
  },
  payment_expired: { status: 400, message: 'the payment has expired' },
  expiry_too_far: { status: 400, message: 'the payment expiry is too far in the future' },
  policy_violation: { status: 403, message: 'the payment is not allowed for this API key' },
  unknown_root: { status: 422, message: 'the anchor is not a checkpoint of the pool' },
  root_too_old: { status: 422, message: 'the anchor is older than the pool accepts' },
  nullifier_already_spent: { status: 409, message: 'the note has already been spent' },
  duplicate_settlement: { status: 409, message: 'the payment has already been settled' },
  unknown_proof_reference: {
    status: 422,
    message: 'the proof reference is unknown, expired or does not match the payment',
  },
  invalid_priv_stark_proof: { status: 422, message: 'the proof does not verify' },
  pool_unavailable: { status: 503, message: 'the privacy pool is unavailable' },
  facilitator_error: { status: 500, message: 'the facilitator failed' },
  not_found: { status: 404, message: 'no such route' },
} as const satisfies Record<string, ReasonEntry>;

/** A reason code of `/verify` and `/settle`. */
export type Reason = keyof typeof REASONS;

/**
 * Reasons of the pool node's own routes, beside the facilitator's table: the ledger's deposits
 * (the operator's route, refused with `chain_deposits_only` in a chain-backed pool), the payout
 * steps (the operator's, refused with `chain_payouts_only` there), proof hand-overs (compact
 * payments) and the operator's attestation on demand (`no_attester`, `attestation_failed`). The facilitator never answers them (`tree_full` on a
 * settlement is its `pool_unavailable`). `proof_store_full` comes with `Retry-After`.
 */
export const POOL_NODE_REASONS = {
  amount_out_of_range: {
    status: 400,
    message: 'the amount must be an integer with 0 < amount < 2^62',
  },
  duplicate_commitment: { status: 409, message: 'the commitment is already in the tree' },
  tree_full: { status: 409, message: 'the pool tree is full' },
  too_many_proofs: {
    status: 409,
    message: 'the note already has the most live handed-over proofs',
  },
  proof_store_full: { status: 503, message: 'the proof store is full, retry later' },
  invalid_destination: {
    status: 400,
    message: 'the destination must be a supported CAIP-10 account id with a valid checksum',
  },
  unknown_withdrawal: { status: 404, message: 'no withdrawal has this id' },
  payout_conflict: {
    status: 409,
    message: 'the payout step does not follow the recorded one (paying, then paid or failed)',
  },
  unpayable_destination: {
    status: 400,
    message: 'the pool pays exits only to accounts on its own chain (eip155:<chain id>:<address>)',
  },
  chain_deposits_only: {
    status: 409,
    message: 'this pool is backed by an escrow on a chain: deposits are paid into the escrow',
  },
  chain_payouts_only: {
    status: 409,
    message: 'this pool pays exits on its chain: only its payout sender records their steps',
  },
  relay_fee_too_low: {
    status: 422,
    message: 'the authorized value leaves the relayer less than its advertised fee',
  },
  deposit_exists: { status: 409, message: 'this deposit ticket was deposited already' },
  authorization_invalid: {
    status: 422,
    message: "the token refuses the authorization's signature",
  },
  authorization_expired: {
    status: 422,
    message: 'the authorization is outside its validity window',
  },
  deposit_refused: { status: 422, message: 'the escrow or the token refuses the deposit' },
  reclaim_refused: { status: 422, message: 'the escrow refuses the reclaim' },
  relay_unavailable: { status: 503, message: 'the relayer cannot send now, retry later' },
  merchant_relay_foreign: {
    status: 403,
    message: "the merchant's relay takes hand-overs for the merchant's own routes and payTo only",
  },
  merchant_relay_handovers_only: {
    status: 400,
    message: "the merchant's relay takes proof hand-overs only: no transfers, transitions or exits",
  },
  no_attester: {
    status: 409,
    message: 'this pool node posts no attestations: it needs a chain pool and an attester key',
  },
  attestation_failed: {
    status: 502,
    message: 'the attestation could not be posted on the chain, retry later',
  },
} as const satisfies Record<string, ReasonEntry>;

/** A reason code of the pool node's own routes. */
export type PoolNodeReason = keyof typeof POOL_NODE_REASONS;

/** Every reason code, in registry order. */
export const REASON_CODES = Object.keys(REASONS) as Reason[];

/** Whether `code` is a reason of this registry. */
export function isReason(code: unknown): code is Reason {
  return typeof code === 'string' && Object.hasOwn(REASONS, code);
}

function entryOf(reason: Reason | PoolNodeReason): ReasonEntry {
  return Object.hasOwn(REASONS, reason)
    ? REASONS[reason as Reason]
    : POOL_NODE_REASONS[reason as PoolNodeReason];
}

/** The status of a reason. */
export function statusOf(reason: Reason | PoolNodeReason): number {
  return entryOf(reason).status;
}

/** The generic message of a reason. */
export function messageOf(reason: Reason | PoolNodeReason): string {
  return entryOf(reason).message;
}
