/**
 * @module The privacy pool's ledger: its rules, whoever calls it — the facilitator, the pool node,
 * the service. `Ledger` is the one public face of the operations, each in a module of its own
 * (`deposit.ts`, `settle.ts`, `hand-over.ts`, `transfer.ts`, `note-transition.ts`, `payout.ts`)
 * over the context they share (`context.ts`); its spans are put on once, where it is built
 * (`traced-ledger.ts`), and its checkpoint timer runs beside them (`checkpoint-timer.ts`).
 *
 * Rule rejections are returned as data (`LedgerRejection`, `errors.ts`); a store failure throws
 * {@link PoolUnavailableError}.
 */

import type { DigestHex, SpendPublicInputs } from '../core/index.js';
import {
  type CheckedPayment,
  checkEpochGrid,
  DEVNET_NETWORK,
  type EpochGrid,
  NO_EPOCH_GRID,
  PaymentRules,
  SCHEME,
} from '../scheme/index.js';
import { CheckpointTimer } from './checkpoint-timer.js';
import type { CommitStatsSnapshot } from './commit-stats.js';
import { GroupCommitter } from './committer.js';
import { anchorRefusal, isCheckpoint, verifySpendProof } from './context.js';
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
import { DEFAULT_PROOF_RETENTION_MS } from './proof-archive.js';
import {
  refuse,
  type SettleContext,
  type SettlementInput,
  type SettleRefusal,
  type SettleResult,
  settle,
} from './settle.js';
import type {
  ArchivedProof,
  ArchiveState,
  Checkpoint,
  PayoutStatus,
  PoolEvent,
  PoolStore,
  SpentNullifier,
  StoreState,
  WithdrawalRecord,
} from './store.js';
import type { LedgerHealth, LedgerOptions } from './ledger-options.js';
import { type SpannedOperations, tracedContext, tracedOperations } from './traced-ledger.js';
import { type TransferInput, transfer } from './transfer.js';

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
  /** How long the proof archive keeps a proof after its event was published, ms. */
  readonly proofRetentionMs: number;
  /** The epoch grid (`/state` shows it: wallets anchor by it). */
  readonly epoch: EpochGrid;
  /**
   * This pool's payment rules: a facilitator checks with them, and a payment they passed is not
   * checked again here (`priv-stark/facilitator`'s `FacilitatorLedger.paymentRules`).
   */
  readonly paymentRules: PaymentRules;
  /** What the operations share; its commit and verifications each run in their span. */
  private readonly context: SettleContext;
  /** The operations that run in a span of their own. */
  private readonly spanned: SpannedOperations;
  private readonly committer: GroupCommitter;
  private readonly timer: CheckpointTimer;

  constructor(options: LedgerOptions) {
    const { core, store } = options;
    const clock = options.clock ?? Date.now;
    this.store = store;
    this.scheme = options.scheme ?? SCHEME;
    this.network = options.network ?? DEVNET_NETWORK.network;
    this.asset = options.asset ?? DEVNET_NETWORK.asset;
    this.checkpointIntervalMs = options.checkpointIntervalMs ?? 2000;
    this.proofRetentionMs = options.proofRetentionMs ?? DEFAULT_PROOF_RETENTION_MS;
    if (!(Number.isFinite(this.proofRetentionMs) && this.proofRetentionMs > 0))
      throw new RangeError(`proofRetentionMs must be positive, got ${this.proofRetentionMs}`);
    this.epoch = checkEpochGrid(options.epoch ?? NO_EPOCH_GRID);
    const committer = new GroupCommitter(store, clock, options.maxGroup ?? 512);
    this.committer = committer;
    this.timer = new CheckpointTimer(
      store,
      clock,
      this.checkpointIntervalMs,
      this.epoch.epochMs,
      options.onTimerError ?? (() => undefined),
      this.proofRetentionMs,
    );
    const handOverCore = options.verifyHandOver
      ? { ...core, verifySpend: options.verifyHandOver }
      : core;
    const pool = { scheme: this.scheme, network: this.network, asset: this.asset };
    this.paymentRules = new PaymentRules(core, pool);
    const context = tracedContext<SettleContext>({
      core,
      store,
      pool,
      rules: this.paymentRules,
      spent: (nullifier) => this.spent(nullifier),
      clock,
      commit: (op, expiry) => committer.submit(op, expiry),
      verifySpend: (proof, pi) => verifySpendProof(core, proof, pi),
      verifyHandOver: (proof, pi) => verifySpendProof(handOverCore, proof, pi),
      verifyTransition: (proof, pi) => core.verifyTransition(proof, pi),
      proofStoreCapacity: options.proofStoreCapacity ?? 10_000,
      acceptedParameterSets: options.acceptedParameterSets,
      knownRoots: new Set(),
      epoch: this.epoch,
      anchorAges: new Map(),
      inFlight: new Map(),
    });
    this.context = context;
    this.spanned = tracedOperations({
      settle: (input) => settle(context, input),
      transfer: (input) => transfer(context, input),
      refuse: (nullifier, reason) => refuse(context, nullifier, reason),
      handOver: (input) => handOver(context, input),
      noteTransition: (input) => noteTransition(context, input),
    });
  }

  /** Starts the checkpoint timer (idempotent). It does not keep the process alive. */
  start(): void {
    this.timer.start();
  }

  /** Stops the timer (a tick under way finishes first) and waits for pending commits. Does not close the store. */
  async stop(): Promise<void> {
    await this.timer.stop();
    await this.committer.idle();
  }

  /**
   * Publishes the current root now if the tree changed since the latest checkpoint, stamped with
   * the grid's newest boundary (none when that boundary has one already); the timer does this on
   * its own, tests and the operator call it directly.
   */
  checkpoint(): Promise<Checkpoint | null> {
    return this.store.checkpoint(this.context.clock(), 0, this.epoch.epochMs);
  }

  /**
   * Whether `root` may anchor a payment whose requirements allow `maxTimeoutSeconds`:
   * `unknown_root`, `root_too_old` (older than E + D + maxTimeoutSeconds + slack, and superseded),
   * or `null` when it may (`context.ts` `anchorRefusal`).
   */
  anchorRefusal(
    root: string,
    maxTimeoutSeconds: number,
  ): Promise<'unknown_root' | 'root_too_old' | null> {
    return anchorRefusal(this.context, root, maxTimeoutSeconds);
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

  /** The ledger's head now (the operator's view). */
  state(): Promise<StoreState> {
    return this.store.state();
  }

  /** The head the public log shows: the latest checkpoint's (`PoolStore.publishedState`). */
  publishedState(): Promise<StoreState> {
    return this.store.publishedState();
  }

  /**
   * Where the durable writes spend their time (`commit-stats.ts`): this process's group sizes,
   * queue waits and apply times, and the store's commits by phase where it measures them.
   */
  commitStats(): CommitStatsSnapshot {
    return this.committer.stats.snapshot(this.store.commitTiming?.() ?? null);
  }

  /** Handed-over proofs stored now. */
  proofCount(): Promise<number> {
    return this.store.proofCount();
  }

  /** Archived proofs of published positions in `(after, after + limit]` (`proof-archive.ts`). */
  archivedProofs(after: number, limit: number): Promise<ArchivedProof[]> {
    return this.store.archivedProofs(after, limit);
  }

  /** The archive's gaps: pruned pages, and events older than the archive. */
  archiveState(): Promise<ArchiveState> {
    return this.store.archiveState();
  }

  /** Checkpoints after a cursor. */
  checkpoints(after: number, limit: number): Promise<Checkpoint[]> {
    return this.store.checkpoints(after, limit);
  }

  /** Commitments from a leaf index. */
  leaves(from: number, limit: number): Promise<DigestHex[]> {
    return this.store.leaves(from, limit);
  }

  /** Events after a cursor, in order of arrival (the store's own record, the operator's). */
  events(after: number, limit: number): Promise<PoolEvent[]> {
    return this.store.events(after, limit);
  }

  /** The public log after a position (`PoolStore.publishedEvents`). */
  publishedEvents(after: number, limit: number): Promise<PoolEvent[]> {
    return this.store.publishedEvents(after, limit);
  }

  /**
   * Shields funds: computes `cm = H_NOTE(amount ‖ pre)` and appends it (`deposit.ts`).
   * @returns the commitment and its leaf index, or `invalid_payload`, `amount_out_of_range`,
   *   `duplicate_commitment`, `tree_full`
   * @throws PoolUnavailableError when the store fails
   */
  deposit(input: DepositInput): Promise<DepositResult> {
    return deposit(this.context, input);
  }

  /**
   * Applies a settlement in the order docs/facilitator.md gives for `/settle` (`settle.ts`): a
   * nullifier that has settled is answered first, whatever else the settlement fails; then the
   * ledger's own checks, the anchor, the proof (or its hand-over's verdict) and one atomic commit
   * that re-checks nullifier and expiry under the store's lock.
   * @returns the settlement, or a rejection: `duplicate_settlement` (with the original id),
   *   `invalid_payload`, `unsupported_scheme`, `unsupported_network`, `unsupported_asset`,
   *   `payment_requirements_mismatch`, `payment_expired`, `unknown_root`,
   *   `unknown_proof_reference`, `invalid_priv_stark_proof`, `tree_full`
   * @throws PoolUnavailableError when the store fails (nothing applied, or — if the commit itself
   *   failed — possibly applied: a retry then reports `duplicate_settlement`)
   */
  settle(input: SettlementInput | CheckedPayment): Promise<SettleResult> {
    return this.spanned.settle(input);
  }

  /**
   * Refuses a settlement the caller's own checks refused (the facilitator's policy, expiry window,
   * `accepted` against the requirements, …) — unless its nullifier has settled: that answer wins,
   * as in {@link settle}, so a resource server that lost a settle's reply and retries later learns
   * it was paid.
   * @returns `duplicate_settlement` with the original id, or the caller's `reason`
   * @throws PoolUnavailableError when the store fails (which answer is right cannot be told)
   */
  refuse<R extends string>(nullifier: unknown, reason: R): Promise<SettleRefusal<R>> {
    return this.spanned.refuse(nullifier, reason);
  }

  /**
   * Keeps a proof handed over before a compact payment (docs/compact-payments.md; `hand-over.ts`),
   * refusing before storing anything, cheapest first; the stored row is the verdict `/verify` and
   * `/settle` use for its reference, kept at most {@link LedgerOptions.proofStoreCapacity} in all.
   * Handing the same proof over again answers the same reference.
   * @returns the reference and when it is dropped, or a rejection: `invalid_payload`,
   *   `unsupported_scheme`, `unsupported_network`, `unsupported_asset`,
   *   `payment_requirements_mismatch`, `payment_expired`, `unknown_root`,
   *   `nullifier_already_spent`, `invalid_priv_stark_proof`, `too_many_proofs`, `proof_store_full`
   * @throws PoolUnavailableError when the store fails (nothing stored)
   */
  handOver(input: HandOverInput): Promise<HandOverResult> {
    return this.spanned.handOver(input);
  }

  /**
   * Applies a transfer sent to the pool node (`POST /transfers`; `transfer.ts`): a payment to the
   * recipient in the pool's transfer context, settled as any payment is ({@link settle}: one
   * nullifier set, the same event, settle-once). A wallet keeps ready notes by transferring to
   * itself (docs/client.md).
   * @returns the settlement, or a rejection: those of {@link settle} (the proof always inline) and
   *   `expiry_too_far`
   * @throws PoolUnavailableError when the store fails
   */
  transfer(input: TransferInput): Promise<SettleResult> {
    return this.spanned.transfer(input);
  }

  /**
   * Applies a note transition — a merge, a split or an exit (`note-transition.ts`): both
   * nullifiers, both outputs and one event in one atomic step. A retry of an applied transition
   * learns its id (`duplicate_settlement`). An exit is recorded as a `withdrawal` event for the
   * operator's payout process ({@link payout}).
   * @returns the transition's id and the leaves of its outputs, or a rejection: `invalid_payload`,
   *   `invalid_destination`, `duplicate_settlement`, `nullifier_already_spent`, `payment_expired`,
   *   `expiry_too_far`, `unknown_root`, `invalid_priv_stark_proof`, `tree_full`
   * @throws PoolUnavailableError when the store fails
   */
  noteTransition(input: NoteTransitionInput): Promise<NoteTransitionResult> {
    return this.spanned.noteTransition(input);
  }

  /**
   * Records a step of a withdrawal's payout (the operator's payout process; `payout.ts`): `paying`
   * durably before paying, then `paid`, or `failed`, which appends the exit's proven refund note
   * for its owner. The withdrawal id is the idempotency key: the same step again is answered as
   * before; a step out of order is `payout_conflict`; an unknown id `unknown_withdrawal`.
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
}

export { PoolUnavailableError };
