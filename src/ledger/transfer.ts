/**
 * @module A transfer through the pool node (`POST /transfers`): a payment statement whose context
 * is the pool's transfer context — this pool's scheme, network and asset, `payTo` the recipient,
 * {@link TRANSFER_RESOURCE_ID}, an expiry at most {@link TRANSFER_MAX_TIMEOUT_SECONDS} ahead —
 * settled as any payment is (`settle.ts`: one nullifier set, the same event, settle-once), the
 * proof verified here. A wallet keeps ready notes by transferring to itself (docs/client.md).
 */

import type { PaymentContext } from '../core/index.js';
import {
  type ClaimedInputs,
  isCanonicalDigest,
  TRANSFER_MAX_TIMEOUT_SECONDS,
  TRANSFER_RESOURCE_ID,
} from '../scheme/index.js';
import { nowSeconds } from './context.js';
import { reject } from './errors.js';
import { type SettleContext, type SettleResult, settleOnce, spentRefusal } from './settle.js';

/**
 * A transfer through the pool node: the proof (always inline), the public inputs it claims, the
 * recipient's shielded address and the expiry; the ledger builds the transfer's payment context.
 */
export interface TransferInput {
  readonly proof: Uint8Array;
  readonly publicInputs: ClaimedInputs;
  readonly recipient: string;
  readonly expiry: number;
}

/**
 * Applies a transfer (`Ledger.transfer`): the settlement's order, with the transfer context built
 * here and its expiry bound.
 * @throws PoolUnavailableError when the store fails
 */
export async function transfer(
  context: SettleContext,
  input: TransferInput,
): Promise<SettleResult> {
  if (typeof input !== 'object' || input === null) return reject('invalid_payload');
  const { proof, publicInputs: claimed, recipient, expiry } = input;
  if (typeof claimed !== 'object' || claimed === null || typeof recipient !== 'string')
    return reject('invalid_payload');
  if (!isCanonicalDigest(context.core, claimed.nullifier)) return reject('invalid_payload');
  // 1. A settled nullifier is answered first, as for a settlement: a retry learns it went through.
  const spent = await context.spent(claimed.nullifier);
  if (spent) return spentRefusal(claimed.nullifier, spent);
  // 2.–5. The rules: the proof (always inline), shapes, this pool, ctx recomputed from the
  // transfer context, expiry and its bound.
  const { scheme, network, asset } = context.pool;
  const payment: PaymentContext = {
    scheme,
    network,
    asset,
    payTo: recipient,
    amount: claimed.amount,
    resourceId: TRANSFER_RESOURCE_ID,
    expiry,
  };
  const { root, nullifier, change, amount } = claimed;
  const checked = context.rules.check(
    { proof, publicInputs: { root, nullifier, change, amount }, payment },
    { now: nowSeconds(context), maxTimeoutSeconds: TRANSFER_MAX_TIMEOUT_SECONDS },
  );
  if (!checked.ok) return reject(checked.reason);
  return settleOnce(context, checked);
}
