/**
 * @module From an x402 request to the proof's statement: the payment context the proof is bound
 * to — recomputed from `paymentRequirements` (never from `accepted`) and the payload's expiry —
 * and the public inputs the verifier checks the proof against.
 */

import type { DigestHex, PaymentContext, SpendPublicInputs } from '../core/index.js';
import type { PaymentRequirements, PrivStarkPayload } from './schema.js';

/** `paymentRequirements.extra.resourceId`, `''` when absent. */
export function resourceIdOf(requirements: PaymentRequirements): string {
  const id = requirements.extra?.resourceId;
  return typeof id === 'string' ? id : '';
}

/**
 * The payment context of a request: scheme, network, asset, payTo, amount and resourceId from
 * the requirements, expiry from the payload.
 */
export function paymentContext(requirements: PaymentRequirements, expiry: number): PaymentContext {
  return {
    scheme: requirements.scheme,
    network: requirements.network,
    asset: requirements.asset,
    payTo: requirements.payTo,
    amount: requirements.amount,
    resourceId: resourceIdOf(requirements),
    expiry,
  };
}

/** The public inputs a payload claims: `{ root, nullifier, change: commitment, amount, ctx }`. */
export function publicInputs(payload: PrivStarkPayload, ctx: DigestHex): SpendPublicInputs {
  return {
    root: payload.root as DigestHex,
    nullifier: payload.nullifier as DigestHex,
    change: payload.commitment as DigestHex,
    amount: payload.amount,
    ctx,
  };
}
