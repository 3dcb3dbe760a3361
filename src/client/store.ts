/**
 * @module Where a wallet keeps itself: one JSON file with the spending key, notes, pending
 * payments and cursors, readable only by its owner (mode 0600, written to a temporary file, synced
 * and renamed, so a crash leaves the old or the new state, never half of one), and beside it the
 * public leaves (`<file>.leaves`, 32 bytes each, appended). Without a path nothing is written.
 */

import type { DigestHex } from '../core/index.js';

/** Node's file API, loaded only when a wallet has a file (so the client also loads in browsers). */
const fs = () => import('node:fs/promises');

/** A note the wallet owns. */
export interface StoredNote {
  readonly commitment: DigestHex;
  /** Decimal atomic units. */
  readonly value: string;
  readonly rho: DigestHex;
  readonly index: number;
  readonly nullifier: DigestHex;
  /** How it came: a deposit (with its counter), the change of a spend, or a payment received. */
  readonly origin: 'deposit' | 'change' | 'received';
  readonly counter?: number;
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
  status: 'pending' | 'settled' | 'expired';
  settlementId?: string;
}

/** The wallet file's contents. */
export interface WalletState {
  readonly version: 1;
  readonly network: string;
  readonly asset: string;
  readonly sk: DigestHex;
  /** Deposit counters handed out (`H_DEPOSIT_RHO(sk, counter)`). */
  depositCounter: number;
  /**
   * Counters tried past the highest one found when recovering (0 for a key the wallet made itself:
   * only its own tickets can have been deposited to).
   */
  depositGap: number;
  notes: StoredNote[];
  pending: StoredPending[];
  /** Event cursor (id of the last event read). */
  eventCursor: number;
  /** Checkpoint cursor and the latest checkpoint. */
  checkpointCursor: number;
  checkpoint: { seq: number; root: DigestHex; size: number; time: number } | null;
  /** Latest pool time seen (unix ms), from events and checkpoints. */
  poolTime: number;
  /** Unix ms of the last completed sync. */
  syncedAt: number;
}

/** Reads a wallet file; refuses one that others can read. */
export async function readWalletFile(path: string): Promise<{ state: WalletState; leaves: DigestHex[] }> {
  const { readFile, stat } = await fs();
  const info = await stat(path);
  if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
    throw new Error(`wallet file ${path} is readable by others (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it`);
  }
  const state = JSON.parse(await readFile(path, 'utf8')) as WalletState;
  if (state.version !== 1) throw new Error(`wallet file ${path}: unknown version ${String(state.version)}`);
  const leaves: DigestHex[] = [];
  const bytes = await readFile(`${path}.leaves`).catch(() => Buffer.alloc(0));
  for (let offset = 0; offset + 32 <= bytes.length; offset += 32) leaves.push(`0x${bytes.subarray(offset, offset + 32).toString('hex')}` as DigestHex);
  return { state, leaves };
}

/** Writes the wallet file atomically with mode 0600. */
export async function writeWalletFile(path: string, state: WalletState): Promise<void> {
  const { chmod, open, rename } = await fs();
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(state)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/** Appends leaves to `<path>.leaves`, first cutting it to `from` leaves (a torn earlier append). */
export async function appendLeaves(path: string, from: number, leaves: readonly DigestHex[]): Promise<void> {
  const { open, truncate } = await fs();
  const file = `${path}.leaves`;
  const handle = await open(file, 'a', 0o600);
  try {
    const size = (await handle.stat()).size;
    if (size !== from * 32) await truncate(file, from * 32);
    const bytes = Buffer.alloc(leaves.length * 32);
    leaves.forEach((leaf, i) => bytes.write(leaf.slice(2), i * 32, 'hex'));
    await handle.write(bytes, 0, bytes.length, from * 32);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
