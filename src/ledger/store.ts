/**
 * @module The one interface both pool stores implement (embedded SQLite, PostgreSQL), in the
 * manner of fastify-rate-limit's local and redis stores: same methods, same results, one
 * conformance suite.
 *
 * A store keeps the ledger — leaves, the tree's frontier, checkpoints, nullifiers, events and the
 * deposit total — and enforces what must hold whatever the caller: appends are serialised by the
 * store's lock, a nullifier is inserted once (transaction + unique key), a deposit commitment
 * already in the tree is refused, and every {@link PoolStore.apply} is all or nothing. It does not
 * verify proofs or derive notes: that is the ledger's (`ledger.ts`), the only writer of
 * settlements.
 */

import type { CommitTimingTotals } from './commit-stats.js';
import type { DigestHex, Frontier, ProofReference } from '../core/index.js';
import type { CheckpointCoverage, LogDigestRecord } from './log-digests.js';

/** The tree arithmetic a store needs from the core (frontier appends in O(depth)). */
export interface TreeHasher {
  emptyFrontier(): Frontier;
  frontierAppend(frontier: Frontier, leaves: readonly string[]): Frontier;
}

/** A deposit to apply: the pool already computed `commitment = H_NOTE(amount ‖ pre)`. */
export interface DepositOp {
  readonly kind: 'deposit';
  /** Decimal atomic units, `0 < amount < 2^62`. */
  readonly amount: string;
  readonly commitment: DigestHex;
}

/**
 * What the archive keeps of a proof's public inputs beyond its event's own fields: the anchor and
 * the context digest it was verified against, so anyone can verify it again.
 */
export interface ProofBinding {
  readonly root: DigestHex;
  readonly ctx: DigestHex;
}

/**
 * The proof a settlement was applied with, archived with its event (docs/audit.md, "Proof
 * archive"): its bytes when it came inline, or the reference of the handed-over proof whose stored
 * bytes the store keeps — refused as `unknown_proof_reference` when no such row is left.
 */
export type SettledProof = ProofBinding &
  ({ readonly bytes: Uint8Array } | { readonly reference: ProofReference });

/** A settlement to apply: the pool already verified the proof and derived the recipient note. */
export interface SettlementOp {
  readonly kind: 'settlement';
  readonly nullifier: DigestHex;
  /** Deterministic in the nullifier (`settlementId()` in `notes.ts`). */
  readonly settlementId: string;
  /** The change note, appended first. */
  readonly change: DigestHex;
  /** The recipient note, appended second. */
  readonly recipientNote: DigestHex;
  /** The recipient's shielded address (`payTo`). */
  readonly recipient: string;
  readonly amount: string;
  /** The verified proof, archived with the event. */
  readonly proof: SettledProof;
}

/**
 * A proof handed over to the pool node (compact payments) to keep: the node verified it and
 * computed its reference before submitting it, so a stored row *is* the verdict.
 */
export interface HandOverOp {
  readonly kind: 'handover';
  readonly reference: ProofReference;
  /** The parameter set its header names. */
  readonly parameterSet: number;
  readonly root: DigestHex;
  readonly nullifier: DigestHex;
  readonly change: DigestHex;
  readonly amount: string;
  readonly ctx: DigestHex;
  readonly proof: Uint8Array;
  /** Unix ms after which it is dropped. */
  readonly expiresAt: number;
  /** The most proofs the store may hold; refused as `proof_store_full` at that count. */
  readonly capacity: number;
  /** The most proofs one nullifier may have; refused as `too_many_proofs` at that count. */
  readonly perNullifier: number;
}

/**
 * A transition (merge or split) to apply: the pool already verified its proof. Both nullifiers
 * are inserted (each refused if spent, also earlier in the same group), both outputs appended in
 * order, and one `transition` event recorded.
 */
export interface TransitionOp {
  readonly kind: 'transition';
  /** Deterministic in the first nullifier (`transitionId()` in `notes.ts`). */
  readonly transitionId: string;
  readonly nullifiers: readonly [DigestHex, DigestHex];
  readonly outputs: readonly [DigestHex, DigestHex];
  /** The masked output values (two field elements, decimal), for the owner's recovery. */
  readonly memo: readonly [string, string];
  /** Decimal amount leaving the pool: `"0"` for a merge or split, positive for an exit. */
  readonly exit: string;
  /** An exit's destination (CAIP-10); `null` for a merge or split. */
  readonly destination: string | null;
  /** The exit's proven refund note, appended only if its payout fails. */
  readonly refund: DigestHex;
  /** The verified transition proof, archived with the event. */
  readonly proof: ProofBinding & { readonly bytes: Uint8Array };
}

/**
 * A step of an exit's payout, recorded by the operator's payout process: `paying` durably before
 * it pays (idempotent while paying), then `paid`, or `failed` — which appends the exit's proven
 * refund note for its owner. A withdrawal is paid or refunded once, whatever the retries.
 */
export interface PayoutOp {
  readonly kind: 'payout';
  /** The withdrawal's id (its transition id): the payout's idempotency key. */
  readonly withdrawalId: string;
  readonly status: PayoutStatus;
}

/** Where a withdrawal's payout stands. */
export type PayoutStatus = 'paying' | 'paid' | 'failed';

/** What {@link PoolStore.apply} takes. */
export type StoreOp = DepositOp | SettlementOp | HandOverOp | TransitionOp | PayoutOp;

/** A deposit that was appended. */
export interface DepositApplied {
  readonly ok: true;
  readonly kind: 'deposit';
  readonly eventId: number;
  readonly index: number;
  readonly commitment: DigestHex;
}

/** A settlement that was applied. */
export interface SettlementApplied {
  readonly ok: true;
  readonly kind: 'settlement';
  readonly eventId: number;
  readonly settlementId: string;
  readonly changeIndex: number;
  readonly recipientIndex: number;
  readonly recipientNote: DigestHex;
}

/** A handed-over proof kept (or already kept: the same reference is stored once). */
export interface HandOverApplied {
  readonly ok: true;
  readonly kind: 'handover';
  readonly reference: ProofReference;
  /** Unix ms when the stored row is dropped. */
  readonly expiresAt: number;
  /** False when the reference was already stored. */
  readonly stored: boolean;
}

/** A transition that was applied. */
export interface TransitionApplied {
  readonly ok: true;
  readonly kind: 'transition';
  readonly eventId: number;
  readonly transitionId: string;
  /** Leaf indexes of the two outputs (consecutive). */
  readonly outputIndexes: readonly [number, number];
}

/** A payout step recorded (or already recorded: the same step again is answered the same). */
export interface PayoutApplied {
  readonly ok: true;
  readonly kind: 'payout';
  readonly withdrawalId: string;
  readonly status: PayoutStatus;
  /** For `failed`: the refund note's leaf index and its event. */
  readonly refundIndex?: number;
  readonly eventId?: number;
}

/** An op the store's own rules refused; nothing of it was written. */
export type StoreRefusal =
  | { readonly ok: false; readonly reason: 'duplicate_settlement'; readonly settlementId: string }
  | { readonly ok: false; readonly reason: 'duplicate_commitment' }
  | { readonly ok: false; readonly reason: 'tree_full' }
  | { readonly ok: false; readonly reason: 'nullifier_already_spent' }
  | { readonly ok: false; readonly reason: 'too_many_proofs' }
  | { readonly ok: false; readonly reason: 'proof_store_full' }
  | { readonly ok: false; readonly reason: 'unknown_proof_reference' }
  | { readonly ok: false; readonly reason: 'unknown_withdrawal' }
  | {
      readonly ok: false;
      readonly reason: 'payout_conflict';
      readonly status: PayoutStatus | null;
    };

/** The result of one op, in the order of the ops given. */
export type StoreOpResult =
  | DepositApplied
  | SettlementApplied
  | HandOverApplied
  | TransitionApplied
  | PayoutApplied
  | StoreRefusal;

/** A stored handed-over proof, without its bytes: what `/verify` and `/settle` compare. */
export interface HandedOverProof {
  readonly reference: ProofReference;
  readonly parameterSet: number;
  readonly root: DigestHex;
  readonly nullifier: DigestHex;
  readonly change: DigestHex;
  readonly amount: string;
  readonly ctx: DigestHex;
  /** Unix ms. */
  readonly expiresAt: number;
}

/** A published anchor. Every checkpoint stays valid. */
export interface Checkpoint {
  /** 1, 2, 3, … in publication order (the cursor of `checkpoints()`). */
  readonly seq: number;
  readonly root: DigestHex;
  /** Leaves in the tree at this root. */
  readonly size: number;
  /** Unix milliseconds of publication. */
  readonly time: number;
}

/**
 * One entry of the log, by cursor `id` (1, 2, 3, … with no gaps). In the public log (what the pool
 * node serves) `id` is the event's position and `time` its checkpoint's; in the store's own record
 * they are the order and time of its arrival.
 */
export type PoolEvent =
  | {
      readonly id: number;
      readonly kind: 'deposit';
      readonly time: number;
      readonly amount: string;
      readonly commitment: DigestHex;
      readonly index: number;
    }
  | {
      readonly id: number;
      readonly kind: 'settlement';
      readonly time: number;
      readonly settlementId: string;
      readonly nullifier: DigestHex;
      readonly change: DigestHex;
      readonly changeIndex: number;
      readonly recipient: string;
      readonly amount: string;
      readonly recipientNote: DigestHex;
      readonly recipientIndex: number;
    }
  | {
      readonly id: number;
      readonly kind: 'transition';
      readonly time: number;
      readonly transitionId: string;
      readonly nullifiers: readonly [DigestHex, DigestHex];
      readonly outputs: readonly [DigestHex, DigestHex];
      /** Leaf indexes of the outputs. */
      readonly outputIndexes: readonly [number, number];
      readonly memo: readonly [string, string];
    }
  | {
      readonly id: number;
      readonly kind: 'withdrawal';
      readonly time: number;
      /** The payout's idempotency key (derived from the first nullifier). */
      readonly withdrawalId: string;
      readonly nullifiers: readonly [DigestHex, DigestHex];
      readonly outputs: readonly [DigestHex, DigestHex];
      readonly outputIndexes: readonly [number, number];
      readonly memo: readonly [string, string];
      /** Decimal amount leaving the pool. */
      readonly amount: string;
      /** CAIP-10 account id. */
      readonly destination: string;
      /** The refund note appended if the payout fails. */
      readonly refund: DigestHex;
    }
  | {
      readonly id: number;
      readonly kind: 'refund';
      readonly time: number;
      readonly withdrawalId: string;
      /** The withdrawal's first nullifier (the owner derives the refund's `rho` from it). */
      readonly nullifier: DigestHex;
      readonly amount: string;
      readonly commitment: DigestHex;
      readonly index: number;
    };

/** A withdrawal and where its payout stands (the payout process's view). */
export interface WithdrawalRecord {
  /** Its event id: the cursor of `withdrawals()`. */
  readonly eventId: number;
  readonly withdrawalId: string;
  readonly amount: string;
  readonly destination: string;
  /** Unix ms of the withdrawal. */
  readonly time: number;
  /** `null` until the payout process records `paying`. */
  readonly status: PayoutStatus | null;
  /** Unix ms of the last payout step, `null` before the first. */
  readonly updatedAt: number | null;
}

/** The ledger's head. */
export interface StoreState {
  /** Leaves in the tree. */
  readonly size: number;
  /** The current root (not necessarily a checkpoint yet). */
  readonly root: DigestHex;
  /** Events recorded (the id of the last one). */
  readonly events: number;
  /** Sum of all deposits, decimal. */
  readonly depositTotal: string;
  /** Sum of all exits (value that left the notes), decimal. */
  readonly withdrawnTotal: string;
  /** Sum of the exits whose payout is recorded `paid`, decimal. */
  readonly paidOutTotal: string;
  /** Sum of the exits refunded to their owners (payout `failed`), decimal. */
  readonly refundedTotal: string;
  /** The latest checkpoint, `null` before the first. */
  readonly checkpoint: Checkpoint | null;
}

/** An archived proof's SHA-256, by its event's position (`null`: kept before hashes were). */
export interface ArchivedProofHash {
  readonly id: number;
  readonly hash: Uint8Array | null;
}

/** An archived proof (`GET /archive`), with the public inputs its event does not show. */
export interface ArchivedProof extends ProofBinding {
  /** The position of the event it was applied with (the public log's id). */
  readonly id: number;
  readonly proof: Uint8Array;
  /**
   * A merge's or split's refund note (a note of 0, never appended): a public input of its proof
   * that its event does not show. `null` for every other proof (a withdrawal's event shows its
   * own), and for a merge or split applied before the archive kept it.
   */
  readonly refund: DigestHex | null;
}

/** What a prune of the proof archive did. */
export interface ArchivePrune {
  /** Positions at or below this have no archived proof any more (whole pages only). */
  readonly prunedThrough: number;
  /** Proofs dropped by this prune. */
  readonly dropped: number;
}

/** The archive's two honest gaps (a proof missing anywhere else is an audit finding). */
export interface ArchiveState {
  /** Positions at or below this were pruned (whole pages, past the retention). */
  readonly prunedThrough: number;
  /**
   * The highest position of an event applied before the archive existed (schema 7), whose proof
   * was never kept; 0 when the archive is as old as the pool.
   */
  readonly legacyThrough: number;
}

/** A spent nullifier. */
export interface SpentNullifier {
  readonly settlementId: string;
  readonly eventId: number;
}

/** Which implementation. */
export type StoreKind = 'sqlite' | 'postgres';

/**
 * The pool store. Every method either answers or throws `PoolUnavailableError` (never hangs past
 * the store's timeouts). Writes are durable when their promise resolves.
 */
export interface PoolStore {
  readonly kind: StoreKind;
  /** Schema version after migrations. */
  readonly schemaVersion: number;
  /**
   * Applies ops as one atomic group under the store's lock: each op is accepted or refused on its
   * own rules (a settlement whose nullifier is spent — also earlier in the same group — a deposit
   * whose commitment is in the tree, anything past the tree's capacity; a handed-over proof whose
   * nullifier is spent, or past the per-nullifier or total proof limits); the accepted ones are
   * applied in order and committed together, durably, before the promise resolves. A settlement
   * removes the handed-over proofs of its nullifier in the same commit. If the store fails,
   * nothing of the group is applied and the promise rejects.
   * @param now unix milliseconds recorded as the events' time
   */
  apply(ops: readonly StoreOp[], now: number): Promise<StoreOpResult[]>;
  /**
   * Where this store's `apply` commits spent their time since open, by phase (lock wait, the
   * group's work, the commit and its fsync; `commit-stats.ts`) — for stores that measure it;
   * `null` for one that commits nothing itself (a worker's SQLite store, whose writes the
   * primary's store commits).
   */
  commitTiming?(): CommitTimingTotals | null;
  /**
   * Publishes the current root as a checkpoint if the tree changed since the latest one and that
   * one is at least `minGapMs` old — under the store's lock, so any number of processes sharing
   * the store may call it on their own timers. The checkpoint publishes the events since the
   * previous one (`publishedEvents`). With `epochMs` it is stamped with the newest boundary of
   * that grid at or before `now`, and none is due while the latest is that boundary's
   * (`store-rows.ts` `checkpointStamp`); without, it is stamped `now`.
   * @returns the new checkpoint, or `null` when none was due
   */
  checkpoint(now: number, minGapMs: number, epochMs?: number): Promise<Checkpoint | null>;
  /** The ledger's head now (the operator's view; the public one is {@link publishedState}), read consistently. */
  state(): Promise<StoreState>;
  /** The frontier (1064-byte state), size and root. */
  frontier(): Promise<Frontier>;
  /** The checkpoint with this root, if any. */
  checkpointByRoot(root: string): Promise<Checkpoint | null>;
  /** Checkpoints with `seq > after`, oldest first, at most `limit`. */
  checkpoints(after: number, limit: number): Promise<Checkpoint[]>;
  /** Commitments at indexes `from, from + 1, …`, at most `limit`. */
  leaves(from: number, limit: number): Promise<DigestHex[]>;
  /**
   * Events with `id > after`, oldest first, at most `limit`: the store's own record, in order of
   * arrival with the time of arrival — the operator's; the public log is {@link publishedEvents}.
   */
  events(after: number, limit: number): Promise<PoolEvent[]>;
  /**
   * The head as the public log shows it (`public-log.ts`): the latest checkpoint's size, root and
   * events (the empty tree's root and zeros before the first), the deposited, withdrawn and
   * refunded totals as of that checkpoint, and the paid-out total as recorded.
   */
  publishedState(): Promise<StoreState>;
  /**
   * The public log: events a checkpoint published, with position `> after`, at most `limit` — by
   * checkpoint, and within one by nullifier (a deposit by its commitment), never by arrival. Each
   * carries its position as `id` (1, 2, 3, … with no gaps) and its checkpoint's time as `time`.
   */
  publishedEvents(after: number, limit: number): Promise<PoolEvent[]>;
  /** Withdrawals with event id `> after`, oldest first, at most `limit`, with their payout status. */
  withdrawals(after: number, limit: number): Promise<WithdrawalRecord[]>;
  /** The settlement that spent this nullifier, if any. */
  nullifier(nullifier: string): Promise<SpentNullifier | null>;
  /** The handed-over proof with this reference, expired or not, if it is stored. */
  handedOver(reference: string): Promise<HandedOverProof | null>;
  /**
   * Drops handed-over proofs whose time has passed (`expiresAt <= now`), under the store's lock.
   * @returns how many were dropped
   */
  pruneProofs(now: number): Promise<number>;
  /** Handed-over proofs stored now. */
  proofCount(): Promise<number>;
  /**
   * The proof archive (`proof-archive.ts`): the proofs of published events with position in
   * `(after, after + limit]`, by position — one per settlement, transition and withdrawal; a
   * deposit or refund has none. Nothing past the published head, nothing pruned.
   */
  archivedProofs(after: number, limit: number): Promise<ArchivedProof[]>;
  /**
   * The SHA-256 of each archived proof of published positions in `(after, after + limit]`, as the
   * store kept it beside the bytes (the log digests' input, without reading the proofs back).
   */
  archivedProofHashes(after: number, limit: number): Promise<ArchivedProofHash[]>;
  /**
   * Drops, under the store's lock, the archived proofs of whole pages of `pageSize` positions whose
   * events were all published before `before` (unix ms), and records how far it pruned.
   */
  pruneArchive(before: number, pageSize: number): Promise<ArchivePrune>;
  /** Where the archive's gaps are: what was pruned, and what came before it existed. */
  archiveState(): Promise<ArchiveState>;
  /**
   * Checkpoints with `seq > after`, oldest first, at most `limit`, with the events each published
   * up to.
   */
  checkpointCoverage(after: number, limit: number): Promise<CheckpointCoverage[]>;
  /** Recorded log digests with `seq > after`, oldest first, at most `limit` (`log-digests.ts`). */
  logDigests(after: number, limit: number): Promise<LogDigestRecord[]>;
  /** The newest recorded log digest, `null` before the first. */
  latestLogDigest(): Promise<LogDigestRecord | null>;
  /** Records log digests; one already recorded for a checkpoint stands (several nodes agree). */
  recordLogDigests(records: readonly LogDigestRecord[]): Promise<void>;
  /** Throws `PoolUnavailableError` unless the store answers. */
  ping(): Promise<void>;
  /** Releases connections and files. Idempotent. */
  close(): Promise<void>;
}
