/**
 * @module The privacy pool's ledger: its rules, whoever calls it. A settlement is accepted only if
 * its payment fields match the proof's public inputs, its anchor is a published checkpoint, its
 * expiry has not passed by the pool's own clock, and the pool itself verifies the proof with the
 * core; the pool then derives the recipient note itself and, in one atomic step, inserts the
 * nullifier, appends the change note and the recipient note and records the event. A deposit's
 * commitment is computed by the pool from the amount and precommitment, so the hidden value is what
 * was paid in.
 *
 * Rule rejections are returned as data ({@link LedgerRejection}); a store failure throws
 * {@link PoolUnavailableError}.
 */

import type { DigestHex, SpendPublicInputs } from '../core/index.js';
import {
  DEVNET_NETWORK,
  MAX_LIVE_PROOFS_PER_NULLIFIER,
  SCHEME,
  TRANSFER_MAX_TIMEOUT_SECONDS,
  TRANSFER_RESOURCE_ID,
} from '../scheme/index.js';
import { inSpan, type SpanFacts } from '../tracing/spans.js';
import { CheckpointTimer } from './checkpoint-timer.js';
import { type CommitResult, GroupCommitter } from './committer.js';
import { isCheckpoint, type LedgerCore, verifySpendProof } from './context.js';
import { type DepositInput, type DepositResult, deposit } from './deposit.js';
import { PoolUnavailableError } from './errors.js';
import {
  type HandOverInput,
  type HandOverResult,
  handedOverMatches,
  handOver,
} from './hand-over.js';
import {
  type NoteTransitionInput,
  type NoteTransitionResult,
  noteTransition,
} from './note-transition.js';
import { type PayoutResult, payout } from './payout.js';
import {
  refuse,
  type SettleContext,
  type SettlementInput,
  type SettleRefusal,
  type SettleResult,
  settle,
} from './settle.js';
import { type TransferInput, transfer } from './transfer.js';
import type {
  Checkpoint,
  PayoutStatus,
  PoolEvent,
  PoolStore,
  SpentNullifier,
  StoreOp,
  StoreState,
  WithdrawalRecord,
} from './store.js';

/** Options of {@link Ledger}. */
export interface LedgerOptions {
  readonly core: LedgerCore;
  readonly store: PoolStore;
  /** The scheme, network and asset this pool accepts (default: the profile's devnet pool). */
  readonly scheme?: string;
  readonly network?: string;
  readonly asset?: string;
  /** Checkpoint cadence, ms (default 2000, `CHECKPOINT_INTERVAL_MS`). */
  readonly checkpointIntervalMs?: number;
  /** The pool's clock, unix ms (default `Date.now`). */
  readonly clock?: () => number;
  /** Most ops in one group commit (default 512). */
  readonly maxGroup?: number;
  /** Errors of the checkpoint timer (the store was unreachable); the timer keeps running. */
  readonly onTimerError?: (error: unknown) => void;
  /** Handed-over proofs the store may hold at once (default 10000, `PROOF_STORE_MAX`). */
  readonly proofStoreCapacity?: number;
  /**
   * Parameter sets whose handed-over verdicts still count; a stored proof of another set is an
   * unknown reference. Default: every set the verifier accepted at hand-over.
   */
  readonly acceptedParameterSets?: readonly number[] | undefined;
}

/** The ledger in a health report (priv-stark-v1 §4 `/health`). */
export interface LedgerHealth {
  readonly kind: 'sqlite' | 'postgres';
  readonly ok: boolean;
  /** Leaves in the tree, `null` when the store did not answer. */
  readonly leaves: number | null;
  /** Sequence number of the latest checkpoint. */
  readonly checkpoint: number | null;
}

/** The reason of a refusal, for its span (`null` when accepted). */
const reasonOf = (result: { readonly ok: boolean; readonly reason?: string }) =>
  result.ok ? null : (result.reason ?? null);

/** Whether a settlement carries its proof or a reference, for its span. */
function transportOf(input: unknown): SpanFacts {
  const inline = typeof input === 'object' && input !== null && 'proof' in input;
  return { 'priv_stark.transport': inline && input.proof !== undefined ? 'inline' : 'reference' };
}

/**
 * The ledger of the privacy pool. One per process over a shared store; any number of processes
 * may share one store.
 * @example
 * const ledger = new Ledger({ core, store });
 * ledger.start(); // the checkpoint timer
 * const result = await ledger.settle({ proof, publicInputs, payment });
 * if (!result.ok) console.log(result.reason);
 */
export class Ledger {
  readonly store: PoolStore;
  readonly scheme: string;
  readonly network: string;
  readonly asset: string;
  readonly checkpointIntervalMs: number;
  private readonly core: LedgerCore;
  private readonly clock: () => number;
  private readonly committer: GroupCommitter;
  private readonly timer: CheckpointTimer;
  private readonly proofStoreCapacity: number;
  private readonly acceptedParameterSets: readonly number[] | undefined;
  /** What the ledger's operations share. */
  private readonly context: SettleContext;

  constructor(options: LedgerOptions) {
    this.core = options.core;
    this.store = options.store;
    this.scheme = options.scheme ?? SCHEME;
    this.network = options.network ?? DEVNET_NETWORK.network;
    this.asset = options.asset ?? DEVNET_NETWORK.asset;
    this.checkpointIntervalMs = options.checkpointIntervalMs ?? 2000;
    this.clock = options.clock ?? Date.now;
    this.committer = new GroupCommitter(this.store, this.clock, options.maxGroup ?? 512);
    this.timer = new CheckpointTimer(
      this.store,
      this.clock,
      this.checkpointIntervalMs,
      options.onTimerError ?? (() => undefined),
    );
    this.proofStoreCapacity = options.proofStoreCapacity ?? 10_000;
    this.acceptedParameterSets = options.acceptedParameterSets;
    const { core, committer, clock } = this;
    this.context = {
      core,
      store: this.store,
      pool: { scheme: this.scheme, network: this.network, asset: this.asset },
      clock,
      commit: (op, expiry) =>
        inSpan('ledger.commit', () => committer.submit(op, expiry), { reasonOf }),
      verifySpend: (proof, pi) =>
        inSpan('proof.verify', () => verifySpendProof(core, proof, pi), {
          leaf: true,
          reasonOf: (refused) => refused?.reason ?? null,
        }),
      verifyTransition: (proof, pi) =>
        inSpan('proof.verify', () => core.verifyTransition(proof, pi), { leaf: true }),
      proofStoreCapacity: this.proofStoreCapacity,
      acceptedParameterSets: this.acceptedParameterSets,
      knownRoots: new Set(),
      inFlight: new Map(),
    };
  }

  /** Starts the checkpoint timer (idempotent). It does not keep the process alive. */
  start(): void {
    this.timer.start();
  }

  /** Stops the timer and waits for pending commits. Does not close the store. */
  async stop(): Promise<void> {
    this.timer.stop();
    await this.committer.idle();
  }

  /**
   * Publishes the current root now if the tree changed since the latest checkpoint (the timer
   * does this on its own; tests and the operator call it directly).
   */
  checkpoint(): Promise<Checkpoint | null> {
    return this.store.checkpoint(this.clock(), 0);
  }

  /** Whether `root` is a published checkpoint (positive answers are cached: checkpoints stay valid). */
  isCheckpoint(root: string): Promise<boolean> {
    return isCheckpoint(this.context, root);
  }

  /** The settlement that spent `nullifier`, or `null` while it is unspent. */
  spent(nullifier: string): Promise<SpentNullifier | null> {
    return this.store.nullifier(nullifier);
  }

  /** The pool's part of a health report; never throws. */
  async health(): Promise<LedgerHealth> {
    try {
      const state = await this.store.state();
      return {
        kind: this.store.kind,
        ok: true,
        leaves: state.size,
        checkpoint: state.checkpoint?.seq ?? null,
      };
    } catch {
      return { kind: this.store.kind, ok: false, leaves: null, checkpoint: null };
    }
  }

  /** The ledger's head. */
  state(): Promise<StoreState> {
    return this.store.state();
  }

  /** Handed-over proofs stored now. */
  proofCount(): Promise<number> {
    return this.store.proofCount();
  }

  /** Checkpoints after a cursor. */
  checkpoints(after: number, limit: number): Promise<Checkpoint[]> {
    return this.store.checkpoints(after, limit);
  }

  /** Commitments from a leaf index. */
  leaves(from: number, limit: number): Promise<DigestHex[]> {
    return this.store.leaves(from, limit);
  }

  /** Events after a cursor. */
  events(after: number, limit: number): Promise<PoolEvent[]> {
    return this.store.events(after, limit);
  }

  /**
   * Shields funds: computes `cm = H_NOTE(amount ‖ pre)` and appends it.
   * @returns the commitment and its leaf index, or `invalid_payload`, `amount_out_of_range`,
   *   `duplicate_commitment`, `tree_full`
   * @throws PoolUnavailableError when the store fails
   */
  deposit(input: DepositInput): Promise<DepositResult> {
    return deposit(this.context, input);
  }

  /**
   * Applies a settlement (the pool's own rule; see the module comment), in the order
   * docs/facilitator.md gives for `/settle`: a nullifier that has settled is answered first,
   * whatever else the settlement fails; then shapes, this pool's scheme, network and asset, the
   * proof's amount and context digest against the payment, expiry by the pool's clock, the anchor,
   * then the proof — verified here when it is inline, or, for a reference, the verdict of its
   * hand-over, whose public inputs must be exactly these; the commit re-checks the nullifier under
   * the store's lock and expiry at its time. Each question goes to the store once (a reference
   * that matches no stored proof asks the nullifier again: its settlement may have dropped the row).
   * @returns the settlement, or a rejection: `duplicate_settlement` (with the original id),
   *   `invalid_payload`, `unsupported_scheme`, `unsupported_network`, `unsupported_asset`,
   *   `payment_requirements_mismatch`, `payment_expired`, `unknown_root`,
   *   `unknown_proof_reference`, `invalid_priv_stark_proof`, `tree_full`
   * @throws PoolUnavailableError when the store fails (nothing applied, or — if the commit itself
   *   failed — possibly applied: a retry then reports `duplicate_settlement`)
   */
  settle(input: SettlementInput): Promise<SettleResult> {
    return inSpan('ledger.settle', () => settle(this.context, input), {
      facts: transportOf(input),
      reasonOf,
    });
  }

  /**
   * Refuses a settlement the caller's own checks refused (the facilitator's policy, expiry window,
   * `accepted` against the requirements, …) — unless its nullifier has settled: that answer wins,
   * as in {@link settle}, so a resource server that lost a settle's reply and retries later learns
   * it was paid. The answer tells nothing new: the settlement id is a hash of the nullifier.
   * @returns `duplicate_settlement` with the original id, or the caller's `reason`
   * @throws PoolUnavailableError when the store fails (which answer is right cannot be told)
   */
  refuse<R extends string>(nullifier: unknown, reason: R): Promise<SettleRefusal<R>> {
    return inSpan('ledger.refuse', () => refuse(this.context, nullifier, reason), { reasonOf });
  }

  /**
   * Keeps a proof handed over before a compact payment (docs/compact-payments.md), refusing before
   * storing anything, cheapest first: shapes and encodings, this pool, the payment against the
   * proof's amount (ctx recomputed from the payment sent with it), expiry, the anchor, an unspent
   * nullifier, then the proof (Plonky3 checks its proof of work first). The stored row is the
   * verdict `/verify` and `/settle` use for its reference; it is kept until
   * `min(expiry, now + cap) + grace`, removed when its nullifier settles, at most
   * {@link MAX_LIVE_PROOFS_PER_NULLIFIER} per nullifier and {@link LedgerOptions.proofStoreCapacity}
   * in all. Handing the same proof over again answers the same reference.
   * @returns the reference and when it is dropped, or a rejection: `invalid_payload`,
   *   `unsupported_scheme`, `unsupported_network`, `unsupported_asset`,
   *   `payment_requirements_mismatch`, `payment_expired`, `unknown_root`,
   *   `nullifier_already_spent`, `invalid_priv_stark_proof`, `too_many_proofs`, `proof_store_full`
   * @throws PoolUnavailableError when the store fails (nothing stored)
   */
  handOver(input: HandOverInput): Promise<HandOverResult> {
    return inSpan('ledger.hand_over', () => handOver(this.context, input), { reasonOf });
  }

  /**
   * Applies a transfer sent to the pool node (`POST /transfers`): a payment statement whose context
   * is the pool's transfer context — this pool's scheme, network and asset, `payTo` the recipient,
   * {@link TRANSFER_RESOURCE_ID}, an expiry at most {@link TRANSFER_MAX_TIMEOUT_SECONDS} ahead —
   * settled as any payment is ({@link settle}: one nullifier set, the same event, settle-once), the
   * proof verified here. A wallet keeps ready notes by transferring to itself (docs/client.md).
   * @returns the settlement, or a rejection: those of {@link settle} (the proof always inline) and
   *   `expiry_too_far`
   * @throws PoolUnavailableError when the store fails
   */
  transfer(input: TransferInput): Promise<SettleResult> {
    return inSpan('ledger.settle', () => transfer(this.context, input), {
      facts: { 'priv_stark.transport': 'inline' },
      reasonOf,
    });
  }

  /**
   * Applies a note transition (merge or split): shapes, neither nullifier spent, expiry within
   * {@link TRANSFER_MAX_TIMEOUT_SECONDS}, the anchor a checkpoint, the transition proof against
   * the context recomputed here; then both nullifiers, both outputs and one event in one atomic
   * step. A retry of an applied transition learns its id (`duplicate_settlement`). An exit
   * (`exit > 0`) names its destination (a supported CAIP-10 account id, else
   * `invalid_destination`), bound into its context with the amount; it is recorded as a
   * `withdrawal` event for the operator's payout process ({@link payout}).
   * @throws PoolUnavailableError when the store fails
   */
  noteTransition(input: NoteTransitionInput): Promise<NoteTransitionResult> {
    return inSpan('ledger.note_transition', () => noteTransition(this.context, input), {
      reasonOf,
    });
  }

  /**
   * Records a step of a withdrawal's payout (the operator's payout process): `paying` durably
   * before paying, then `paid`, or `failed`, which appends the exit's proven refund note for its
   * owner. The withdrawal id is the idempotency key: the same step again is answered as before;
   * a step out of order is `payout_conflict`; an unknown id `unknown_withdrawal`.
   * @throws PoolUnavailableError when the store fails
   */
  payout(withdrawalId: string, status: PayoutStatus): Promise<PayoutResult> {
    return payout(this.context, withdrawalId, status);
  }

  /** Withdrawals after the cursor (an event id), oldest first, with their payout status. */
  withdrawals(after: number, limit: number): Promise<WithdrawalRecord[]> {
    return this.store.withdrawals(after, limit);
  }

  /**
   * Whether `reference` names a handed-over proof, still kept, of a parameter set still accepted,
   * whose public inputs are exactly `pi` — so its hand-over's verdict holds for this payment.
   * @throws PoolUnavailableError when the store fails
   */
  handedOverMatches(reference: string, pi: SpendPublicInputs): Promise<boolean> {
    return handedOverMatches(this.context, reference, pi);
  }

  /** Submits one op to the group committer; resolves once its group is durable. */
  private commit(op: StoreOp, expiry?: number): Promise<CommitResult> {
    return this.context.commit(op, expiry);
  }
}

export { PoolUnavailableError };
