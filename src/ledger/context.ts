/**
 * @module What the ledger's operations share — deposit, settle, hand-over, transfer, note
 * transition, payout, one module each — and the questions they all ask the same way: the core, the
 * store, this pool's identity, payment rules and clock, the group commit and the proof verifiers
 * (each in its span: `traced-ledger.ts`), the cache of published roots. `Ledger` builds one context
 * and hands it to every operation.
 */

import {
  CoreError,
  type PrivStarkCore,
  type SpendPublicInputs,
  type TransitionPublicInputs,
  type VerifyResult,
} from '../core/index.js';
import { type EpochGrid, maxAnchorAgeMs } from '../scheme/epoch-grid.js';
import type { PaymentRules, PoolIdentity } from '../scheme/index.js';
import type { CommitResult } from './committer.js';
import { isLedgerReason, type LedgerRejection, reject } from './errors.js';
import type { PoolStore, SpentNullifier, StoreOp } from './store.js';

/** What the pool needs from the core: hashing, the tree, the context digest, addresses, the verifier. */
export type LedgerCore = Pick<
  PrivStarkCore,
  | 'hashElements'
  | 'parseDigest'
  | 'emptyFrontier'
  | 'frontierAppend'
  | 'contextDigest'
  | 'decodeAddress'
  | 'verifySpend'
  | 'verifyTransition'
  | 'proofReference'
>;

/** What every operation of the ledger works with. */
export interface LedgerContext {
  readonly core: LedgerCore;
  readonly store: PoolStore;
  /** The scheme, network and asset this pool accepts. */
  readonly pool: PoolIdentity;
  /** The payment rules of this pool: what they passed is not checked again. */
  readonly rules: PaymentRules;
  /** The pool's clock, unix ms. */
  readonly clock: () => number;
  /**
   * The settlement that spent a nullifier, `null` while unspent: the ledger's own `spent`, the one
   * way every operation asks the store this question.
   */
  readonly spent: (nullifier: string) => Promise<SpentNullifier | null>;
  /** Submits one op to the group committer; resolves once its group is durable. */
  readonly commit: (op: StoreOp, expiry?: number) => Promise<CommitResult>;
  /** A spend proof's verdict as a rejection, `null` when it holds ({@link verifySpendProof}). */
  readonly verifySpend: (
    proof: Uint8Array,
    pi: SpendPublicInputs,
  ) => Promise<LedgerRejection | null>;
  /** {@link verifySpend} for a handed-over proof (`LedgerOptions.verifyHandOver`). */
  readonly verifyHandOver: (
    proof: Uint8Array,
    pi: SpendPublicInputs,
  ) => Promise<LedgerRejection | null>;
  /** A transition proof's verdict, as the core gives it. */
  readonly verifyTransition: (
    proof: Uint8Array,
    pi: TransitionPublicInputs,
  ) => Promise<VerifyResult>;
  /** Handed-over proofs the store may hold at once. */
  readonly proofStoreCapacity: number;
  /** Parameter sets whose handed-over verdicts still count (`undefined`: every set). */
  readonly acceptedParameterSets: readonly number[] | undefined;
  /** Roots known to be published checkpoints (only positive answers: checkpoints stay valid). */
  readonly knownRoots: Set<string>;
  /** The epoch grid checkpoints are cut on; anchors older than it allows are refused. */
  readonly epoch: EpochGrid;
  /** Anchors looked up for their age: the checkpoint's seq and time, its successor's time once known. */
  readonly anchorAges: Map<string, AnchorAge>;
}

/** What the age rule knows of an anchor (a successor never changes once published). */
export interface AnchorAge {
  readonly seq: number;
  readonly time: number;
  successorTime: number | null;
}

const KNOWN_ROOTS_MAX = 4096;

/** The pool's clock in unix seconds (the unit of a payment's expiry). */
export function nowSeconds(context: LedgerContext): number {
  return Math.floor(context.clock() / 1000);
}

/** Whether `root` is a published checkpoint (positive answers are cached: checkpoints stay valid). */
export async function isCheckpoint(context: LedgerContext, root: string): Promise<boolean> {
  const { knownRoots } = context;
  if (knownRoots.has(root) || context.anchorAges.has(root)) return true;
  const checkpoint = await context.store.checkpointByRoot(root);
  if (checkpoint === null) return false;
  if (knownRoots.size >= KNOWN_ROOTS_MAX) knownRoots.clear();
  knownRoots.add(root);
  return true;
}

/**
 * Whether `root` may anchor a payment or a transition whose proof lives `maxTimeoutSeconds`:
 * `unknown_root` when it is no checkpoint; `root_too_old` when it is older than
 * `maxAnchorAgeMs` (E + D + maxTimeoutSeconds + slack) and was superseded more than that less an
 * epoch ago (a quiet pool's newest checkpoint stays the anchor every wallet chooses, however
 * old); `null` when it may. Only an anchor past its age asks the store a second question.
 */
export async function anchorRefusal(
  context: LedgerContext,
  root: string,
  maxTimeoutSeconds: number,
): Promise<'unknown_root' | 'root_too_old' | null> {
  const { anchorAges } = context;
  let age = anchorAges.get(root);
  if (age === undefined) {
    const checkpoint = await context.store.checkpointByRoot(root);
    if (checkpoint === null) return 'unknown_root';
    if (anchorAges.size >= KNOWN_ROOTS_MAX) anchorAges.clear();
    age = { seq: checkpoint.seq, time: checkpoint.time, successorTime: null };
    anchorAges.set(root, age);
  }
  const now = context.clock();
  const limit = maxAnchorAgeMs(context.epoch, Math.max(0, maxTimeoutSeconds));
  if (now - age.time <= limit) return null;
  if (age.successorTime === null) {
    const [next] = await context.store.checkpoints(age.seq, 1);
    if (next === undefined) return null;
    age.successorTime = next.time;
  }
  return now - age.successorTime > limit - context.epoch.epochMs ? 'root_too_old' : null;
}

/**
 * A spend proof's verdict as a rejection, `null` when it holds: a proof the core refuses, or
 * cannot read, is `invalid_priv_stark_proof`; a fault of the core itself throws.
 */
export async function verifySpendProof(
  core: LedgerCore,
  proof: Uint8Array,
  pi: SpendPublicInputs,
): Promise<LedgerRejection | null> {
  let verdict: VerifyResult;
  try {
    verdict = await core.verifySpend(proof, pi);
  } catch (error) {
    if (error instanceof CoreError && error.code !== 'internal_panic')
      return reject('invalid_priv_stark_proof');
    if (error instanceof TypeError || error instanceof RangeError)
      return reject('invalid_priv_stark_proof');
    throw error;
  }
  return verdict.ok ? null : reject('invalid_priv_stark_proof');
}

/**
 * A commit that did not apply, as the ledger's rejection: the store's own reason when it is one
 * of the ledger's, `invalid_payload` otherwise (and for a result of another op's kind).
 */
export function commitRefusal(result: CommitResult): LedgerRejection {
  return reject(result.ok || !isLedgerReason(result.reason) ? 'invalid_payload' : result.reason);
}
