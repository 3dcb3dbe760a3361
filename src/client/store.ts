/**
 * @module Where a wallet keeps itself, behind one interface: the state (spending key, notes,
 * pending payments, cursors) and the public leaves it has read. {@link MemoryWalletStore} keeps both
 * in memory; `FileWalletStore` (Node, `./file-store.js`) writes a file readable only by its owner;
 * `IndexedDbWalletStore` (browsers, `./indexeddb-store.js`) an IndexedDB database. Nothing here
 * needs Node.
 */

import { type DigestHex, digestOfBytes, writeDigestBytes } from '../core/digest.js';

/** A note the wallet owns. */
export interface StoredNote {
  readonly commitment: DigestHex;
  /** Decimal atomic units. */
  readonly value: string;
  readonly rho: DigestHex;
  readonly index: number;
  readonly nullifier: DigestHex;
  /** How it came: a deposit (with its counter), the change of a spend, or a payment received. */
  readonly origin: 'deposit' | 'change' | 'received' | 'transition' | 'refund';
  readonly counter?: number;
  /**
   * Unix ms before which the wallet does not spend it: its minimum age from the pool's time of the
   * event that made it (`note-age.ts`; absent: no minimum, as in files from before the rule).
   */
  readonly matureAt?: number;
  /** Set once the pool's log shows the nullifier spent. */
  spent?: { readonly settlementId: string; readonly eventId: number };
}

/** A payment that may have left: recorded before it does, resolved only from the pool's log. */
export interface StoredPending {
  readonly nullifier: DigestHex;
  /** Commitment of the note spent. */
  readonly note: DigestHex;
  readonly amount: string;
  readonly payTo: string;
  readonly resourceId: string;
  /** The change note's commitment and value. */
  readonly change: DigestHex;
  readonly changeValue: string;
  /** Unix seconds. */
  readonly expiry: number;
  /** Unix ms, the wallet's clock. */
  readonly createdAt: number;
  /**
   * `expired`: it will not settle — past its expiry, or its hand-over refused after it left the
   * wallet — and its nullifier was shown (the note is refreshed before it pays again).
   */
  status: 'pending' | 'settled' | 'expired';
  settlementId?: string;
}

/**
 * A deposit this wallet paid into its pool's escrow on a chain (`priv-stark/client/chain`): the
 * ticket it funded, the escrow's index, who paid it and how. Kept for reclaims and for the exit's
 * warnings (an exit of a deposit's amount, or to the address that funded it, links them).
 */
export interface ChainDepositRecord {
  /** The deposit ticket's counter, amount (decimal atomic units) and precommitment. */
  readonly counter: number;
  readonly amount: string;
  readonly pre: DigestHex;
  /** The escrow's index of the deposit (`null` while its transaction is not mined). */
  index: number | null;
  /** The EVM account that paid it (EIP-55). */
  readonly depositor: string;
  /** The deposit's transaction hash. */
  transaction: string;
  /** `relayed`: by signature through the pool's relayer (with its fee); `direct`: the account's own transaction. */
  readonly path: 'relayed' | 'direct';
  /** The relayer's fee paid, decimal atomic units (`0` on the direct path). */
  readonly fee: string;
  /** Unix ms when the wallet signed or sent it (absent in records from before it was kept). */
  readonly depositedAt?: number;
}

/** The wallet file's contents. */
export interface WalletState {
  readonly version: 1;
  readonly network: string;
  readonly asset: string;
  readonly sk: DigestHex;
  /**
   * Deposit counters below it have been handed out (`H_DEPOSIT_RHO(sk, counter)`), by this wallet
   * or — for a restored key — perhaps by the copy it was restored from.
   */
  depositCounter: number;
  /**
   * Counters watched past the number found (`N` for a key restored from `sk`: a lost copy may have
   * handed them out; 0 for a key the wallet made itself: it watches the tickets it issued).
   */
  depositGap: number;
  /** The recovery bound `N` (absent: `DEPOSIT_GAP`): see `deposit-tickets.ts`. */
  depositBound?: number;
  /**
   * Tickets this wallet handed out and has not seen shielded (absent in files from before: rebuilt
   * when opened; `amount` null for those).
   */
  tickets?: { counter: number; amount: string | null }[];
  /**
   * Restored keys: counters below it may have been handed out by the copy the key was restored
   * from (set by the first sync; `null`/absent before).
   */
  inheritedBelow?: number | null;
  /** Restored keys: counters below `inheritedBelow` this wallet handed out again, watched for good. */
  reissued?: number[];
  notes: StoredNote[];
  pending: StoredPending[];
  /** Event cursor (id of the last event read). */
  eventCursor: number;
  /**
   * Checkpoint cursor, and the checkpoint the wallet anchors to: on the pool's epoch grid, the
   * newest held at least the delay old (`wallet-anchor.ts`); without a grid, the latest read.
   */
  checkpointCursor: number;
  checkpoint: { seq: number; root: DigestHex; size: number; time: number } | null;
  /** The pool's epoch grid, from the pool node's own head (absent: not learned yet). */
  epoch?: { epochMs: number; anchorDelayMs: number };
  /** Grid checkpoints read and verified that the wallet may still anchor to, oldest first. */
  anchors?: { seq: number; root: DigestHex; size: number; time: number }[];
  /** Latest pool time seen (unix ms), from events and checkpoints. */
  poolTime: number;
  /** Unix ms of the last completed sync. */
  syncedAt: number;
  /** Deposits paid into the pool's escrow on a chain, oldest first (absent: none). */
  chainDeposits?: ChainDepositRecord[];
  /**
   * The older transition parameter set the pool node was found to need when it refused the newest
   * (absent: the newest this wallet proves). Kept in the file so that a one-shot CLI command does
   * not learn it again with a refused request each time.
   */
  transitionSet?: number;
}

/** What a store holds. */
export interface StoredWallet {
  readonly state: WalletState;
  readonly leaves: DigestHex[];
}

/**
 * Persistence of one wallet. The wallet calls `save` before a payment's payload leaves (the pending
 * record must survive a crash), so `save` resolves only once the state is durable.
 */
export interface WalletStore {
  /** Where it lives, for messages (a file path, a database name). */
  readonly name: string;
  /** Creates the store with its first state; refuses when one already exists there. */
  create(state: WalletState): Promise<void>;
  /** The stored wallet; throws when there is none. */
  load(): Promise<StoredWallet>;
  /** Replaces the state (atomically: a crash leaves the old or the new one). */
  save(state: WalletState): Promise<void>;
  /** Stores leaves `from … from + leaves.length - 1`, dropping any stored at or past `from`. */
  appendLeaves(from: number, leaves: readonly DigestHex[]): Promise<void>;
}

/** A wallet kept in memory (a copy of each saved state), e.g. for a page that re-creates it. */
export class MemoryWalletStore implements WalletStore {
  private stored: { state: WalletState; leaves: DigestHex[] } | null = null;

  constructor(readonly name = 'memory') {}

  async create(state: WalletState): Promise<void> {
    if (this.stored) throw new Error(`wallet store ${this.name} already holds a wallet`);
    this.stored = { state: structuredClone(state), leaves: [] };
  }

  async load(): Promise<StoredWallet> {
    if (!this.stored) throw new Error(`wallet store ${this.name} holds no wallet`);
    return { state: structuredClone(this.stored.state), leaves: this.stored.leaves.slice() };
  }

  async save(state: WalletState): Promise<void> {
    if (!this.stored) throw new Error(`wallet store ${this.name} holds no wallet`);
    this.stored.state = structuredClone(state);
  }

  async appendLeaves(from: number, leaves: readonly DigestHex[]): Promise<void> {
    if (!this.stored) throw new Error(`wallet store ${this.name} holds no wallet`);
    this.stored.leaves.length = Math.min(this.stored.leaves.length, from);
    if (this.stored.leaves.length !== from)
      throw new Error(`wallet store ${this.name}: leaves missing before ${from}`);
    for (const leaf of leaves) this.stored.leaves.push(leaf);
  }
}

/** Checks a loaded state's version and network. */
export function checkStoredState(state: WalletState, network: string, name: string): WalletState {
  if (state.version !== 1)
    throw new Error(`wallet ${name}: unknown version ${String(state.version)}`);
  if (state.network !== network)
    throw new Error(`wallet ${name} is for network ${state.network}, not ${network}`);
  return state;
}

/** Leaves as 32 bytes each (what file and IndexedDB stores keep). */
export function packLeaves(leaves: readonly DigestHex[]): Uint8Array {
  const out = new Uint8Array(leaves.length * 32);
  for (let i = 0; i < leaves.length; i++)
    if (!writeDigestBytes(leaves[i]!, out, i * 32))
      throw new RangeError(`leaf ${i} is not 0x followed by 64 lowercase hex digits`);
  return out;
}

/** The leaves in packed bytes (a trailing partial leaf, from a torn write, is ignored). */
export function unpackLeaves(bytes: Uint8Array): DigestHex[] {
  const leaves: DigestHex[] = [];
  for (let offset = 0; offset + 32 <= bytes.length; offset += 32)
    leaves.push(digestOfBytes(bytes, offset));
  return leaves;
}
