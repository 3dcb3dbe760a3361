/**
 * x402 request bodies from the pool's payment fixtures, with `Partial` overrides of each part:
 * what the official client sends to `/verify` and `/settle` — the proof inline, or (compact) the
 * reference of a proof handed over to a real ledger first.
 */

import type { Ledger } from '../../../src/ledger/index.js';
import {
  encodeProof,
  type FacilitatorRequest,
  type PaymentRequirements,
  type PrivStarkPayload,
} from '../../../src/scheme/index.js';
import type { FixtureSpec, PaymentFixture } from '../../../testkit/fixtures.js';

/**
 * A fixture spec whose payments expire on 1 January five years ahead, so a facilitator on the
 * real clock accepts them with a `maxTimeoutSeconds` below 2^31 (see {@link maxTimeoutFor}).
 */
export function liveSpec(seed: string, notes: number, variants = 1): FixtureSpec {
  return { seed, notes, variants, expiry: Date.UTC(new Date().getUTCFullYear() + 5, 0, 1) / 1000 };
}

/** The `maxTimeoutSeconds` that makes `expiry` acceptable at `nowMs`. */
export function maxTimeoutFor(expiry: number, nowMs = Date.now()): number {
  return Math.max(1, expiry - Math.floor(nowMs / 1000));
}

/** The requirements a merchant would have sent for `p`. */
export function requirementsOf(
  p: PaymentFixture,
  overrides: Partial<PaymentRequirements> = {},
): PaymentRequirements {
  return {
    scheme: p.payment.scheme,
    network: p.payment.network,
    asset: p.payment.asset,
    amount: p.payment.amount,
    payTo: p.payment.payTo,
    maxTimeoutSeconds: maxTimeoutFor(p.payment.expiry),
    extra: { resourceId: p.payment.resourceId },
    ...overrides,
  };
}

/** The `priv-stark/v1` payload of `p`. */
export function payloadOf(
  p: PaymentFixture,
  overrides: Partial<PrivStarkPayload> = {},
): PrivStarkPayload {
  return {
    scheme: p.payment.scheme,
    network: p.payment.network,
    root: p.publicInputs.root,
    nullifier: p.publicInputs.nullifier,
    commitment: p.publicInputs.change,
    proof: encodeProof(p.proof),
    amount: p.publicInputs.amount,
    recipient: p.payment.payTo,
    expiry: p.payment.expiry,
    ...overrides,
  };
}

/** Overrides of a whole request. */
export interface RequestOverrides {
  readonly requirements?: Partial<PaymentRequirements>;
  readonly accepted?: Partial<PaymentRequirements>;
  readonly payload?: Partial<PrivStarkPayload>;
}

/** The body of `/verify` and `/settle` for `p`. */
export function requestOf(p: PaymentFixture, overrides: RequestOverrides = {}): FacilitatorRequest {
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      resource: { url: `https://merchant.example/fixture/${p.variant}` },
      accepted: { ...requirementsOf(p), ...overrides.accepted },
      payload: payloadOf(p, overrides.payload),
    },
    paymentRequirements: requirementsOf(p, overrides.requirements),
  };
}

/** The body of `/verify` and `/settle` paying `p` by `reference` (compact): no inline proof. */
export function compactRequestOf(
  p: PaymentFixture,
  reference: string,
  overrides: RequestOverrides = {},
): FacilitatorRequest {
  const request = requestOf(p, overrides);
  const { proof: _inline, ...payload } = request.paymentPayload.payload;
  return {
    ...request,
    paymentPayload: {
      ...request.paymentPayload,
      payload: { ...payload, proofRef: reference, ...overrides.payload },
    },
  };
}

/**
 * Hands `p`'s proof over through a real ledger (as the pool node does for `POST /proofs`) and
 * returns the compact request paying with its reference.
 * @throws when the ledger refuses the hand-over
 */
export async function handedOverRequestOf(
  ledger: Ledger,
  p: PaymentFixture,
  overrides: RequestOverrides = {},
): Promise<{ reference: string; request: FacilitatorRequest }> {
  const { root, nullifier, change, amount } = p.publicInputs;
  const result = await ledger.handOver({
    proof: p.proof,
    publicInputs: { root, nullifier, change, amount },
    payment: p.payment,
  });
  if (!result.ok) throw new Error(`the hand-over was refused: ${result.reason}`);
  return {
    reference: result.reference,
    request: compactRequestOf(p, result.reference, overrides),
  };
}
