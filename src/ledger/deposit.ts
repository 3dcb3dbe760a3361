/**
 * @module A deposit: funds shielded into the pool. The pool computes the commitment
 * `H_NOTE(amount ‖ pre)` itself from the amount paid in and the depositor's precommitment, so the
 * hidden value is what was paid, and appends it through the group commit.
 */

import type { DigestHex } from '../core/index.js';
import { isCanonicalDigest, parseAmount } from '../scheme/index.js';
import { commitRefusal, type LedgerContext } from './context.js';
import { type LedgerRejection, reject } from './errors.js';
import { noteCommitment } from './notes.js';

/** A deposit request: the amount and the depositor's precommitment `H_PRE(owner ‖ rho)`. */
export interface DepositInput {
  readonly amount: string;
  readonly pre: string;
}

/** An applied deposit. */
export interface DepositAccepted {
  readonly ok: true;
  readonly commitment: DigestHex;
  readonly index: number;
  readonly eventId: number;
}

/** What {@link deposit} returns. */
export type DepositResult = DepositAccepted | LedgerRejection;

/**
 * Shields funds: computes `cm = H_NOTE(amount ‖ pre)` and appends it (`Ledger.deposit`).
 * @returns the commitment and its leaf index, or `invalid_payload`, `amount_out_of_range`,
 *   `duplicate_commitment`, `tree_full`
 * @throws PoolUnavailableError when the store fails
 */
export async function deposit(context: LedgerContext, input: DepositInput): Promise<DepositResult> {
  if (typeof input !== 'object' || input === null) return reject('invalid_payload');
  const { amount: amountText, pre } = input;
  if (typeof amountText !== 'string' || !/^(0|[1-9][0-9]{0,39})$/.test(amountText))
    return reject('invalid_payload');
  const amount = parseAmount(amountText);
  if (amount === null) return reject('amount_out_of_range');
  if (!isCanonicalDigest(context.core, pre)) return reject('invalid_payload');
  const commitment = noteCommitment(context.core, amount, pre);
  const result = await context.commit({
    kind: 'deposit',
    amount: amount.toString(),
    commitment,
  });
  if (result.ok && result.kind === 'deposit') {
    return {
      ok: true,
      commitment: result.commitment,
      index: result.index,
      eventId: result.eventId,
    };
  }
  return commitRefusal(result);
}
