/**
 * @module A note's minimum age (docs/privacy.md, "Notes"): the wallet spends no note younger than
 * two of the pool's epochs plus an exponential delay with mean one epoch, drawn once per note when
 * the wallet finds it and counted from the pool's public time of the event that made it — so a
 * payment's anchor and time tell nothing of the deposit, settlement or split the note came from.
 * `spendNow` lifts the rule, with a warning. Without an epoch (a pool that publishes none) and
 * without explicit lengths, no minimum applies.
 */

import type { StoredNote } from './store.js';

/** How old a note must be before the wallet spends it (`WalletOptions.notes`). */
export interface NoteAgeOptions {
  /** Fixed part of the minimum age, ms (default two of the pool's epochs). */
  readonly baseMs?: number | undefined;
  /** Mean of its exponential part, ms (default one epoch). */
  readonly meanExtraMs?: number | undefined;
  /** Spends notes younger than their minimum age (warns once: the note's age links the payment). */
  readonly spendNow?: boolean | undefined;
  /**
   * Spends a note whose nullifier a payment that did not settle showed, without refreshing it
   * first (warns once: the operator can join that payment's request to the one that spends it).
   * The leak issue 25 closed, kept for its linkage test's twin; never a default.
   */
  readonly spendShown?: boolean | undefined;
  /** Uniform draws in [0, 1) for the exponential part (default: the platform's crypto). For tests. */
  readonly random?: (() => number) | undefined;
  /** The clock a note's age is read by, unix ms (default the wallet's). For tests. */
  readonly clock?: (() => number) | undefined;
  /** Where the `spendNow` and `spendShown` warnings go (default `console.warn`). */
  readonly onWarning?: ((message: string) => void) | undefined;
}

/** The exponential part is cut at this many means (a draw past it is as good as infinite). */
const EXTRA_CAP_MEANS = 12;

/** A uniform draw in [0, 1) from the platform's cryptographic generator. */
export function cryptoRandom(): number {
  const word = new Uint32Array(1);
  globalThis.crypto.getRandomValues(word);
  return word[0]! / 2 ** 32;
}

/** An exponential draw of mean `meanMs` from a uniform draw `u` in [0, 1). */
export function exponentialMs(meanMs: number, u: number): number {
  return Math.min(-meanMs * Math.log(1 - u), EXTRA_CAP_MEANS * meanMs);
}

/** The wallet's rule on note ages. */
export class NoteAges {
  readonly clock: () => number;
  private readonly random: () => number;
  private warned = false;
  private warnedShown = false;

  constructor(
    private readonly options: NoteAgeOptions,
    /** The pool's epoch, ms, or `null` (read each time: it may become known later). */
    private readonly epochMs: () => number | null,
    walletClock: () => number,
  ) {
    this.clock = options.clock ?? walletClock;
    this.random = options.random ?? cryptoRandom;
    for (const [name, value] of [
      ['baseMs', options.baseMs],
      ['meanExtraMs', options.meanExtraMs],
    ] as const)
      if (value !== undefined && !(Number.isFinite(value) && value >= 0))
        throw new RangeError(`notes.${name} expected a non-negative number of ms`);
  }

  /** Whether the rule is lifted (`spendNow`). */
  get spendNow(): boolean {
    return this.options.spendNow === true;
  }

  /**
   * When a note made by an event at pool time `bornAt` (unix ms) may be spent; `undefined` when no
   * minimum applies (no epoch known and no lengths given).
   */
  matureAt(bornAt: number): number | undefined {
    const epoch = this.epochMs();
    const base = this.options.baseMs ?? (epoch === null ? undefined : 2 * epoch);
    const mean = this.options.meanExtraMs ?? (epoch === null ? undefined : epoch);
    if (base === undefined && mean === undefined) return undefined;
    const extra = mean ? exponentialMs(mean, this.random()) : 0;
    return bornAt + (base ?? 0) + Math.ceil(extra);
  }

  /** Whether `note` is younger than its minimum age now (always false under `spendNow`). */
  isYoung(note: StoredNote): boolean {
    if (note.matureAt === undefined) return false;
    if (this.spendNow) {
      if (note.matureAt > this.clock()) this.warnOnce();
      return false;
    }
    return note.matureAt > this.clock();
  }

  /**
   * The shown notes the wallet holds back (`shown`), or none under `spendShown`, which warns the
   * first time it lets one through.
   */
  heldBackShown(shown: Set<string>): Set<string> {
    if (this.options.spendShown !== true) return shown;
    if (shown.size > 0 && !this.warnedShown) {
      this.warnedShown = true;
      const warn = this.options.onWarning ?? ((m: string) => console.warn(m));
      warn(
        'priv-stark: spending a note whose nullifier a payment that did not settle showed (spend-shown): the operator can join that payment to this one',
      );
    }
    return new Set();
  }

  private warnOnce(): void {
    if (this.warned) return;
    this.warned = true;
    const warn = this.options.onWarning ?? ((m: string) => console.warn(m));
    warn(
      "priv-stark: spending a note younger than its minimum age (spend-now): the payment's anchor and time can tie it to the deposit, settlement or split that made the note",
    );
  }
}
