/**
 * @module Which of a wallet's notes are what: locked (by a pending payment, or chosen by one being
 * built), spendable (unspent, unlocked, in the latest checkpoint synced), the balance they make, and
 * the note an operation spends — the one named, or the smallest that covers a payment.
 */

import { InsufficientFundsError, UnpayableRequirementsError, WalletBehindError } from './errors.js';
import type { StoredNote } from './store.js';
import type { WalletContext } from './wallet-context.js';

/** What the wallet holds, in atomic units. */
export interface Balance {
  /** Unspent notes in a checkpoint, not locked by a pending payment. */
  readonly spendable: bigint;
  /** Notes locked by payments not yet resolved. */
  readonly pending: bigint;
  /** Notes the pool has but no checkpoint covers yet (spendable after the next one). */
  readonly unconfirmed: bigint;
  /** Everything unspent. */
  readonly total: bigint;
}

/**
 * Commitments of the notes a new payment may not spend: those of pending payments and those a
 * payment being built has chosen.
 */
export function lockedNotes(ctx: WalletContext): Set<string> {
  const locked = new Set(ctx.reserved);
  for (const p of ctx.state.pending) if (p.status === 'pending') locked.add(p.note);
  return locked;
}

/** The balance, from notes and pending records only. */
export function balanceOf(ctx: WalletContext): Balance {
  const locked = lockedNotes(ctx);
  const anchored = ctx.state.checkpoint?.size ?? 0;
  let spendable = 0n;
  let pending = 0n;
  let unconfirmed = 0n;
  for (const note of ctx.state.notes) {
    if (note.spent) continue;
    const value = BigInt(note.value);
    if (locked.has(note.commitment)) pending += value;
    else if (note.index >= anchored) unconfirmed += value;
    else spendable += value;
  }
  return { spendable, pending, unconfirmed, total: spendable + pending + unconfirmed };
}

/** Unspent, unlocked notes in the latest checkpoint synced. */
export function spendableNotes(ctx: WalletContext): StoredNote[] {
  const size = ctx.state.checkpoint?.size ?? 0;
  const locked = lockedNotes(ctx);
  return ctx.state.notes.filter(
    (n) => !n.spent && !locked.has(n.commitment) && n.index < size && BigInt(n.value) > 0n,
  );
}

/**
 * An unspent, unlocked note of this wallet in the latest checkpoint synced.
 * @throws WalletBehindError when it is not in a checkpoint yet; UnpayableRequirementsError when it
 *   is unknown, spent or locked by a payment
 */
export function ownNote(ctx: WalletContext, commitment: string): StoredNote {
  const checkpoint = ctx.state.checkpoint;
  const note = ctx.state.notes.find((n) => n.commitment === commitment);
  if (!note || note.spent || lockedNotes(ctx).has(commitment))
    throw new UnpayableRequirementsError('no such unspent, unlocked note in this wallet');
  if (!checkpoint || note.index >= checkpoint.size)
    throw new WalletBehindError('the note is not in a checkpoint the wallet has synced yet');
  return note;
}

/**
 * The note a payment of `amount` spends: the smallest unspent, unlocked note in the latest
 * checkpoint synced that covers it.
 * @throws WalletBehindError (no checkpoint yet, or the covering note is not in one yet),
 *   InsufficientFundsError
 */
export function coveringNote(ctx: WalletContext, amount: bigint): StoredNote {
  const checkpoint = ctx.state.checkpoint;
  if (!checkpoint)
    throw new WalletBehindError('the wallet has no checkpoint: sync it with the pool first');
  const locked = lockedNotes(ctx);
  const usable = ctx.state.notes.filter((n) => !n.spent && !locked.has(n.commitment));
  const anchored = usable.filter((n) => n.index < checkpoint.size);
  const covering = anchored
    .filter((n) => BigInt(n.value) >= amount)
    .sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1));
  const note = covering[0];
  if (!note) {
    if (usable.some((n) => n.index >= checkpoint.size && BigInt(n.value) >= amount)) {
      throw new WalletBehindError(
        'the note that would pay this is not in a checkpoint the wallet has synced yet: sync again after the next checkpoint',
      );
    }
    const spendable = anchored.reduce((sum, n) => sum + BigInt(n.value), 0n);
    const largest = anchored.reduce(
      (max, n) => (BigInt(n.value) > max ? BigInt(n.value) : max),
      0n,
    );
    throw new InsufficientFundsError(amount, spendable, largest);
  }
  return note;
}
