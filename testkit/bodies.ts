/**
 * @module The bodies of the pool node's writes, one builder per body, as the wallet builds them
 * (the same fields in the same order, so the same bytes once serialised): `POST /proofs` for a
 * fixture payment (as JSON or as a frame), `POST /transfers` for an inline payload, `POST /transitions` for a proven
 * transition. Their types are the node's own (`src/pool-node/*-schema.ts`); tests and benches
 * build bodies here instead of spelling them out.
 */

import type { TransitionProof } from '../src/core/index.js';
import type {
  HandOverRequest,
  TransferRequest,
  TransitionRequest,
} from '../src/pool-node/index.js';
import {
  encodeHandOverFrame,
  encodeProof,
  type PrivStarkPayload,
  SCHEME,
} from '../src/scheme/index.js';
import type { PaymentFixture } from './fixtures.js';

/** The body of `POST /proofs` handing `p`'s proof over (what `Wallet.handOver` posts). */
export function handOverBody(p: PaymentFixture): HandOverRequest {
  return {
    scheme: p.payment.scheme,
    network: p.payment.network,
    asset: p.payment.asset,
    payTo: p.payment.payTo,
    amount: p.payment.amount,
    resourceId: p.payment.resourceId,
    expiry: p.payment.expiry,
    root: p.publicInputs.root,
    nullifier: p.publicInputs.nullifier,
    commitment: p.publicInputs.change,
    proof: encodeProof(p.proof),
  };
}

/** The same hand-over as a frame (`application/octet-stream`): the fields, the proof as bytes. */
export function handOverFrame(p: PaymentFixture): Uint8Array {
  const { proof: _base64, ...fields } = handOverBody(p);
  return encodeHandOverFrame(fields, p.proof);
}

/**
 * The body of `POST /transfers` for a payload with its proof inline (what `Wallet.transfer` posts
 * for the payload it built).
 * @throws TypeError when the payload carries no inline proof
 */
export function transferBody(payload: PrivStarkPayload): TransferRequest {
  if (payload.proof === undefined) throw new TypeError('"payload" expected an inline proof');
  return {
    scheme: payload.scheme,
    network: payload.network,
    root: payload.root,
    nullifier: payload.nullifier,
    commitment: payload.commitment,
    proof: payload.proof,
    amount: payload.amount,
    recipient: payload.recipient,
    expiry: payload.expiry,
  };
}

/**
 * The body of `POST /transitions` for a proven merge, split or exit (what the wallet posts): with
 * `withdrawal` an exit of its amount to its destination.
 */
export function transitionBody(
  transition: TransitionProof,
  options: {
    readonly network: string;
    readonly expiry: number;
    readonly withdrawal?: { readonly amount: string; readonly destination: string };
  },
): TransitionRequest {
  const { proof, publicInputs } = transition;
  const { withdrawal } = options;
  return {
    scheme: SCHEME,
    network: options.network,
    root: publicInputs.root,
    nullifiers: publicInputs.nullifiers,
    outputs: publicInputs.outputs,
    memo: publicInputs.memo,
    refund: publicInputs.refund,
    ...(withdrawal ? { exit: withdrawal.amount, destination: withdrawal.destination } : {}),
    expiry: options.expiry,
    proof: encodeProof(proof),
  };
}
