/**
 * @module A settlement: a payment's proof applied to the pool, in the order `/settle` answers in
 * (docs/pool.md, "The settlement"). The payment's fields must match the proof's public inputs, its
 * anchor be a published checkpoint, its expiry not have passed by the pool's own clock, and the
 * pool itself verifies the proof (or, for a reference, holds its hand-over's verdict); the pool
 * then derives the recipient note and, in one atomic step, inserts the nullifier, appends the
 * change note and the recipient note and records the event. Identical settlements in flight are
 * verified once. A settle the caller's own checks refused is answered here too ({@link refuse}).
 */

import type {
  DigestHex,
  PaymentContext,
  ProofReference,
  SpendPublicInputs,
} from '../core/index.js';
import { type CheckedPayment, isCanonicalDigest } from '../scheme/index.js';
import { commitRefusal, isCheckpoint, type LedgerContext, nowSeconds } from './context.js';
import { type LedgerRejection, reject } from './errors.js';
import { handedOverMatches } from './hand-over.js';
import { recipientNote, settlementId } from './notes.js';
import type { SpentNullifier } from './store.js';

/**
 * A settlement: the proof — inline, or the reference of a proof handed over (exactly one) — its
 * public inputs, and the payment it pays. A {@link CheckedPayment} the ledger's own rules made is
 * one too, and is not checked again.
 */
export interface SettlementInput {
  readonly proof?: Uint8Array | null | undefined;
  readonly reference?: ProofReference | null | undefined;
  readonly publicInputs: SpendPublicInputs;
  /** The payment fields the proof is bound to; `payTo` is the recipient's shielded address. */
  readonly payment: PaymentContext;
}

/** An applied settlement. */
export interface SettlementAccepted {
  readonly ok: true;
  /** Deterministic in the nullifier: x402's `transaction`. */
  readonly settlementId: string;
  readonly eventId: number;
  readonly nullifier: DigestHex;
  readonly changeIndex: number;
  readonly recipientIndex: number;
  readonly recipientNote: DigestHex;
}

/** What {@link settle} returns. */
export type SettleResult = SettlementAccepted | LedgerRejection;

/** What {@link refuse} returns: the original settlement, or the caller's own reason. */
export type SettleRefusal<R extends string> =
  | LedgerRejection
  | { readonly ok: false; readonly reason: R };

/** The context of settlements: the ledger's, and the settlements in flight by nullifier. */
export interface SettleContext extends LedgerContext {
  /** Settlements being verified and committed in this process, by nullifier (settle-once). */
  readonly inFlight: Map<string, Promise<SettleResult>>;
}

/**
 * Applies a settlement (`Ledger.settle`): a nullifier that has settled is answered first, whatever
 * else the settlement fails; then — unless the ledger's own payment rules passed it already (a
 * {@link CheckedPayment} they vouch for) — the rules: the carried proof or reference, shapes, this
 * pool's scheme, network and asset, the proof's amount and context digest against the payment,
 * expiry by the pool's clock; then the anchor, then the proof — verified here when it is inline,
 * or, for a reference, the verdict of its hand-over, whose public inputs must be exactly these; the
 * commit re-checks the nullifier under the store's lock and expiry at its time. Each question goes
 * to the store once (a reference that matches no stored proof asks the nullifier again: its
 * settlement may have dropped the row).
 * @throws PoolUnavailableError when the store fails
 */
export async function settle(
  context: SettleContext,
  input: SettlementInput | CheckedPayment,
): Promise<SettleResult> {
  if (context.rules.vouchesFor(input)) {
    // 1. A settled nullifier wins over every other refusal (the rules passed everything else).
    const spent = await context.spent(input.publicInputs.nullifier);
    if (spent) return spentRefusal(input.publicInputs.nullifier, spent);
    return settleOnce(context, input);
  }
  if (typeof input !== 'object' || input === null) return reject('invalid_payload');
  const { publicInputs: pi } = input;
  if (typeof pi !== 'object' || pi === null || !isCanonicalDigest(context.core, pi.nullifier))
    return reject('invalid_payload');
  // 1. A settled nullifier wins over every other refusal.
  const spent = await context.spent(pi.nullifier);
  if (spent) return spentRefusal(pi.nullifier, spent);
  // 2.–5. The rules: the carried proof, shapes, this pool, the payment against the proof's
  // inputs (its claimed context digest too), expiry.
  const checked = context.rules.check(
    {
      proof: input.proof,
      reference: input.reference,
      publicInputs: pi,
      payment: input.payment,
    },
    { now: nowSeconds(context) },
  );
  if (!checked.ok) return reject(checked.reason);
  return settleOnce(context, checked);
}

/**
 * The rest of a settlement the rules passed, its nullifier unspent: identical settlements
 * arriving together are verified once (later ones wait for the first), then the anchor, the
 * proof and the commit.
 */
export async function settleOnce(
  context: SettleContext,
  checked: CheckedPayment,
): Promise<SettleResult> {
  const { inFlight } = context;
  const { nullifier } = checked.publicInputs;
  const running = inFlight.get(nullifier);
  if (running) {
    const first = await running.catch(() => null);
    if (first?.ok) return reject('duplicate_settlement', { settlementId: first.settlementId });
  }
  const attempt = anchorVerifyCommit(context, checked);
  inFlight.set(nullifier, attempt);
  try {
    return await attempt;
  } finally {
    if (inFlight.get(nullifier) === attempt) inFlight.delete(nullifier);
  }
}

async function anchorVerifyCommit(
  context: LedgerContext,
  checked: CheckedPayment,
): Promise<SettleResult> {
  const { publicInputs: pi, payment } = checked;
  // 6. The anchor is a checkpoint.
  if (!(await isCheckpoint(context, pi.root))) return reject('unknown_root');
  // 7. The proof: verified here when inline; a reference's hand-over verdict otherwise.
  if (checked.proof !== null) {
    const refused = await context.verifySpend(checked.proof, pi);
    if (refused !== null) return refused;
  } else if (!(await handedOverMatches(context, checked.reference!, pi))) {
    // A settlement drops its nullifier's proofs in its commit: a settle that raced it (nullifier
    // looked up before that commit, reference after — another process) finds no row, and must
    // still learn it is a duplicate with the original transaction. Asked on this path only.
    const spent = await context.spent(pi.nullifier);
    if (spent) return spentRefusal(pi.nullifier, spent);
    return reject('unknown_proof_reference');
  }
  // 8. The recipient note, derived by the pool from the recipient's owner and the nullifier.
  const note = recipientNote(context.core, checked.amount, checked.owner, pi.nullifier);
  // 9. One atomic step: nullifier, change, recipient note, event, the proof archived (and the
  // nullifier's handed-over proofs go).
  const id = settlementId(pi.nullifier);
  const result = await context.commit(
    {
      kind: 'settlement',
      nullifier: pi.nullifier,
      settlementId: id,
      change: pi.change,
      recipientNote: note,
      recipient: payment.payTo,
      amount: payment.amount,
      proof: {
        root: pi.root,
        ctx: pi.ctx,
        ...(checked.proof !== null ? { bytes: checked.proof } : { reference: checked.reference! }),
      },
    },
    payment.expiry,
  );
  if (result.ok && result.kind === 'settlement') {
    return {
      ok: true,
      settlementId: result.settlementId,
      eventId: result.eventId,
      nullifier: pi.nullifier,
      changeIndex: result.changeIndex,
      recipientIndex: result.recipientIndex,
      recipientNote: result.recipientNote,
    };
  }
  if (!result.ok && result.reason === 'duplicate_settlement') {
    // Spent in the meantime — by a payment (this one, settled by another instance) or by a
    // note transition, which settles no payment.
    const spent = await context.spent(pi.nullifier);
    return spent
      ? spentRefusal(pi.nullifier, spent)
      : reject('duplicate_settlement', { settlementId: result.settlementId });
  }
  return commitRefusal(result);
}

/**
 * Refuses a settlement the caller's own checks refused (`Ledger.refuse`) — unless its nullifier
 * has settled: that answer wins, as in {@link settle}, so a resource server that lost a settle's
 * reply and retries later learns it was paid. The answer tells nothing new: the settlement id is
 * a hash of the nullifier.
 * @throws PoolUnavailableError when the store fails (which answer is right cannot be told)
 */
export async function refuse<R extends string>(
  context: LedgerContext,
  nullifier: unknown,
  reason: R,
): Promise<SettleRefusal<R>> {
  if (isCanonicalDigest(context.core, nullifier)) {
    const spent = await context.spent(nullifier);
    if (spent) return spentRefusal(nullifier, spent);
  }
  return { ok: false, reason };
}

/**
 * The answer to a payment whose nullifier is spent: its own settlement — `duplicate_settlement`
 * with the id, so a retry learns it went through — when the nullifier row names the payment's id,
 * otherwise `nullifier_already_spent`: a note transition spent the note, and no payment was
 * settled.
 */
export function spentRefusal(nullifier: string, spent: SpentNullifier): LedgerRejection {
  return spent.settlementId === settlementId(nullifier)
    ? reject('duplicate_settlement', { settlementId: spent.settlementId })
    : reject('nullifier_already_spent');
}
