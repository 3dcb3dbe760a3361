/**
 * @module The deposit watcher's state (docs/chain.md, "The deposit watcher"), kept beside the
 * ledger in the same database: which escrow the pool is bound to, how far its events were read
 * (the cursor, with the block hash it was read at), and each deposit with where it stands — read,
 * decided (the acceptance transaction that carries the decision), accepted, declined, reclaimed,
 * shielded — and the block and hash of every event it acted on, so a reorganisation is seen.
 * Whether a deposit was shielded is also answered by the ledger itself: the commitment's deposit
 * event ({@link DepositWatchStore.commitmentLeaf}), written atomically with its leaf. SQLite
 * (`sqlite-deposit-watch.ts`) and PostgreSQL (`postgres-deposit-watch.ts`) run the same code path;
 * `open-deposit-watch.ts` opens the one the store's configuration names.
 */

/** What a pool is bound to: one escrow on one chain, its token, and the network id they give. */
export interface WatchBinding {
  /** `eip155:<chainId>:<escrow, lowercase>`: the key of everything below. */
  readonly source: string;
  readonly chainId: number;
  /** EIP-55 addresses. */
  readonly escrow: string;
  readonly token: string;
  /** The pool's network id (`chainNetworkId`). */
  readonly network: string;
  /** The escrow's deployment block: its events are read from here. */
  readonly deployBlock: number;
}

/** Events are read up to `block` (inclusive), which had `hash` when they were read. */
export interface WatchCursor {
  readonly block: number;
  /** `null` before any block was read (`block` is then the deployment block − 1). */
  readonly hash: string | null;
}

/** Where a deposit stands. */
export type WatchedState =
  /** Paid in; not accepted, declined or reclaimed on chain (yet). */
  | 'pending'
  /** Accepted on chain; shielded once the acceptance is final. */
  | 'accepted'
  /** Declined on chain: its depositor may reclaim it. */
  | 'declined'
  /** Returned to its depositor. */
  | 'reclaimed'
  /** Its note is in the tree. */
  | 'shielded'
  /** Accepted and final, but the ledger refused its note (left to the operator; never retried). */
  | 'unshieldable';

/** A deposit as the watcher keeps it. */
export interface WatchedDeposit {
  /** The escrow's deposit index. */
  readonly index: number;
  /** EIP-55 address. */
  readonly depositor: string;
  /** Decimal atomic units. */
  readonly amount: string;
  /** The precommitment, `0x` + 64 hex. */
  readonly pre: string;
  /** The block of its `Deposited` event, and that block's hash. */
  readonly block: number;
  readonly blockHash: string;
  readonly state: WatchedState;
  /** What the watcher decided and sent, `null` before. */
  readonly decision: 'accept' | 'decline' | null;
  /** Why it was declined (by the watcher) or is unshieldable: a stable code. */
  readonly reason: string | null;
  /** The acceptance transaction carrying the decision, and the head when it was sent. */
  readonly sentTx: string | null;
  readonly sentBlock: number | null;
  /** The block (and hash) of its `Accepted` or `Declined` event. */
  readonly settledBlock: number | null;
  readonly settledHash: string | null;
  /** The block (and hash) of its `Reclaimed` event. */
  readonly reclaimedBlock: number | null;
  readonly reclaimedHash: string | null;
  /** Its note's leaf index once shielded. */
  readonly leafIndex: number | null;
}

/** An escrow event, read and checked, to record. */
export type WatchEvent =
  | {
      readonly kind: 'deposited';
      readonly index: number;
      readonly depositor: string;
      readonly amount: string;
      readonly pre: string;
      readonly block: number;
      readonly blockHash: string;
    }
  | {
      readonly kind: 'accepted' | 'declined' | 'reclaimed';
      readonly index: number;
      readonly block: number;
      readonly blockHash: string;
    };

/** A decision carried by one acceptance transaction. */
export interface WatchDecision {
  readonly index: number;
  readonly decision: 'accept' | 'decline';
  /** Why declined; `null` for an acceptance. */
  readonly reason: string | null;
}

/** A leaf of the tree holding a commitment, and whether a deposit put it there. */
export interface CommitmentLeaf {
  readonly index: number;
  /** True when the leaf's event is a deposit (a shielded chain deposit, in a chain pool). */
  readonly deposit: boolean;
}

/** The watcher's state; every method answers or throws `PoolUnavailableError`. */
export interface DepositWatchStore {
  /** Every binding recorded (a store backs at most one chain pool; none for a devnet pool). */
  bindings(): Promise<WatchBinding[]>;
  /**
   * Records `binding` with its cursor at `deployBlock − 1` unless a binding is recorded already.
   * @returns the binding recorded now or before (the caller compares)
   */
  bind(binding: WatchBinding, now: number): Promise<WatchBinding>;
  /** The cursor of `source` (its binding must be recorded). */
  cursor(source: string): Promise<WatchCursor>;
  /**
   * Records a page of events, in chain order, and moves the cursor to `to`, atomically. A deposit
   * read again keeps what was decided for it; an event never moves a shielded deposit.
   */
  record(
    source: string,
    events: readonly WatchEvent[],
    to: WatchCursor,
    now: number,
  ): Promise<void>;
  /**
   * Forgets what was read above `to.block` (a reorganisation): deposits paid in above it are
   * dropped, a reclaim above it is undone (back to declined, or pending), an acceptance or decline
   * above it too (back to pending), and the cursor moves back to `to`. Shielded and unshieldable
   * deposits are never touched.
   */
  rewind(source: string, to: WatchCursor, now: number): Promise<void>;
  /** Records the decisions one acceptance transaction `tx` carries, sent at head `block`. */
  decide(
    source: string,
    decisions: readonly WatchDecision[],
    tx: string,
    block: number,
    now: number,
  ): Promise<void>;
  /** Forgets the decisions of pending deposits sent in `tx` (it reverted or was dropped). */
  clearSent(source: string, tx: string, now: number): Promise<void>;
  /** Marks an accepted deposit shielded at `leafIndex`. */
  markShielded(source: string, index: number, leafIndex: number, now: number): Promise<void>;
  /** Marks an accepted deposit unshieldable, with the ledger's reason. */
  markUnshieldable(source: string, index: number, reason: string, now: number): Promise<void>;
  /** Deposits in `states`, by index, at most `limit`. */
  deposits(
    source: string,
    states: readonly WatchedState[],
    limit: number,
  ): Promise<WatchedDeposit[]>;
  /**
   * Deposits with an event (paid in, accepted or declined, reclaimed) at `fromBlock` or above, and
   * those pending or accepted whatever their blocks: what a reorganisation check looks at.
   */
  recent(source: string, fromBlock: number): Promise<WatchedDeposit[]>;
  /** How many deposits are in each state. */
  counts(source: string): Promise<Readonly<Record<WatchedState, number>>>;
  /** The lowest leaf holding `commitment`, or `null`. */
  commitmentLeaf(commitment: string): Promise<CommitmentLeaf | null>;
  /** Releases the connection (the store's stays open). Idempotent. */
  close(): Promise<void>;
}

/** Every state, in the order {@link DepositWatchStore.counts} lists them. */
export const WATCHED_STATES: readonly WatchedState[] = [
  'pending',
  'accepted',
  'declined',
  'reclaimed',
  'shielded',
  'unshieldable',
];

/** The source key of an escrow on a chain. */
export function watchSource(chainId: number, escrow: string): string {
  return `eip155:${chainId}:${escrow.toLowerCase()}`;
}
