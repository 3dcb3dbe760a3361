/**
 * @module `merge_notes` and `split_note`: note transitions the wallet proves (`POST /transitions` on
 * the pool node) that keep the value in the wallet. Not spending: never reserved in the spend
 * ledger nor counted against the policy; limited instead to so many per rolling minute in this
 * process, a slot taken before anything is sent and given back when nothing was.
 */

import { WalletError } from '../client/index.js';
import { parseAmount } from '../scheme/index.js';
import type { AgentContext } from './agent-context.js';
import { ToolError } from './errors.js';
import { spendableNotes } from './spendable-notes.js';
import type { MergeView, SplitView, TransitionRateView } from './views.js';

/** Merges and splits (`merge_notes`, `split_note`) allowed per rolling minute, by default. */
export const DEFAULT_TRANSITIONS_PER_MINUTE = 6;

/** This process's merges and splits in a rolling minute, against its limit. */
export class TransitionRate {
  /** When this process's recent merges and splits started (unix ms, oldest first). */
  private readonly times: number[] = [];

  /** @throws RangeError unless `perMinute` is a whole number, 0 or more */
  constructor(
    private readonly perMinute: number,
    private readonly clock: () => number,
  ) {
    if (!Number.isSafeInteger(perMinute) || perMinute < 0)
      throw new RangeError('transitionsPerMinute must be a whole number, 0 or more');
  }

  /** This process's merges and splits in the last minute, and the limit. */
  view(now = this.clock()): TransitionRateView {
    while (this.times.length > 0 && this.times[0]! <= now - 60_000) this.times.shift();
    return { used_last_minute: this.times.length, limit_per_minute: this.perMinute };
  }

  /**
   * Runs a merge or split in one of the minute's slots; the slot is given back when nothing was
   * sent (the sync failed, or the wallet refused before sending).
   */
  async inSlot<T>(
    work: (send: <R>(transition: () => Promise<R>) => Promise<R>) => Promise<T>,
  ): Promise<T> {
    const slot = this.take();
    let sent = false;
    try {
      return await work((transition) => {
        sent = true;
        return transition();
      });
    } catch (error) {
      if (!sent || error instanceof WalletError) this.giveBack(slot);
      throw error;
    }
  }

  /**
   * Takes one of the minute's merges and splits (synchronously: concurrent calls cannot pass the
   * limit together), or refuses.
   * @returns the slot, to give back when nothing was sent
   * @throws ToolError `rate_limited`
   */
  private take(): number {
    const now = this.clock();
    const { used_last_minute } = this.view(now);
    if (used_last_minute >= this.perMinute) {
      const wait =
        this.perMinute === 0
          ? null
          : Math.max(1, Math.ceil((this.times[0]! + 60_000 - now) / 1000));
      throw new ToolError(
        'rate_limited',
        this.perMinute === 0
          ? 'this server allows no merges or splits (its limit is 0 per minute)'
          : `this server allows at most ${this.perMinute} merges and splits per minute; the next one is possible in ${wait} s`,
      );
    }
    this.times.push(now);
    return now;
  }

  private giveBack(slot: number): void {
    const at = this.times.indexOf(slot);
    if (at !== -1) this.times.splice(at, 1);
  }
}

/**
 * `merge_notes`: merges two of the wallet's notes into one (default: the two smallest spendable).
 * Not spending: the value stays in the wallet; rate-limited per process.
 */
export async function mergeNotes(
  ctx: AgentContext,
  rate: TransitionRate,
  commitments?: readonly [string, string],
): Promise<MergeView> {
  const { wallet } = ctx;
  return rate.inSlot(async (send) => {
    await ctx.bookkeeping.sync();
    const notes = commitments
      ? commitments.map((c) => wallet.notes().find((n) => n.commitment === c))
      : spendableNotes(wallet)
          .sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1))
          .slice(0, 2);
    const pair = commitments ?? notes.map((n) => n!.commitment as string);
    // Unknown notes, or fewer than two: the wallet refuses, saying why.
    const receipt = await send(() =>
      wallet.mergeNotes(pair.length === 2 ? (pair as [string, string]) : undefined),
    );
    const value = notes.reduce((sum, n) => sum + BigInt(n?.value ?? 0), 0n);
    await ctx.bookkeeping.sync().catch(() => undefined);
    return {
      transaction: receipt.transaction,
      merged: pair as [string, string],
      value: value.toString(),
      output_indexes: receipt.outputIndexes,
      rate: rate.view(),
    };
  });
}

/**
 * `split_note`: splits one of the wallet's notes into `amount` and the rest (each at least
 * `MIN_OUTPUT_VALUE`). Not spending: the value stays in the wallet; rate-limited per process.
 */
export async function splitNote(
  ctx: AgentContext,
  rate: TransitionRate,
  commitment: string,
  amount: string,
): Promise<SplitView> {
  const { wallet } = ctx;
  const first = parseAmount(amount);
  if (first === null || first === 0n)
    throw new ToolError(
      'invalid_amount',
      'the amount must be atomic units: a positive decimal integer string below 2^62',
    );
  return rate.inSlot(async (send) => {
    await ctx.bookkeeping.sync();
    const note = wallet.notes().find((n) => n.commitment === commitment);
    const receipt = await send(() => wallet.splitPrivately(commitment, first));
    await ctx.bookkeeping.sync().catch(() => undefined);
    return {
      transaction: receipt.transaction,
      split: commitment,
      parts: [first.toString(), (BigInt(note?.value ?? 0) - first).toString()],
      output_indexes: receipt.outputIndexes,
      rate: rate.view(),
    };
  });
}
