/**
 * @module What the pool node needs from wherever deposits come from when the operator's token does
 * not mint them: a chain's escrow today (`src/chain/deposit-watcher.ts`), another backing later.
 * The source follows its payments, asks the pool ({@link DepositSink}) whether it can shield each
 * one before accepting it, and hands the pool each accepted deposit to shield once the acceptance
 * is final; the pool node refuses `POST /deposit` while a source is configured, and shows the
 * source's {@link DepositSourceStatus} on `/health`.
 */

import type { ChainBacking } from '../scheme/index.js';

export type {
  CommitmentLeaf,
  DepositWatchStore,
  WatchBinding,
  WatchCursor,
  WatchDecision,
  WatchedDeposit,
  WatchedState,
  WatchEvent,
} from '../ledger/deposit-watch.js';

/** A deposit paid into what backs the pool. */
export interface SourceDeposit {
  /** The source's index of it (the escrow's deposit index). */
  readonly index: number;
  /** Who paid it (an EIP-55 address). */
  readonly depositor: string;
  /** Decimal atomic units. */
  readonly amount: string;
  /** The deposit ticket's precommitment, `0x` + 64 hex. */
  readonly pre: string;
}

/**
 * Why the pool declines a deposit (its depositor may take it back at once): its commitment is in
 * the tree already, its amount or precommitment is not one a note can hold, or the operator's
 * deny list names its depositor.
 */
export type DeclineReason =
  | 'duplicate_commitment'
  | 'amount_out_of_range'
  | 'invalid_pre'
  | 'denied_depositor';

/** What shielding a deposit came to. */
export type ShieldOutcome =
  /** Its note is at `leafIndex`; `already` when an earlier call had put it there. */
  | { readonly ok: true; readonly leafIndex: number; readonly already: boolean }
  /** The ledger refused it: it will never be shielded (left to the operator). */
  | {
      readonly ok: false;
      readonly reason: 'duplicate_commitment' | 'amount_out_of_range' | 'invalid_pre' | 'tree_full';
    };

/** The pool's side of a deposit source. */
export interface DepositSink {
  /** `null` when the pool can shield `deposit`, otherwise why not (the source declines it). */
  screen(deposit: SourceDeposit): Promise<DeclineReason | null>;
  /**
   * Shields `deposit` — once, however often it is asked: a deposit already shielded answers its
   * leaf. Throws `PoolUnavailableError` when the store fails (the source retries).
   */
  shield(deposit: SourceDeposit): Promise<ShieldOutcome>;
}

/**
 * Where a source stands: `starting` before its first poll, `ok`, `lagging` (its RPC down, stale or
 * behind), `reorg_beyond_depth` (a block it shielded from was replaced: shielding has stopped).
 */
export type DepositSourceState = 'starting' | 'ok' | 'lagging' | 'reorg_beyond_depth';

/** A hot key's gas, and whether it is above the minimum below which its sender stops. */
export interface GasKeyStatus {
  readonly role: string;
  readonly address: string;
  /** Wei, decimal; `null` before it was read. */
  readonly balance: string | null;
  readonly minimum: string;
  readonly sufficient: boolean;
}

/** What a source reports (`/health`'s `chain`, the metrics). */
export interface DepositSourceStatus {
  readonly status: DepositSourceState;
  readonly chainId: number;
  readonly escrow: string;
  readonly token: string;
  /** How acceptance becomes final: `<n> confirmations`, `safe` or `finalized`. */
  readonly finality: string;
  /** The chain's head, the last block read, the last final block (`null` before known). */
  readonly head: number | null;
  readonly scanned: number;
  readonly final: number | null;
  /** How far behind the watcher is: blocks, and seconds since it was last caught up. */
  readonly lagBlocks: number;
  readonly lagSeconds: number;
  /** The last poll's failure, a stable code (`rpc_unreachable`, `rpc_malformed`, …), or `null`. */
  readonly error: string | null;
  /** Deposits by state. */
  readonly deposits: Readonly<Record<string, number>>;
  /** Reorganisations seen that undid nothing shielded. */
  readonly reorgs: number;
  /** Whether this instance acts (holds the watcher's lease) or stands by for another. */
  readonly active: boolean;
  readonly keys: readonly GasKeyStatus[];
}

/** A source of deposits. */
export interface DepositSource {
  /** What backs the pool. */
  readonly backing: ChainBacking;
  /** Where it stands now (never throws). */
  status(): DepositSourceStatus;
  /** Starts following, handing deposits to `sink`. */
  start(sink: DepositSink): void;
  /** Stops; resolves when no poll is running. Idempotent. */
  stop(): Promise<void>;
}
