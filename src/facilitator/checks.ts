/**
 * @module The ordered checks that need no I/O (priv-stark-v1.md §4), cheapest and most
 * discriminating first, stopping at the first failure: encodings, then scheme / network / asset,
 * then `accepted` and the payload against the requirements, then expiry, then the caller's policy.
 * The envelope's schema was checked before (the HTTP layer validates the body against
 * `FacilitatorRequestSchema`). What passes comes out as the proof bytes (inline) or its reference
 * (compact), its public inputs — the context digest recomputed from `paymentRequirements` and the
 * payload's expiry — and the payment.
 */

import type {
  DigestHex,
  PaymentContext,
  ProofReference,
  SpendPublicInputs,
} from '../core/index.js';
import {
  CONTEXT_FIELD_MAX_BYTES,
  decodeProof,
  expiryStatus,
  type FacilitatorRequest,
  isAmount,
  isExpiryGranular,
  isProofReference,
  type NetworkProfile,
  paymentContext,
  publicInputs,
  type Reason,
  resourceIdOf,
  SCHEME,
} from '../scheme/index.js';
import type { CallerPolicy, FacilitatorCore } from './types.js';

/** A request that passed every check without I/O: exactly one of `proof` and `reference`. */
export interface CheckedPayment {
  readonly ok: true;
  /** Inline: the proof bytes. */
  readonly proof: Uint8Array | null;
  /** Compact: the reference of a proof handed over to the pool node. */
  readonly reference: ProofReference | null;
  readonly publicInputs: SpendPublicInputs;
  readonly payment: PaymentContext;
  readonly network: string;
}

/** The first check that failed. */
export interface CheckFailure {
  readonly ok: false;
  readonly reason: Reason;
}

/** What the checks need besides the request. */
export interface CheckEnvironment {
  readonly core: FacilitatorCore;
  readonly networks: readonly NetworkProfile[];
  /** Unix seconds. */
  readonly now: number;
  readonly policy?: CallerPolicy | undefined;
  /** `ctx` of a payment context (default: the core's `contextDigest`; the facilitator memoizes it). */
  readonly contextDigest?: ((payment: PaymentContext) => DigestHex) | undefined;
}

const fail = (reason: Reason): CheckFailure => ({ ok: false, reason });

function canonicalDigest(core: FacilitatorCore, text: string): boolean {
  try {
    core.parseDigest(text);
    return true;
  } catch {
    return false;
  }
}

function validAddress(core: FacilitatorCore, text: string): boolean {
  try {
    core.decodeAddress(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the checks of a schema-valid request in their fixed order.
 * @returns the checked payment, or the reason of the first failure
 */
export function checkRequest(
  request: FacilitatorRequest,
  env: CheckEnvironment,
): CheckedPayment | CheckFailure {
  const { core } = env;
  const requirements = request.paymentRequirements;
  const accepted = request.paymentPayload.accepted;
  const payload = request.paymentPayload.payload;

  // 1. Encodings: exactly one of the proof (base64 and size) and its reference, amounts, expiry
  //    granularity, canonical digests, the recipient's address, the resource id's length.
  if ((payload.proof === undefined) === (payload.proofRef === undefined))
    return fail('invalid_payload');
  let proof: Uint8Array | null = null;
  if (payload.proof !== undefined) {
    const decoded = decodeProof(payload.proof);
    if (!decoded.ok) return fail(decoded.reason);
    proof = decoded.bytes;
  } else if (!isProofReference(payload.proofRef)) {
    return fail('invalid_payload');
  }
  if (!isAmount(payload.amount) || !isAmount(requirements.amount)) return fail('invalid_payload');
  if (!isExpiryGranular(payload.expiry)) return fail('invalid_payload');
  if (
    !canonicalDigest(core, payload.root) ||
    !canonicalDigest(core, payload.nullifier) ||
    !canonicalDigest(core, payload.commitment)
  ) {
    return fail('invalid_payload');
  }
  if (!validAddress(core, payload.recipient)) return fail('invalid_payload');
  if (Buffer.byteLength(resourceIdOf(requirements), 'utf8') > CONTEXT_FIELD_MAX_BYTES.resourceId)
    return fail('invalid_payload');

  // 2. Scheme, network and its one asset are supported.
  if (requirements.scheme !== SCHEME || accepted.scheme !== SCHEME || payload.scheme !== SCHEME)
    return fail('unsupported_scheme');
  const network = env.networks.find((n) => n.network === requirements.network);
  const known = (name: string) => env.networks.some((n) => n.network === name);
  if (!network || !known(accepted.network) || !known(payload.network))
    return fail('unsupported_network');
  if (requirements.asset !== network.asset) return fail('unsupported_asset');

  // 3. `accepted` and the payload say what the requirements say (exact-amount semantics).
  if (
    accepted.network !== requirements.network ||
    accepted.asset !== requirements.asset ||
    accepted.amount !== requirements.amount ||
    accepted.payTo !== requirements.payTo ||
    payload.network !== requirements.network ||
    payload.amount !== requirements.amount ||
    payload.recipient !== requirements.payTo
  ) {
    return fail('payment_requirements_mismatch');
  }

  // 4. Expiry: now < expiry ≤ now + maxTimeoutSeconds + 60.
  const expiry = expiryStatus(payload.expiry, env.now, requirements.maxTimeoutSeconds);
  if (expiry !== 'ok') return fail(expiry);

  // 5. The caller's policy.
  const policy = env.policy;
  if (policy?.allowedRecipients && !policy.allowedRecipients.includes(requirements.payTo))
    return fail('policy_violation');
  if (policy?.maxAmount !== undefined && BigInt(requirements.amount) > policy.maxAmount)
    return fail('policy_violation');

  // The statement: ctx from the requirements and the payload's expiry.
  const payment = paymentContext(requirements, payload.expiry);
  let ctx: DigestHex;
  try {
    ctx = env.contextDigest ? env.contextDigest(payment) : core.contextDigest(payment);
  } catch {
    return fail('invalid_payload');
  }
  return {
    ok: true,
    proof,
    reference: proof === null ? (payload.proofRef as ProofReference) : null,
    publicInputs: publicInputs(payload, ctx),
    payment,
    network: network.network,
  };
}
