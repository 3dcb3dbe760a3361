/**
 * @module A proof handed over before a compact payment (docs/compact-payments.md): checked,
 * verified and kept, so that `/verify` and `/settle` of its reference use its verdict
 * ({@link handedOverMatches}) instead of verifying again.
 */

import type { PaymentContext, ProofReference, SpendPublicInputs } from '../core/index.js';
import {
  type ClaimedInputs,
  HANDOVER_GRACE_SECONDS,
  HANDOVER_RETENTION_CAP_SECONDS,
  isProofReference,
  MAX_LIVE_PROOFS_PER_NULLIFIER,
} from '../scheme/index.js';
import { anchorRefusal, type LedgerContext, nowSeconds } from './context.js';
import { isLedgerReason, type LedgerRejection, reject } from './errors.js';

/** A proof handed over (compact payments): the root, nullifier, change and amount it claims, and
 * the payment it pays, from which the ledger recomputes its context digest. */
export interface HandOverInput {
  readonly proof: Uint8Array;
  readonly publicInputs: ClaimedInputs;
  readonly payment: PaymentContext;
}

/** A handed-over proof kept. */
export interface HandOverAccepted {
  readonly ok: true;
  readonly reference: ProofReference;
  /** Unix ms when it is dropped. */
  readonly expiresAt: number;
  /** False when the same proof had been handed over before. */
  readonly stored: boolean;
}

/** What {@link handOver} returns. */
export type HandOverResult = HandOverAccepted | LedgerRejection;

const RETENTION_CAP_GRANULARITY_SECONDS = 600;

/**
 * Keeps a handed-over proof (`Ledger.handOver`), refusing before storing anything, cheapest first:
 * shapes and encodings, this pool, the payment against the proof's amount (ctx recomputed from the
 * payment sent with it), expiry, the anchor, an unspent nullifier, then the proof (Plonky3 checks
 * its proof of work first). The stored row is the verdict `/verify` and `/settle` use for its
 * reference; it is kept until `min(expiry, now + cap) + grace`, removed when its nullifier settles,
 * at most {@link MAX_LIVE_PROOFS_PER_NULLIFIER} per nullifier and the context's
 * `proofStoreCapacity` in all. Handing the same proof over again answers the same reference.
 * @throws PoolUnavailableError when the store fails (nothing stored)
 */
export async function handOver(
  context: LedgerContext,
  input: HandOverInput,
): Promise<HandOverResult> {
  if (typeof input !== 'object' || input === null) return reject('invalid_payload');
  const { proof, publicInputs: claimed, payment } = input;
  if (typeof claimed !== 'object' || claimed === null) return reject('invalid_payload');
  // The rules, the context digest recomputed from the payment sent with the proof.
  const now = nowSeconds(context);
  const { root, nullifier, change, amount } = claimed;
  const checked = context.rules.check(
    { proof, publicInputs: { root, nullifier, change, amount }, payment },
    { now },
  );
  if (!checked.ok) return reject(checked.reason);
  const pi = checked.publicInputs;
  // A hand-over comes as its proof is made: the payment's life left stands for its maxTimeout.
  const anchor = await anchorRefusal(context, pi.root, checked.payment.expiry - now);
  if (anchor !== null) return reject(anchor);
  if (await context.spent(pi.nullifier)) return reject('nullifier_already_spent');
  const verdict = await context.verifyHandOver(proof, pi);
  if (verdict !== null) return verdict;
  const { reference, parameterSet } = context.core.proofReference(proof, pi);
  // The cap is rounded up to ten minutes: a stored row tells no finer time of its hand-over.
  const cap =
    Math.ceil((now + HANDOVER_RETENTION_CAP_SECONDS) / RETENTION_CAP_GRANULARITY_SECONDS) *
    RETENTION_CAP_GRANULARITY_SECONDS;
  const expiresAt = (Math.min(payment.expiry, cap) + HANDOVER_GRACE_SECONDS) * 1000;
  // Expiry is checked again at commit, as for a settlement: a payment that expired while its
  // proof was verified is refused rather than kept (it could serve nothing).
  const result = await context.commit(
    {
      kind: 'handover',
      reference,
      parameterSet,
      root: pi.root,
      nullifier: pi.nullifier,
      change: pi.change,
      amount: pi.amount,
      ctx: pi.ctx,
      proof,
      expiresAt,
      capacity: context.proofStoreCapacity,
      perNullifier: MAX_LIVE_PROOFS_PER_NULLIFIER,
    },
    payment.expiry,
  );
  if (result.ok && result.kind === 'handover') {
    return {
      ok: true,
      reference: result.reference,
      expiresAt: result.expiresAt,
      stored: result.stored,
    };
  }
  return reject(
    result.ok || result.reason === 'duplicate_settlement' || !isLedgerReason(result.reason)
      ? 'invalid_payload'
      : result.reason,
  );
}

/**
 * Whether `reference` names a handed-over proof, still kept, of a parameter set still accepted,
 * whose public inputs are exactly `pi` — so its hand-over's verdict holds for this payment.
 * @throws PoolUnavailableError when the store fails
 */
export async function handedOverMatches(
  context: LedgerContext,
  reference: string,
  pi: SpendPublicInputs,
): Promise<boolean> {
  if (!isProofReference(reference)) return false;
  const stored = await context.store.handedOver(reference);
  return (
    stored !== null &&
    stored.reference === reference &&
    stored.expiresAt > context.clock() &&
    (context.acceptedParameterSets?.includes(stored.parameterSet) ?? true) &&
    stored.nullifier === pi.nullifier &&
    stored.root === pi.root &&
    stored.change === pi.change &&
    stored.amount === pi.amount &&
    stored.ctx === pi.ctx
  );
}
