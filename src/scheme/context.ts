/**
 * @module From an x402 request to the proof's statement: the payment context the proof is bound
 * to — recomputed from `paymentRequirements` (never from `accepted`) and the payload's expiry —
 * and the public inputs the verifier checks the proof against.
 */

import type { DigestHex, PaymentContext, SpendPublicInputs } from '../core/index.js';
import { EXIT_RESOURCE_ID, SCHEME, TRANSITION_RESOURCE_ID } from './profile.js';
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

/**
 * The context a transition (merge or split, `POST /transitions`) is bound to: this scheme, the
 * pool's network and asset, no `payTo` (a transition names no owner), amount `1` (the context
 * encoding takes positive amounts only; a transition's values are not in its context),
 * {@link TRANSITION_RESOURCE_ID} and the expiry. The wallet and the ledger both build it here.
 */
export function transitionContext(
  network: { readonly network: string; readonly asset: string },
  expiry: number,
): PaymentContext {
  return {
    scheme: SCHEME,
    network: network.network,
    asset: network.asset,
    payTo: '',
    amount: '1',
    resourceId: TRANSITION_RESOURCE_ID,
    expiry,
  };
}

/**
 * The context an exit is bound to: as {@link transitionContext}, with the destination (CAIP-10) as
 * `payTo`, the exit amount as `amount` and {@link EXIT_RESOURCE_ID}, so the proof pays exactly this
 * amount to exactly this account of this pool, before the expiry.
 */
export function exitContext(
  network: { readonly network: string; readonly asset: string },
  destination: string,
  amount: string,
  expiry: number,
): PaymentContext {
  return {
    scheme: SCHEME,
    network: network.network,
    asset: network.asset,
    payTo: destination,
    amount,
    resourceId: EXIT_RESOURCE_ID,
    expiry,
  };
}
