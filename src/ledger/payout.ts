/**
 * @module A step of an exit's payout, recorded by the operator's payout process: `paying` durably
 * before paying, then `paid`, or `failed` — which appends the exit's proven refund note for its
 * owner. The withdrawal id is the idempotency key; the group commit decides each step under the
 * store's lock (`group-plan.ts`).
 */

import { commitRefusal, type LedgerContext } from './context.js';
import { type LedgerRejection, reject } from './errors.js';
import type { PayoutStatus } from './store.js';

/** What {@link payout} returns: the step recorded (a refund's leaf for `failed`), or a refusal. */
export type PayoutResult =
  | { ok: true; status: PayoutStatus; refundIndex?: number }
  | (LedgerRejection & { status?: PayoutStatus | null });

/**
 * Records a step of a withdrawal's payout (`Ledger.payout`): the same step again is answered as
 * before; a step out of order is `payout_conflict` (with the status recorded); an unknown id
 * `unknown_withdrawal`.
 * @throws PoolUnavailableError when the store fails
 */
export async function payout(
  context: LedgerContext,
  withdrawalId: string,
  status: PayoutStatus,
): Promise<PayoutResult> {
  if (typeof withdrawalId !== 'string' || !/^0x[0-9a-f]{64}$/.test(withdrawalId))
    return reject('unknown_withdrawal');
  if (!['paying', 'paid', 'failed'].includes(status)) return reject('invalid_payload');
  const result = await context.commit({ kind: 'payout', withdrawalId, status });
  if (result.ok && result.kind === 'payout')
    return {
      ok: true,
      status: result.status,
      ...(result.refundIndex !== undefined ? { refundIndex: result.refundIndex } : {}),
    };
  if (!result.ok && result.reason === 'payout_conflict')
    return { ...reject('payout_conflict'), status: result.status };
  return commitRefusal(result);
}
