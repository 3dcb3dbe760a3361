/**
 * @module `withdraw`: exits an amount out of the pool to a destination the policy lists, by a note
 * transition the wallet proves (`POST /transitions` on the pool node); the change stays in the
 * wallet. It is spending: checked and reserved in the spend ledger like a payment, then settled by
 * the pool's receipt (the pool applies it at once; its operator pays the destination out
 * afterwards). One whose outcome is unknown (no clear answer from the pool) stays counted until a
 * sync shows its note spent, or its expiry bound passes with the note unspent.
 */

import {
  exitWarnings,
  InsufficientFundsError,
  MIN_OUTPUT_VALUE,
  PoolNodeError,
  type StoredNote,
} from '../client/index.js';
import { checkDestination, parseAmount } from '../scheme/index.js';
import type { AgentContext } from './agent-context.js';
import { ToolError } from './errors.js';
import { checkWithdrawal, type WithdrawalIntent } from './policy.js';
import type { SpendEntry } from './spend-ledger.js';
import { spendableNotes } from './spendable-notes.js';
import { iso, type WithdrawalView } from './views.js';

/**
 * What `withdraw` is asked: a CAIP-10 destination and an amount in atomic units, and `confirm` to
 * go on with an exit that links back to the wallet's deposits.
 */
export interface WithdrawalInput {
  readonly destination: string;
  readonly amount: string;
  readonly confirm?: boolean | undefined;
}

/**
 * `withdraw`: exits `amount` out of the pool to `destination`, within the policy — the
 * destination listed in its `withdrawalDestinations`, the amount within `maxPerPayment` and,
 * reserved in the spend ledger like a payment, within `maxPer24h`. The change stays in the wallet.
 * Refusals happen before the pool is asked (and before anything is reserved, save the 24-hour
 * limit, which is the reservation itself).
 */
export async function withdraw(ctx: AgentContext, input: WithdrawalInput): Promise<WithdrawalView> {
  const { amount, destination } = parseWithdrawal(input);
  const { network, asset } = ctx.wallet.network;
  const intent = { destination, network, asset, amount };
  // The policy first: a refused withdrawal needs nothing from the pool.
  const early = checkWithdrawal(await ctx.policy.current(), intent);
  if (early) throw early;
  await ctx.bookkeeping.sync();
  const warnings = exitWarnings(ctx.wallet, destination, amount).map(
    (w) => `${w.code}: ${w.message}`,
  );
  if (warnings.length > 0 && input.confirm !== true)
    throw new ToolError(
      'exit_linkable',
      `this exit links back to the wallet's deposits — ${warnings.join('; ')} — call withdraw again with confirm: true to go on`,
    );
  const policy = await ctx.policy.current();
  // From here to the reservation nothing awaits: the note, the check and the reservation are one
  // step (two withdrawals at once never take the same note).
  const note = exitNote(ctx, amount);
  const refusal = checkWithdrawal(policy, intent);
  if (refusal) throw refusal;
  const entry = ctx.bookkeeping.spendLedger.reserve(
    {
      kind: 'withdrawal',
      note: note.commitment,
      amount,
      network,
      asset,
      payTo: destination,
      host: '',
      url: '',
    },
    policy.maxPer24h,
  );
  await ctx.bookkeeping.keepReservation(entry, 'withdrawn');
  const transaction = await exitThroughPool(ctx, entry, intent, note);
  ctx.bookkeeping.spendLedger.markApplied(entry.id, transaction);
  await ctx.bookkeeping.saveIfPossible();
  // The spent note leaves the wallet's spendable notes at once (its nullifier is in the log).
  await ctx.bookkeeping.sync().catch(() => undefined);
  return {
    id: entry.id,
    status: 'settled',
    amount: amount.toString(),
    asset,
    network,
    destination,
    transaction,
    change: (BigInt(note.value) - amount).toString(),
    warnings,
    usage: ctx.policy.usage(policy),
  };
}

/**
 * The amount and the destination, checked before anything else.
 * @throws ToolError `invalid_amount`, `invalid_destination`
 */
function parseWithdrawal(input: WithdrawalInput): { amount: bigint; destination: string } {
  const amount = parseAmount(input.amount);
  if (amount === null || amount === 0n)
    throw new ToolError(
      'invalid_amount',
      'the amount must be atomic units: a positive decimal integer string below 2^62',
    );
  const destination = input.destination;
  const checked = checkDestination(destination);
  if (!checked.ok)
    throw new ToolError('invalid_destination', `the destination is refused: ${checked.why}`);
  return { amount, destination };
}

/**
 * The note a withdrawal of `amount` spends: as the wallet picks it, the smallest whose change is 0
 * or at least `MIN_OUTPUT_VALUE` (among those no other withdrawal holds).
 * @throws InsufficientFundsError when none is
 */
function exitNote(ctx: AgentContext, amount: bigint): StoredNote {
  // Not a note another withdrawal is spending, or may have spent.
  const busy = new Set(
    ctx.bookkeeping.spendLedger
      .entries()
      .filter((e) => e.kind === 'withdrawal' && (e.status === 'reserved' || e.status === 'left'))
      .map((e) => e.note),
  );
  const notes = spendableNotes(ctx.wallet).filter((n) => !busy.has(n.commitment));
  const fits = notes
    .filter((n) => {
      const change = BigInt(n.value) - amount;
      return change === 0n || change >= MIN_OUTPUT_VALUE;
    })
    .sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1));
  if (fits[0]) return fits[0];
  const largest = notes.reduce((m, n) => (BigInt(n.value) > m ? BigInt(n.value) : m), 0n);
  const total = notes.reduce((sum, n) => sum + BigInt(n.value), 0n);
  throw new InsufficientFundsError(amount, total, largest);
}

/**
 * The wallet's exit of the reserved withdrawal through the pool node.
 * @returns the pool's id of the exit
 * @throws what the wallet threw: the reservation released when nothing was applied, kept counted
 *   (its outcome unknown, said in the message) when the exit may have been
 */
async function exitThroughPool(
  ctx: AgentContext,
  entry: SpendEntry,
  intent: WithdrawalIntent,
  note: StoredNote,
): Promise<string> {
  const { destination, amount } = intent;
  try {
    const { transaction } = await ctx.wallet.exit(destination, amount, { note: note.commitment });
    return transaction;
  } catch (error) {
    // Anything but the pool node's answer happened before the request left (the wallet's checks,
    // the proof), and a 4xx from the pool applied nothing: released. No answer, a 5xx or
    // `duplicate_settlement` (this very exit, applied) may have left: counted until a sync tells.
    const refused =
      !(error instanceof PoolNodeError) ||
      (error.status >= 400 && error.status < 500 && error.code !== 'duplicate_settlement');
    if (refused) ctx.bookkeeping.spendLedger.release(entry.id);
    else ctx.bookkeeping.spendLedger.markWithdrawalUnknown(entry.id);
    await ctx.bookkeeping.saveIfPossible();
    if (refused || !(error instanceof PoolNodeError)) throw error;
    error.message += ` — the withdrawal of ${amount} may have been applied: it counts against the 24-hour limit until a sync shows its note spent, or ${iso((entry.expiry ?? 0) * 1000)} passes with the note unspent`;
    throw error;
  }
}
