/**
 * @module Ready notes: a wallet keeps several notes spendable at once, so it can pay several
 * merchants together and pay again right after a payment — a payment spends one note, and the
 * change is spendable only once a checkpoint covers it (every `CHECKPOINT_INTERVAL_MS`, 2 s by
 * default). The keeper splits notes in the background by transfers to the wallet's own address
 * through the pool node (`Wallet.splitNote`, the payment statement as it is), halving the work
 * left each checkpoint: one deposit becomes `count` ready notes in about log2(count) checkpoints.
 * docs/client.md ("Ready notes") says why this and not a faster checkpoint cadence, and what the
 * splits reveal.
 */

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
  /** Notes locked by payments not yet resolved. */
  readonly locked: ReadonlySet<string>;
}

/** Most ready notes a keeper keeps (every leaf costs every wallet's sync). */
export const READY_NOTES_MAX = 64;

/**
 * The splits that bring a wallet towards `target`: none while the notes it has, spendable or
 * waiting for a checkpoint, already make the count; else the notes still wanted are shared out
 * over the spendable notes that hold at least two ready values, evenly (each gets one more in turn,
 * the one that would become fewest first, up to what it holds), and each such note is split in
 * half — in ready values — so every part keeps splitting in parallel at later rounds: about
 * log2(count) rounds in all. A note is never split below `value`.
 */
export function planSplits(view: WalletView, target: ReadyNotesTarget): PlannedSplit[] {
  const free = view.notes.filter((n) => !n.spent && !view.locked.has(n.commitment));
  const have = free.filter((n) => BigInt(n.value) >= target.value).length;
  let wanted = target.count - have;
  if (wanted <= 0) return [];
  const candidates = free
    .filter((n) => n.index < view.anchoredSize && BigInt(n.value) >= 2n * target.value)
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

/** Options of {@link ReadyNotesKeeper}. */
export interface ReadyNotesOptions {
  /** How often the keeper syncs and looks, ms (default 500). */
  readonly intervalMs?: number | undefined;
  /** Errors of a round (the pool unreachable, a split refused); the keeper keeps going. */
  readonly onError?: ((error: unknown) => void) | undefined;
}

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
  private timer: ReturnType<typeof setTimeout> | null = null;
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
  }

  /** Starts the rounds (idempotent). */
  start(): this {
    if (!this.stopped) return this;
    this.stopped = false;
    this.schedule(0);
    return this;
  }

  /** Stops after the round under way (splits already sent settle or expire as payments do). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.round;
  }

  /** Spendable notes of at least the target value now (as of the wallet's last sync). */
  ready(): number {
    const view = this.view();
    return view.notes.filter(
      (n) =>
        !view.locked.has(n.commitment) &&
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
    return {
      notes: this.wallet.notes(),
      anchoredSize: this.wallet.checkpoint?.size ?? 0,
      locked: this.wallet.lockedNotes(),
    };
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.round = this.runRound().finally(() => {
        for (const check of [...this.waiters]) check();
        this.schedule(this.intervalMs);
      });
    }, delayMs);
    this.timer.unref?.();
  }

  private async runRound(): Promise<void> {
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
}
