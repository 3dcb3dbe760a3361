/**
 * @module How a wallet keeps itself, seen from the wallet: the store its options name, the state a
 * new wallet starts with, a stored wallet opened and checked, and the writes — a snapshot of the
 * state per write, written one after another in call order. The stores themselves are `store.ts`
 * (`MemoryWalletStore`), `file-store.ts` and `indexeddb-store.ts`; the format is {@link WalletState}.
 */

import type { DigestHex } from '../core/digest.js';
import { randomDigest } from '../core/witness.js';
import { DEVNET_NETWORK } from '../scheme/index.js';
import { recoveryBoundOf } from './deposit-tickets.js';
import { FileWalletStore } from './file-store.js';
import {
  checkStoredState,
  type StoredWallet,
  type WalletState,
  type WalletStore,
} from './store.js';
import type { CreateWalletOptions, WalletOptions } from './wallet-options.js';

/** The store the options name: `store`, a file at `path` (Node, loaded on demand), or none. */
export function storeOf(options: WalletOptions): WalletStore | null {
  if (options.store) return options.store;
  if (options.path === undefined) return null;
  return new FileWalletStore(options.path);
}

/** Node: the path of the file a store keeps the wallet in, when it is kept in one. */
export function pathOf(store: WalletStore | null): string | undefined {
  return store && 'path' in store && typeof store.path === 'string' ? store.path : undefined;
}

/**
 * The state a new wallet starts with: a fresh key, or `sk` restored (then it watches `N` counters
 * past those found from its first sync on).
 * @throws RangeError for a recovery bound outside 1..`DEPOSIT_GAP_MAX`
 */
export function newWalletState(options: CreateWalletOptions): WalletState {
  const network = options.network ?? DEVNET_NETWORK;
  const sk: DigestHex =
    options.sk === undefined ? randomDigest() : options.core.parseDigest(options.sk);
  const bound = recoveryBoundOf(options.recoveryBound);
  const restored = options.sk !== undefined;
  return {
    version: 1,
    network: network.network,
    asset: network.asset,
    sk,
    depositCounter: 0,
    depositGap: restored ? bound : 0,
    depositBound: bound,
    tickets: [],
    ...(restored ? { inheritedBelow: null } : {}),
    notes: [],
    pending: [],
    eventCursor: 0,
    checkpointCursor: 0,
    checkpoint: null,
    poolTime: 0,
    syncedAt: 0,
  };
}

/**
 * The wallet kept in `store` (or in Node the file at `path`), its version and network checked.
 * @throws when there is none, or it is for another network
 */
export async function openStored(
  options: WalletOptions & ({ readonly path: string } | { readonly store: WalletStore }),
): Promise<StoredWallet & { readonly store: WalletStore }> {
  const store = storeOf(options)!;
  const { state, leaves } = await store.load();
  checkStoredState(state, (options.network ?? DEVNET_NETWORK).network, store.name);
  return { store, state, leaves };
}

/** Writes one wallet's state to its store: a snapshot per write, one write after another. */
export class StateWriter {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly store: WalletStore | null,
    private readonly state: WalletState,
  ) {}

  /** Writes the state as it is now (serialised, in call order; a no-op without a store). */
  save(): Promise<void> {
    const store = this.store;
    if (!store) return Promise.resolve();
    const snapshot = structuredClone(this.state);
    this.writing = this.writing.catch(() => undefined).then(() => store.save(snapshot));
    return this.writing;
  }
}
