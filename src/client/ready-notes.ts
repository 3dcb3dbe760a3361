/**
 * @module Ready notes: a wallet keeps several notes spendable at once, so it can pay several
 * merchants together and pay again right after a payment — a payment spends one note, and the
 * change is spendable only once a checkpoint covers it and it has its minimum age. The keeper
 * splits notes in the background by the transition statement (`Wallet.splitPrivately`: the pool
 * sees neither the amount nor the address), halving the work left at each round, at rounds on a
 * Poisson schedule — exponential intervals that no payment starts or delays — and refreshes the
 * notes a payment that did not settle showed. Transfers to the wallet's own address (which show
 * the amount and the address) only when asked (`transparent`). docs/client.md ("Ready notes") and
 * docs/privacy.md ("Notes") say what the splits reveal.
 */

import { cryptoRandom, exponentialMs } from './note-age.js';
import type { StoredNote } from './store.js';
import type { Wallet } from './wallet.js';

/** What the keeper keeps: `count` spendable notes of at least `value` atomic units each. */
export interface ReadyNotesTarget {
  readonly count: number;
  readonly value: bigint;
}

/** One split the keeper makes: `amount` of the note `note` to the wallet itself. */
export interface PlannedSplit {
  readonly note: string;
  readonly amount: bigint;
}

/** What the plan reads of a wallet. */
export interface WalletView {
  /** Unspent notes. */
  readonly notes: readonly StoredNote[];
  /** Leaves the latest checkpoint synced covers: a note below it is spendable. */
  readonly anchoredSize: number;
  /** Notes locked by payments not yet resolved, or reserved by an operation under way. */
  readonly locked: ReadonlySet<string>;
  /**
   * Of `locked`, the notes payments under way hold: still counted towards the target until their
   * payment resolves (default none).
   */
  readonly paying?: ReadonlySet<string> | undefined;
  /** Notes below their minimum age: counted, not split yet (default none). */
  readonly young?: ReadonlySet<string> | undefined;
}

/** What the plan reads of `wallet` now. */
export function walletView(wallet: Wallet): WalletView {
  return {
    notes: wallet.notes(),
    anchoredSize: wallet.checkpoint?.size ?? 0,
    locked: wallet.lockedNotes(),
    paying: wallet.payingNotes(),
    young: wallet.youngNotes(),
  };
}

/** Most ready notes a keeper keeps (every leaf costs every wallet's sync). */
export const READY_NOTES_MAX = 64;

/**
 * The splits that bring a wallet towards `target`: none while the notes it has, spendable or
 * waiting for a checkpoint, already make the count — a note a payment under way holds counts until
 * that payment resolves, since a split that replaced it at once would take a note that a payment
 * made beside it may need; else the notes still wanted are shared out
 * over the spendable notes that hold at least two ready values, evenly (each gets one more in turn,
 * the one that would become fewest first, up to what it holds), and each such note is split in
 * half — in ready values — so every part keeps splitting in parallel at later rounds: about
 * log2(count) rounds in all. A note is never split below `value`.
 */
export function planSplits(view: WalletView, target: ReadyNotesTarget): PlannedSplit[] {
  const free = view.notes.filter((n) => !n.spent && !view.locked.has(n.commitment));
  const held = view.notes.filter((n) => !n.spent && view.paying?.has(n.commitment) === true);
  const have = [...free, ...held].filter((n) => BigInt(n.value) >= target.value).length;
  let wanted = target.count - have;
  if (wanted <= 0) return [];
  const candidates = free
    .filter(
      (n) =>
        n.index < view.anchoredSize &&
        !view.young?.has(n.commitment) &&
        BigInt(n.value) >= 2n * target.value,
    )
    .map((n) => ({ note: n, holds: Number(BigInt(n.value) / target.value), becomes: 1 }));
  while (wanted > 0) {
    let next: (typeof candidates)[number] | undefined;
    for (const c of candidates)
      if (c.becomes < c.holds && (next === undefined || c.becomes < next.becomes)) next = c;
    if (next === undefined) break;
    next.becomes++;
    wanted--;
  }
  return candidates
    .filter((c) => c.becomes >= 2)
    .map((c) => ({
      note: c.note.commitment,
      amount: BigInt(Math.floor(c.becomes / 2)) * target.value,
    }));
}

/** Timers the keeper schedules its rounds with (default `setTimeout`/`clearTimeout`). */
export interface KeeperTimers {
  set(run: () => void, delayMs: number): unknown;
  clear(handle: unknown): void;
}

/** Options of {@link ReadyNotesKeeper}. */
export interface ReadyNotesOptions {
  /**
   * Mean time between rounds, ms: each interval is drawn from an exponential distribution (a
   * Poisson schedule), whatever the wallet pays (default 500).
   */
  readonly intervalMs?: number | undefined;
  /** Errors of a round (the pool unreachable, a split refused); the keeper keeps going. */
  readonly onError?: ((error: unknown) => void) | undefined;
  /**
   * Splits by transfers to the wallet's own address, as before private splits: they show the pool
   * each part's amount and the wallet's address. Only on explicit request.
   */
  readonly transparent?: boolean | undefined;
  /** Uniform draws in [0, 1) for the schedule (default: the platform's crypto). For tests. */
  readonly random?: (() => number) | undefined;
  /** Timers for the schedule. For tests. */
  readonly timers?: KeeperTimers | undefined;
}

const SYSTEM_TIMERS: KeeperTimers = {
  set: (run, delayMs) => {
    const handle = setTimeout(run, delayMs);
    handle.unref?.();
    return handle;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Keeps a wallet's ready notes in the background.
 * @example
 * const keeper = new ReadyNotesKeeper(wallet, { count: 8, value: 100_000n }).start();
 * await keeper.whenReady(); // eight notes of at least 100,000 are spendable
 * await Promise.all(merchants.map((url) => pay(url))); // eight payments at once
 * await keeper.stop();
 */
export class ReadyNotesKeeper {
  private readonly intervalMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly transparent: boolean;
  private readonly random: () => number;
  private readonly timers: KeeperTimers;
  private timer: unknown = null;
  /** Leaf indexes of split outputs not yet found by a sync: no new plan meanwhile. */
  private readonly awaited = new Set<number>();
  private round: Promise<void> = Promise.resolve();
  private stopped = true;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly wallet: Wallet,
    readonly target: ReadyNotesTarget,
    options: ReadyNotesOptions = {},
  ) {
    if (!Number.isSafeInteger(target.count) || target.count < 1 || target.count > READY_NOTES_MAX)
      throw new RangeError(`"count" expected an integer in 1..${READY_NOTES_MAX}`);
    if (typeof target.value !== 'bigint' || target.value <= 0n)
      throw new RangeError('"value" expected a positive bigint of atomic units');
    this.intervalMs = options.intervalMs ?? 500;
    this.onError = options.onError ?? (() => undefined);
    this.transparent = options.transparent === true;
    this.random = options.random ?? cryptoRandom;
    this.timers = options.timers ?? SYSTEM_TIMERS;
  }

  /** Starts the rounds (idempotent). */
  start(): this {
    if (!this.stopped) return this;
    this.stopped = false;
    this.schedule(this.nextDelay());
    return this;
  }

  /** Stops after the round under way (splits already sent settle or expire as payments do). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    await this.round;
  }

  /**
   * Spendable notes of at least the target value now (as of the wallet's last sync): anchored,
   * unlocked, of their minimum age.
   */
  ready(): number {
    const view = this.view();
    return view.notes.filter(
      (n) =>
        !view.locked.has(n.commitment) &&
        !view.young?.has(n.commitment) &&
        n.index < view.anchoredSize &&
        BigInt(n.value) >= this.target.value,
    ).length;
  }

  /**
   * Resolves once {@link ready} reaches the target's count.
   * @throws Error when `timeoutMs` passes first (the wallet holds too little, or the pool is down)
   */
  whenReady(timeoutMs = 60_000): Promise<void> {
    if (this.ready() >= this.target.count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timeout = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `${this.ready()} of ${this.target.count} ready notes after ${timeoutMs} ms: the wallet holds too little, or the pool does not answer`,
          ),
        );
      }, timeoutMs);
      const check = () => {
        if (this.ready() < this.target.count) return;
        clearTimeout(timeout);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  private view(): WalletView {
    return walletView(this.wallet);
  }

  /** The next interval: exponential with mean `intervalMs` (a Poisson schedule). */
  private nextDelay(): number {
    return Math.round(exponentialMs(this.intervalMs, this.random()));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.timers.set(() => {
      this.round = this.runRound().finally(() => {
        for (const check of [...this.waiters]) check();
        this.schedule(this.nextDelay());
      });
    }, delayMs);
  }

  private async runRound(): Promise<void> {
    if (!this.transparent) return this.privateRound();
    try {
      await this.wallet.sync();
      // Wait while anything of the wallet's is pending: a split of ours not yet in the log (its
      // notes are not counted yet), or a payment being made (a split's proof would take the cores
      // the payment's proof needs, and a split right beside a payment links them in time).
      const pending = this.wallet.payments().some((p) => p.status === 'pending');
      if (pending || this.stopped) return;
      const plans = planSplits(this.view(), this.target);
      if (plans.length === 0) return;
      const results = await Promise.allSettled(
        plans.map((plan) => this.wallet.splitNote(plan.note, plan.amount)),
      );
      for (const result of results) if (result.status === 'rejected') this.onError(result.reason);
      if (results.some((r) => r.status === 'fulfilled')) await this.wallet.sync();
    } catch (error) {
      this.onError(error);
    }
  }

  /**
   * A round of private splits: sync; refresh the notes a payment showed; then, once the outputs of
   * the last splits are found, split as planned. Nothing here waits on payments: a round runs at
   * its drawn time whether the wallet pays or not.
   */
  private async privateRound(): Promise<void> {
    try {
      await this.wallet.sync();
      if (this.stopped) return;
      const found = new Set(this.wallet.allNotes().map((n) => n.index));
      for (const index of [...this.awaited]) if (found.has(index)) this.awaited.delete(index);
      if (this.awaited.size > 0) return;
      const refreshed = await this.wallet.refreshShownNotes();
      for (const receipt of refreshed) this.awaited.add(receipt.outputIndexes[0]);
      const plans = planSplits(this.view(), this.target);
      const results = await Promise.allSettled(
        plans.map((plan) => this.wallet.splitPrivately(plan.note, plan.amount)),
      );
      for (const result of results)
        if (result.status === 'rejected') this.onError(result.reason);
        else for (const index of result.value.outputIndexes) this.awaited.add(index);
    } catch (error) {
      this.onError(error);
    }
  }
}
