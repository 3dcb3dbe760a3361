/**
 * @module A wallet in the browser's IndexedDB: the state in one record, the public leaves in chunks
 * of packed bytes keyed by their first index (one chunk per page the wallet read). Every write is
 * one transaction, resolved once the browser reports it complete with strict durability, so a
 * pending payment is on disk before its payload leaves. The spending key is in the state: anyone
 * running script on the page's origin can read it, as with any browser wallet.
 */

import type { DigestHex } from '../core/digest.js';
import {
  packLeaves,
  type StoredWallet,
  unpackLeaves,
  type WalletState,
  type WalletStore,
} from './store.js';

const STATE = 'state';
const LEAVES = 'leaves';
const STATE_KEY = 'wallet';

function done(request: IDBRequest): Promise<unknown> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

function committed(transaction: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () =>
      reject(transaction.error ?? new Error('IndexedDB transaction failed'));
    transaction.onabort = () =>
      reject(transaction.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/** The wallet in the IndexedDB database `priv-stark-wallet:<name>` of the page's origin. */
export class IndexedDbWalletStore implements WalletStore {
  readonly name: string;
  private db: Promise<IDBDatabase> | null = null;

  /**
   * @param name the wallet's name (one database per wallet)
   * @param indexedDB the factory (default the page's `indexedDB`)
   */
  constructor(
    name: string,
    private readonly factory: IDBFactory = globalThis.indexedDB,
  ) {
    if (!factory)
      throw new Error(
        'IndexedDB is not available here: use a MemoryWalletStore or, in Node, a wallet file',
      );
    this.name = `priv-stark-wallet:${name}`;
  }

  private open(): Promise<IDBDatabase> {
    this.db ??= new Promise((resolve, reject) => {
      const request = this.factory.open(this.name, 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore(STATE);
        request.result.createObjectStore(LEAVES);
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () =>
        reject(request.error ?? new Error(`could not open IndexedDB ${this.name}`));
    });
    return this.db;
  }

  private async write(stores: string[], run: (transaction: IDBTransaction) => void): Promise<void> {
    const db = await this.open();
    const transaction = db.transaction(stores, 'readwrite', { durability: 'strict' });
    const complete = committed(transaction);
    run(transaction);
    await complete;
  }

  /** Refuses a database that already holds a wallet. */
  async create(state: WalletState): Promise<void> {
    await this.write([STATE, LEAVES], (transaction) => {
      const states = transaction.objectStore(STATE);
      const existing = states.getKey(STATE_KEY);
      existing.onsuccess = () => {
        if (existing.result !== undefined) {
          transaction.abort();
          return;
        }
        states.put(state, STATE_KEY);
        transaction.objectStore(LEAVES).clear();
      };
    }).catch((error: unknown) => {
      throw new Error(`wallet ${this.name} already exists or cannot be written`, { cause: error });
    });
  }

  async load(): Promise<StoredWallet> {
    const db = await this.open();
    const transaction = db.transaction([STATE, LEAVES], 'readonly');
    const [state, keys, chunks] = (await Promise.all([
      done(transaction.objectStore(STATE).get(STATE_KEY)),
      done(transaction.objectStore(LEAVES).getAllKeys()),
      done(transaction.objectStore(LEAVES).getAll()),
    ])) as [WalletState | undefined, number[], Uint8Array[]];
    if (state === undefined) throw new Error(`wallet ${this.name} does not exist`);
    const leaves: DigestHex[] = [];
    // Keys are the chunks' first indices, in order; anything after a gap is ignored (re-read by sync).
    for (let i = 0; i < keys.length && keys[i] === leaves.length; i++)
      for (const leaf of unpackLeaves(chunks[i]!)) leaves.push(leaf);
    return { state, leaves };
  }

  async save(state: WalletState): Promise<void> {
    await this.write([STATE], (transaction) => {
      transaction.objectStore(STATE).put(state, STATE_KEY);
    });
  }

  async appendLeaves(from: number, leaves: readonly DigestHex[]): Promise<void> {
    const bytes = packLeaves(leaves);
    await this.write([LEAVES], (transaction) => {
      const store = transaction.objectStore(LEAVES);
      store.delete(IDBKeyRange.lowerBound(from));
      store.put(bytes, from);
    });
  }

  /** Closes the database connection. */
  async close(): Promise<void> {
    if (this.db) (await this.db).close();
    this.db = null;
  }
}
