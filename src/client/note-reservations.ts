/**
 * @module The one place a wallet's notes are reserved: a payment or transfer being built, and a note
 * transition (split, merge, refresh, exit), reserve the notes they spend here in the same
 * synchronous step that chooses them, and a note reserved — or locked by a pending payment — is
 * refused to every other reservation. So the ready-notes keeper's splits and the wallet's payments
 * never spend the same note (the pool would refuse the second: "already spent").
 */

import { UnpayableRequirementsError } from './errors.js';

/**
 * What holds a note: a payment being built (its pending record locks it after), a transition whose
 * outputs come back to the wallet, or an exit (its change alone comes back).
 */
export type ReservedFor = 'payment' | 'transition' | 'exit';

/** The notes reserved by operations under way, each by one operation only. */
export class NoteReservations {
  private readonly held = new Map<string, ReservedFor>();
  /**
   * When the latest reservation was made (unix ms, `clock`), `null` before the first: the start of
   * the wallet's latest write, which the background backing check keeps away from.
   */
  lastReservedAt: number | null = null;

  constructor(private readonly clock: () => number = Date.now) {}

  /**
   * Reserves all of `commitments` for `purpose`, or none.
   * @throws UnpayableRequirementsError when one is reserved already, locked (`locked`), or named twice
   */
  reserve(commitments: readonly string[], purpose: ReservedFor, locked: ReadonlySet<string>): void {
    const asked = new Set<string>();
    for (const commitment of commitments) {
      if (this.held.has(commitment) || locked.has(commitment) || asked.has(commitment))
        throw new UnpayableRequirementsError(
          'the note is reserved by another payment or transition of this wallet under way',
        );
      asked.add(commitment);
    }
    for (const commitment of asked) this.held.set(commitment, purpose);
    this.lastReservedAt = this.clock();
  }

  /** Gives `commitments` back (nothing of the operation that reserved them left the wallet). */
  release(commitments: readonly string[]): void {
    for (const commitment of commitments) this.held.delete(commitment);
  }

  /** Every note reserved. */
  commitments(): Set<string> {
    return new Set(this.held.keys());
  }

  /** The notes reserved for `purpose`. */
  heldFor(purpose: ReservedFor): Set<string> {
    const notes = new Set<string>();
    for (const [commitment, held] of this.held) if (held === purpose) notes.add(commitment);
    return notes;
  }
}
