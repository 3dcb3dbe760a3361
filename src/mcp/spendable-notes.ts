/**
 * @module The wallet's notes a payment or a transition can spend now: in a checkpoint, not locked
 * by a payment under way, not empty. A payment spends one note (v1), so the largest bounds it.
 */

import type { StoredNote, Wallet } from '../client/index.js';

/** Notes a transition can spend now: in a checkpoint, not locked, not empty (copies). */
export function spendableNotes(wallet: Wallet): StoredNote[] {
  const anchored = wallet.checkpoint?.size ?? 0;
  const locked = wallet.lockedNotes();
  return wallet
    .notes()
    .filter((n) => n.index < anchored && !locked.has(n.commitment) && BigInt(n.value) > 0n);
}

/** The largest note a payment can spend now (in a checkpoint, not locked): v1 spends one note. */
export function largestSpendableNote(wallet: Wallet): bigint {
  const anchored = wallet.checkpoint?.size ?? 0;
  const locked = wallet.lockedNotes();
  let largest = 0n;
  for (const note of wallet.notes())
    if (note.index < anchored && !locked.has(note.commitment) && BigInt(note.value) > largest)
      largest = BigInt(note.value);
  return largest;
}
