/**
 * @module The ground truth of a run, read from the wallets themselves after it: which wallet owns
 * each deposit commitment and each nullifier, which nullifiers paid a merchant, and which address
 * belongs to whom. The heuristics never see it; the AUCs are measured against it.
 */

import type { Wallet } from '../../src/client/index.js';

/** Who a loopback address belongs to. */
export interface Actor {
  readonly address: string;
  readonly role: 'wallet' | 'merchant' | 'bank';
  readonly id: number;
}

/** What the run knows that the operator must not. */
export interface GroundTruth {
  readonly actors: readonly Actor[];
  /** Deposit commitment → wallet id. */
  readonly deposits: ReadonlyMap<string, number>;
  /** Nullifier of any note a wallet owned → wallet id. */
  readonly nullifiers: ReadonlyMap<string, number>;
}

/** The truth of `wallets` (indexed by id) and the actors' addresses. */
export function groundTruth(wallets: readonly Wallet[], actors: readonly Actor[]): GroundTruth {
  const deposits = new Map<string, number>();
  const nullifiers = new Map<string, number>();
  wallets.forEach((wallet, id) => {
    for (const note of wallet.allNotes()) {
      nullifiers.set(note.nullifier, id);
      if (note.origin === 'deposit') deposits.set(note.commitment, id);
    }
    for (const payment of wallet.payments()) nullifiers.set(payment.nullifier, id);
  });
  return { actors, deposits, nullifiers };
}

/** The wallet an item came from (`undefined`: not a wallet's, e.g. a dummy nullifier only). */
export function ownerOf(
  truth: GroundTruth,
  item: { kind: string; keys: readonly string[] },
): number | undefined {
  for (const key of item.keys) {
    const owner = item.kind === 'deposit' ? truth.deposits.get(key) : truth.nullifiers.get(key);
    if (owner !== undefined) return owner;
  }
  return undefined;
}
