/**
 * @module Which of a wallet's notes are what: locked (by a pending payment, or chosen by one being
 * built), shown (its nullifier shown by a payment that did not settle: refreshed before it pays
 * again), young (below its minimum age, `note-age.ts`), spendable (unspent, unlocked, in the latest
 * checkpoint synced, neither shown nor young), the balance they make, and the note an operation
 * spends — the one named, or the smallest that covers a payment.
 */

import {
  InsufficientFundsError,
  NoteTooYoungError,
  UnpayableRequirementsError,
  WalletBehindError,
} from './errors.js';
import type { ReservedFor } from './note-reservations.js';
import type { StoredNote } from './store.js';
import { refreshAnchor } from './wallet-anchor.js';
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
  const locked = ctx.reserved.commitments();
  for (const p of ctx.state.pending) if (p.status === 'pending') locked.add(p.note);
  return locked;
}

/**
 * Commitments of the notes payments under way hold: chosen by a payment being built, or locked by
 * a pending payment until it settles or expires.
 */
export function payingNotes(ctx: WalletContext): Set<string> {
  const paying = ctx.reserved.heldFor('payment');
  for (const p of ctx.state.pending) if (p.status === 'pending') paying.add(p.note);
  return paying;
}

/**
 * Reserves `notes` for an operation, in the same synchronous step that chose them: a note reserved
 * or locked already is refused, so a payment and a split never both spend it.
 * @throws UnpayableRequirementsError when one is reserved or locked already
 */
export function reserveNotes(
  ctx: WalletContext,
  notes: readonly StoredNote[],
  purpose: ReservedFor,
): void {
  const pending = new Set<string>();
  for (const p of ctx.state.pending) if (p.status === 'pending') pending.add(p.note);
  ctx.reserved.reserve(
    notes.map((n) => n.commitment),
    purpose,
    pending,
  );
}

/**
 * Commitments of unspent notes whose nullifier a payment showed without settling (its record
 * expired: past its expiry, or its hand-over refused after it left the wallet): a payment from one
 * would show that nullifier again and link the two, so the wallet refreshes it by a private
 * transition first (docs/privacy.md, "Notes"). None under `notes.spendShown`, which warns.
 */
export function shownNotes(ctx: WalletContext): Set<string> {
  const shown = new Set<string>();
  for (const p of ctx.state.pending) if (p.status === 'expired') shown.add(p.note);
  for (const n of ctx.state.notes) if (n.spent) shown.delete(n.commitment);
  return ctx.noteAges.heldBackShown(shown);
}

/** The balance, from notes and pending records only. */
export function balanceOf(ctx: WalletContext): Balance {
  const locked = lockedNotes(ctx);
  const anchored = refreshAnchor(ctx)?.size ?? 0;
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

/** Unspent, unlocked notes in the latest checkpoint synced, neither shown nor young. */
export function spendableNotes(ctx: WalletContext): StoredNote[] {
  const size = refreshAnchor(ctx)?.size ?? 0;
  const locked = lockedNotes(ctx);
  const shown = shownNotes(ctx);
  return ctx.state.notes.filter(
    (n) =>
      !n.spent &&
      !locked.has(n.commitment) &&
      !shown.has(n.commitment) &&
      n.index < size &&
      BigInt(n.value) > 0n &&
      !ctx.noteAges.isYoung(n),
  );
}

/**
 * An unspent, unlocked note of this wallet in the latest checkpoint synced, of its minimum age (a
 * shown note may be named: refreshing it is naming it).
 * @throws WalletBehindError when it is not in a checkpoint yet (NoteTooYoungError below its age);
 *   UnpayableRequirementsError when it is unknown, spent or locked by a payment
 */
export function ownNote(ctx: WalletContext, commitment: string): StoredNote {
  // The anchor the epoch grid names now: notes are chosen against it (wallet-anchor.ts).
  const checkpoint = refreshAnchor(ctx);
  const note = ctx.state.notes.find((n) => n.commitment === commitment);
  if (!note || note.spent || lockedNotes(ctx).has(commitment))
    throw new UnpayableRequirementsError('no such unspent, unlocked note in this wallet');
  if (!checkpoint || note.index >= checkpoint.size)
    throw new WalletBehindError('the note is not in a checkpoint the wallet has synced yet');
  if (ctx.noteAges.isYoung(note)) throw new NoteTooYoungError(note.matureAt!);
  return note;
}

/**
 * The note a payment of `amount` spends: the smallest unspent, unlocked note in the latest
 * checkpoint synced that covers it, neither shown nor young.
 * @throws WalletBehindError (no checkpoint yet, the covering note is not in one yet, it is shown
 *   and waits for its refresh: `note_needs_refresh`, or notes of this wallet holding the amount are
 *   in a transition under way: `notes_in_transition`), NoteTooYoungError, InsufficientFundsError
 */
export function coveringNote(ctx: WalletContext, amount: bigint): StoredNote {
  const checkpoint = refreshAnchor(ctx);
  if (!checkpoint)
    throw new WalletBehindError('the wallet has no checkpoint: sync it with the pool first');
  const locked = lockedNotes(ctx);
  const usable = ctx.state.notes.filter((n) => !n.spent && !locked.has(n.commitment));
  const anchored = usable.filter((n) => n.index < checkpoint.size);
  const covering = anchored
    .filter((n) => BigInt(n.value) >= amount)
    .sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1));
  const shown = shownNotes(ctx);
  const note = covering.find((n) => !shown.has(n.commitment) && !ctx.noteAges.isYoung(n));
  if (!note && covering.length > 0) {
    const young = covering.filter((n) => !shown.has(n.commitment));
    if (young.length > 0)
      throw new NoteTooYoungError(Math.min(...young.map((n) => n.matureAt ?? 0)));
    throw new WalletBehindError(
      'the notes that would pay this showed their nullifier in a payment that did not settle: the wallet refreshes them by a private transition first (the ready-notes keeper, or Wallet.refreshShownNotes)',
      'note_needs_refresh',
    );
  }
  if (!note) {
    if (usable.some((n) => n.index >= checkpoint.size && BigInt(n.value) >= amount)) {
      throw new WalletBehindError(
        'the note that would pay this is not in a checkpoint the wallet has synced yet: sync again after the next checkpoint',
      );
    }
    // A note a transition of this wallet spends comes back as its outputs once the log shows them:
    // wait for them rather than answer insufficient funds.
    const transiting = ctx.reserved.heldFor('transition');
    const returning = ctx.state.notes
      .filter((n) => !n.spent && transiting.has(n.commitment))
      .reduce((sum, n) => sum + BigInt(n.value), 0n);
    if (returning >= amount)
      throw new WalletBehindError(
        'the notes that would pay this are in a split, merge or refresh of this wallet under way: sync again once the log shows its outputs',
        'notes_in_transition',
      );
    const spendable = anchored.reduce((sum, n) => sum + BigInt(n.value), 0n);
    const largest = anchored.reduce(
      (max, n) => (BigInt(n.value) > max ? BigInt(n.value) : max),
      0n,
    );
    throw new InsufficientFundsError(amount, spendable, largest);
  }
  return note;
}
