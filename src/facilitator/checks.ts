/**
 * @module The checks of a request that need no I/O (priv-stark-v1.md §4), in the profile's order,
 * stopping at the first failure: the payment rules every checker of this profile shares
 * (`scheme/payment-rules.ts`: encodings, scheme / network / asset, the proof's amount against the
 * payment, expiry), with the x402 envelope's own facts added at their steps — the proof's base64,
 * the expiry's granularity and the resource id's length with the encodings; `accepted`'s and the
 * payload's scheme and network; `accepted` and the payload against the requirements — and the
 * caller's policy last. The envelope's schema was checked before (the HTTP layer validates the
 * body against `FacilitatorRequestSchema`). What passes is the rules' {@link CheckedPayment}: the
 * proof bytes (inline) or its reference (compact), its public inputs with the context digest
 * recomputed from `paymentRequirements` and the payload's expiry, the payment, the recipient's
 * owner — each fact checked once, and the ledger vouching for it as its own rules' result.
 */

import type { DigestHex, PaymentContext } from '../core/index.js';
import {
  type CheckedPayment,
  CONTEXT_FIELD_MAX_BYTES,
  decodeProof,
  type FacilitatorRequest,
  isExpiryGranular,
  type NetworkProfile,
  paymentContext,
  PaymentRules,
  type Reason,
  resourceIdOf,
  type RuleStep,
  SCHEME,
} from '../scheme/index.js';
import type { CallerPolicy, FacilitatorCore } from './types.js';

export type { CheckedPayment };

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
  /**
   * The payment rules to apply: the ledger's (`FacilitatorLedger.paymentRules`), so that the ledger
   * vouches for what passes. Default: rules of the pool `networks` names for the request.
   */
  readonly rules?: PaymentRules | undefined;
  /** `ctx` of a payment context, for the default rules (default: the core's `contextDigest`). */
  readonly contextDigest?: ((payment: PaymentContext) => DigestHex) | undefined;
}

/**
 * Runs the checks of a schema-valid request in their fixed order.
 * @returns the checked payment, or the reason of the first failure
 */
export function checkRequest(
  request: FacilitatorRequest,
  env: CheckEnvironment,
): CheckedPayment | CheckFailure {
  const { paymentRequirements: requirements, paymentPayload } = request;
  const payload = paymentPayload.payload;
  // The proof's bytes (base64 and size) before anything else: the rules check the bytes.
  let proof: Uint8Array | null = null;
  if (payload.proof !== undefined) {
    const decoded = decodeProof(payload.proof);
    if (!decoded.ok) return { ok: false, reason: decoded.reason };
    proof = decoded.bytes;
  }
  const rules = env.rules ?? rulesFor(env, requirements.network);
  return rules.check(
    {
      proof,
      reference: payload.proofRef,
      publicInputs: {
        root: payload.root,
        nullifier: payload.nullifier,
        change: payload.commitment,
        amount: payload.amount,
      },
      payment: paymentContext(requirements, payload.expiry),
    },
    {
      now: env.now,
      maxTimeoutSeconds: requirements.maxTimeoutSeconds,
      also: (step) => envelopeFact(step, request, env, rules.pool.scheme),
    },
  );
}

/** The envelope's own facts at each step of the rules (and the policy last); `null` when they hold. */
function envelopeFact(
  step: RuleStep,
  request: FacilitatorRequest,
  env: CheckEnvironment,
  scheme: string,
): Reason | null {
  const { paymentRequirements: requirements, paymentPayload } = request;
  const { accepted, payload } = paymentPayload;
  switch (step) {
    case 'encodings':
      return isExpiryGranular(payload.expiry) &&
        Buffer.byteLength(resourceIdOf(requirements), 'utf8') <= CONTEXT_FIELD_MAX_BYTES.resourceId
        ? null
        : 'invalid_payload';
    case 'scheme':
      return accepted.scheme === scheme && payload.scheme === scheme ? null : 'unsupported_scheme';
    case 'network': {
      const known = (name: string) => env.networks.some((n) => n.network === name);
      return known(accepted.network) && known(payload.network) ? null : 'unsupported_network';
    }
    case 'binding':
      // `accepted` and the payload say what the requirements say (exact-amount semantics; the
      // payload's amount against the requirements' is the rules' own).
      return accepted.network === requirements.network &&
        accepted.asset === requirements.asset &&
        accepted.amount === requirements.amount &&
        accepted.payTo === requirements.payTo &&
        payload.network === requirements.network &&
        payload.recipient === requirements.payTo
        ? null
        : 'payment_requirements_mismatch';
    case 'last':
      return policyRefusal(env.policy, requirements.payTo, requirements.amount);
  }
}

/** The caller's policy on the recipient and the amount. */
function policyRefusal(
  policy: CallerPolicy | undefined,
  payTo: string,
  amount: string,
): Reason | null {
  if (policy?.allowedRecipients && !policy.allowedRecipients.includes(payTo))
    return 'policy_violation';
  if (policy?.maxAmount !== undefined && BigInt(amount) > policy.maxAmount)
    return 'policy_violation';
  return null;
}

/**
 * Rules of the pool `networks` names for `network` (or of the first pool, which refuses the
 * network), when the caller brings none.
 */
function rulesFor(env: CheckEnvironment, network: string): PaymentRules {
  const profile = env.networks.find((n) => n.network === network) ?? env.networks[0];
  return new PaymentRules(
    env.core,
    { scheme: SCHEME, network: profile?.network ?? '', asset: profile?.asset ?? '' },
    env.contextDigest,
  );
}
