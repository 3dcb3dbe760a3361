/**
 * @module A note transition through the pool node (`POST /transitions`): a merge, a split or an
 * exit of notes, proven by their owner with the transition statement. Both nullifiers, both outputs
 * and one event are applied in one atomic step; an exit is recorded as a `withdrawal` event for the
 * operator's payout process (`payout.ts`).
 */

import type { TransitionPublicInputs } from '../core/index.js';
import {
  isCanonicalDigest,
  checkDestination,
  exitContext,
  expiryStatus,
  MAX_PROOF_BYTES,
  parseAmount,
  TRANSFER_MAX_TIMEOUT_SECONDS,
  transitionContext,
} from '../scheme/index.js';
import { anchorRefusal, commitRefusal, type LedgerContext, nowSeconds } from './context.js';
import { type LedgerRejection, reject } from './errors.js';
import { transitionId } from './notes.js';
import type { SpentNullifier } from './store.js';

/**
 * A transition (merge or split) through the pool node: its proof (inline), the public inputs it
 * claims and its expiry; the ledger recomputes the context digest from the pool and the expiry.
 */
export interface NoteTransitionInput {
  readonly proof: Uint8Array;
  readonly publicInputs: Omit<TransitionPublicInputs, 'ctx'>;
  readonly expiry: number;
  /** An exit's destination (CAIP-10, required when `exit > 0`); absent for a merge or split. */
  readonly destination?: string;
}

/** A transition applied: its id (the nullifiers' row) and the leaves of its two outputs. */
export interface NoteTransitionAccepted {
  readonly ok: true;
  readonly transitionId: string;
  readonly eventId: number;
  readonly outputIndexes: readonly [number, number];
}

/** What {@link noteTransition} returns. */
export type NoteTransitionResult = NoteTransitionAccepted | LedgerRejection;

/**
 * Applies a note transition (`Ledger.noteTransition`): shapes, neither nullifier spent, expiry
 * within {@link TRANSFER_MAX_TIMEOUT_SECONDS}, the anchor a checkpoint, the transition proof
 * against the context recomputed here; then both nullifiers, both outputs and one event in one
 * atomic step. A retry of an applied transition learns its id (`duplicate_settlement`). An exit
 * (`exit > 0`) names its destination (a supported CAIP-10 account id, else `invalid_destination`),
 * bound into its context with the amount.
 * @throws PoolUnavailableError when the store fails
 */
export async function noteTransition(
  context: LedgerContext,
  input: NoteTransitionInput,
): Promise<NoteTransitionResult> {
  if (typeof input !== 'object' || input === null) return reject('invalid_payload');
  const { proof, publicInputs: claimed, expiry } = input;
  if (!isWellFormed(context, claimed)) return reject('invalid_payload');
  const exiting = claimed.exit !== '0';
  if (exiting !== (input.destination !== undefined)) return reject('invalid_payload');
  if (exiting && !checkDestination(input.destination).ok) return reject('invalid_destination');
  const [first, second] = claimed.nullifiers;
  const id = transitionId(first);
  // 1. A spent nullifier first: a retry of this very transition learns its id.
  for (const nullifier of [first, second]) {
    const spent = await context.spent(nullifier);
    if (spent && (await isThisTransition(context, spent, id, claimed.outputs)))
      return reject('duplicate_settlement', { settlementId: id });
    if (spent) return reject('nullifier_already_spent');
  }
  if (!(proof instanceof Uint8Array) || proof.length === 0 || proof.length > MAX_PROOF_BYTES)
    return reject('invalid_payload');
  if (!Number.isSafeInteger(expiry) || expiry < 0) return reject('invalid_payload');
  const status = expiryStatus(expiry, nowSeconds(context), TRANSFER_MAX_TIMEOUT_SECONDS);
  if (status !== 'ok') return reject(status);
  // 2. The context, recomputed from this pool and the expiry; the anchor; the proof.
  const pool = { network: context.pool.network, asset: context.pool.asset };
  const ctx = context.core.contextDigest(
    exiting
      ? exitContext(pool, input.destination ?? '', claimed.exit, expiry)
      : transitionContext(pool, expiry),
  );
  const anchor = await anchorRefusal(context, claimed.root, TRANSFER_MAX_TIMEOUT_SECONDS);
  if (anchor !== null) return reject(anchor);
  const pi: TransitionPublicInputs = { ...claimed, ctx };
  const verdict = await context.verifyTransition(proof, pi);
  if (!verdict.ok) return reject('invalid_priv_stark_proof');
  // 3. One atomic step: both nullifiers, both outputs, the event, the proof archived.
  const result = await context.commit({
    kind: 'transition',
    transitionId: id,
    nullifiers: [first, second],
    outputs: [claimed.outputs[0], claimed.outputs[1]],
    memo: [claimed.memo[0], claimed.memo[1]],
    exit: claimed.exit,
    destination: exiting ? (input.destination ?? null) : null,
    refund: claimed.refund,
    proof: { root: pi.root, ctx: pi.ctx, bytes: proof },
  });
  if (result.ok && result.kind === 'transition')
    return {
      ok: true,
      transitionId: result.transitionId,
      eventId: result.eventId,
      outputIndexes: result.outputIndexes,
    };
  if (!result.ok && result.reason === 'nullifier_already_spent') {
    const spent = await context.spent(first);
    if (spent && (await isThisTransition(context, spent, id, claimed.outputs)))
      return reject('duplicate_settlement', { settlementId: id });
  }
  return commitRefusal(result);
}

/**
 * Whether the claimed public inputs have the transition's shape: two distinct canonical
 * nullifiers, two canonical outputs, a canonical root and refund, two memo field elements, and an
 * exit of `0` or an amount.
 */
function isWellFormed(
  context: LedgerContext,
  claimed: NoteTransitionInput['publicInputs'],
): boolean {
  if (typeof claimed !== 'object' || claimed === null) return false;
  const { core } = context;
  const digests = [claimed.root, ...(claimed.nullifiers ?? []), ...(claimed.outputs ?? [])];
  return !(
    claimed.nullifiers?.length !== 2 ||
    claimed.outputs?.length !== 2 ||
    claimed.memo?.length !== 2 ||
    !digests.every((digest) => isCanonicalDigest(core, digest)) ||
    !claimed.memo.every((element) => isFieldElement(element)) ||
    !isCanonicalDigest(core, claimed.refund) ||
    claimed.nullifiers[0] === claimed.nullifiers[1] ||
    (claimed.exit !== '0' && parseAmount(claimed.exit) === null)
  );
}

/**
 * Whether the transition that spent a nullifier is the one claimed (same id, same outputs): two
 * transitions of one first note share an id, and only a retry of the applied one may learn it
 * went through.
 */
async function isThisTransition(
  context: LedgerContext,
  spent: SpentNullifier,
  id: string,
  outputs: readonly string[],
): Promise<boolean> {
  if (spent.settlementId !== id) return false;
  const [event] = await context.store.events(spent.eventId - 1, 1);
  return (
    (event?.kind === 'transition' || event?.kind === 'withdrawal') &&
    event.outputs[0] === outputs[0] &&
    event.outputs[1] === outputs[1]
  );
}

/** A decimal string of a canonical field element. */
function isFieldElement(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    /^(0|[1-9][0-9]{0,19})$/.test(value) &&
    BigInt(value) < 0xffffffff00000001n
  );
}
