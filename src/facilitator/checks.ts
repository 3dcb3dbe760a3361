/**
 * @module The ordered checks that need no I/O (priv-stark-v1.md §4), cheapest and most
 * discriminating first, stopping at the first failure: encodings, then scheme / network / asset,
 * then `accepted` and the payload against the requirements, then expiry, then the caller's policy.
 * The envelope's schema was checked before (the HTTP layer validates the body against
 * `FacilitatorRequestSchema`). What passes comes out as the proof bytes, its public inputs — the
 * context digest recomputed from `paymentRequirements` and the payload's expiry — and the payment.
 */

import type { DigestHex, PaymentContext, SpendPublicInputs } from '../core/index.js';
import {
  CONTEXT_FIELD_MAX_BYTES,
  decodeProof,
  expiryStatus,
  type FacilitatorRequest,
  isAmount,
  isExpiryGranular,
  type NetworkProfile,
  paymentContext,
  publicInputs,
  type Reason,
  resourceIdOf,
  SCHEME,
} from '../scheme/index.js';
import type { CallerPolicy, FacilitatorCore } from './types.js';

/** A request that passed every check without I/O. */
export interface CheckedPayment {
  readonly ok: true;
  readonly proof: Uint8Array;
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

  // 1. Encodings: the proof's base64 and size, amounts, expiry granularity, canonical digests,
  //    the recipient's address, the resource id's length.
  const proof = decodeProof(payload.proof);
  if (!proof.ok) return fail(proof.reason);
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
    proof: proof.bytes,
    publicInputs: publicInputs(payload, ctx),
    payment,
    network: network.network,
  };
}
