/**
 * @module The wallet's backing check in the background (docs/audit.md, "Wallet: verify-backing"):
 * `verifyBacking` against the user's own RPC, through the wallet's proxy, at jittered times that
 * never fall next to one of the wallet's writes.
 *
 * When: only at the epoch follower's slots — a uniform point of [B + D/4, B + 3D/4) after a
 * boundary B, where every wallet reads the same fixed pages — and at each slot with probability
 * `E / everyMs` (a geometric number of slots apart, drawn from the platform's crypto), so checks
 * come on average every `everyMs` and the time of one says nothing of the wallet's activity.
 * A slot that falls while a write (payment, transfer, transition, exit) is under way or within
 * the quiet window after one began is skipped and the next check drawn afresh from there: a check
 * carried over to the end of the window would itself mark where a write was. A write that begins
 * while a check runs stops it before its next read. What it reads is the same for every wallet.
 */

import type { PublicClient } from 'viem';

import type { EpochGrid } from '../scheme/index.js';
import type { BackingCheckResult } from './backing-result.js';
import type { BackingReport } from './chain-backing.js';
import { type FollowTime, nextFollowTime, UNREFERENCED_TIMERS } from './epoch-follower.js';
import { WalletError } from './errors.js';
import { cryptoRandom } from './note-age.js';
import type { KeeperTimers } from './ready-notes.js';
import { backgroundTasks } from './wallet-background.js';

export type { BackingCheckFailure, BackingCheckResult } from './backing-result.js';

/** The mean time between checks by default, ms: the attester's default interval (hourly). */
export const DEFAULT_BACKING_CHECK_EVERY_MS = 3_600_000;
/** The quiet window after a write began, in epochs of the pool's grid (at least the minimum). */
export const BACKING_QUIET_EPOCHS = 2;
/** The quiet window's minimum, ms. */
export const BACKING_QUIET_MIN_MS = 120_000;
/** Slot length where the pool has no grid (a devnet with `EPOCH_MS=1`) or none is known yet, ms. */
const NO_GRID_SLOT_MS = 60_000;

/** A wallet's background backing check (`checkBackingInBackground`, `priv-stark/client/chain`). */
export interface BackingCheckOptions {
  /**
   * The user's own RPC (an http(s) URL, read through the wallet's proxy), or a viem client of it.
   * There is no default: a public RPC would see every wallet that checks.
   */
  readonly rpc: string | PublicClient;
  /** Mean time between checks, ms (default {@link DEFAULT_BACKING_CHECK_EVERY_MS}). */
  readonly everyMs?: number | undefined;
  /**
   * No check within this long after a write began, ms (default {@link BACKING_QUIET_EPOCHS} epochs
   * of the pool's grid, at least {@link BACKING_QUIET_MIN_MS}).
   */
  readonly quietMs?: number | undefined;
  /** Each check's outcome, a report or a failure (a throw here is ignored). */
  readonly onResult?: ((result: BackingCheckResult) => void) | undefined;
  /** Uniform draws in [0, 1) (default: the platform's crypto). For tests. */
  readonly random?: (() => number) | undefined;
  /** Timers (default: `setTimeout`, unreferenced). For tests. */
  readonly timers?: KeeperTimers | undefined;
  /** Unix ms (default `Date.now`). For tests. */
  readonly clock?: (() => number) | undefined;
}

/** One check: `verifyBacking` with its `beforeRead` hook (bound to the wallet and the RPC). */
export type BackingCheckRun = (
  beforeRead: (target: 'rpc' | 'pool') => void,
) => Promise<BackingReport>;

/** What the schedule reads of the wallet (a `Wallet`). */
export interface ScheduledWallet {
  readonly epochGrid: EpochGrid | null;
  /** Whether a payment, transfer, transition or exit is under way. */
  writesUnderWay(): boolean;
  /** When the latest write began (unix ms), `null` when none is known. */
  readonly lastWriteAt: number | null;
}

/**
 * The options checked before anything starts.
 * @throws WalletError `backing_check_no_escrow` for a pool not backed by an escrow,
 *   `backing_check_rpc_invalid` for an RPC that is not an http(s) URL, `backing_check_interval`
 *   for an interval or quiet window that is not a positive whole number of ms
 */
export function checkBackingOptions(
  options: BackingCheckOptions,
  escrow: string | undefined,
): void {
  if (escrow === undefined)
    throw new WalletError(
      'backing_check_no_escrow',
      'a backing check needs a pool backed by an escrow on a chain',
    );
  if (typeof options.rpc === 'string' && !/^https?:\/\/\S+$/.test(options.rpc))
    throw new WalletError(
      'backing_check_rpc_invalid',
      "the backing check's RPC is not an http(s) URL",
    );
  for (const ms of [options.everyMs, options.quietMs])
    if (ms !== undefined && !(Number.isSafeInteger(ms) && ms > 0))
      throw new WalletError(
        'backing_check_interval',
        "the backing check's interval and quiet window are positive whole numbers of ms",
      );
}

/** How many slots ahead the next check falls: geometric with success `p` per slot (≥ 1). */
export function slotsAhead(p: number, u: number): number {
  if (p >= 1) return 1;
  return 1 + Math.floor(Math.log(1 - u) / Math.log(1 - p));
}

/**
 * When the check `slots` slots ahead of `now` runs, at a uniform point `u` of its slot: on a grid,
 * the follower's window of the `slots`-th boundary after `followed` whose window has not passed;
 * without one, `slotMs` periods from `now` (`boundary` is then the time itself).
 */
export function nextCheckTime(
  now: number,
  grid: EpochGrid | null,
  slotMs: number,
  slots: number,
  u: number,
  followed = Number.NEGATIVE_INFINITY,
): FollowTime {
  if (grid !== null && grid.epochMs > 1) {
    const first = nextFollowTime(now, grid, u, followed);
    const later = (slots - 1) * grid.epochMs;
    return { boundary: first.boundary + later, at: first.at + later };
  }
  const at = now + Math.round((slots - 1 + u) * slotMs);
  return { boundary: at, at };
}

/** Thrown through `beforeRead` to stop a check that must not go on (a write began, or a stop). */
class CheckInterrupted extends Error {}

/**
 * A wallet's background backing check (`checkBackingInBackground` starts it; `Wallet.stop` ends
 * it).
 */
export class BackingSchedule {
  private readonly everyMs: number;
  private readonly random: () => number;
  private readonly timers: KeeperTimers;
  private readonly clock: () => number;
  private timer: unknown = null;
  private checking: Promise<void> = Promise.resolve();
  private stopped = true;
  /** After a failure the next slot retries. */
  private retry = false;
  /** The boundary of the latest slot, so the next is for a later one. */
  private slot = Number.NEGATIVE_INFINITY;
  private latest: BackingCheckResult | null = null;
  /** Slots skipped or checks stopped for a write (not reported: it would say the wallet wrote). */
  postponed = 0;

  constructor(
    private readonly wallet: ScheduledWallet,
    private readonly check: BackingCheckRun,
    private readonly options: BackingCheckOptions,
  ) {
    this.everyMs = options.everyMs ?? DEFAULT_BACKING_CHECK_EVERY_MS;
    this.random = options.random ?? cryptoRandom;
    this.timers = options.timers ?? UNREFERENCED_TIMERS;
    this.clock = options.clock ?? Date.now;
  }

  /** The latest outcome, `null` before the first. */
  get last(): BackingCheckResult | null {
    return this.latest;
  }

  /** Whether the schedule is running. */
  get running(): boolean {
    return !this.stopped;
  }

  /** Starts (idempotent). */
  start(): this {
    if (!this.stopped) return this;
    this.stopped = false;
    this.scheduleNext();
    return this;
  }

  /** Resolves once the check under way (if any) has ended. */
  settled(): Promise<void> {
    return this.checking;
  }

  /** Stops: no further slot, and the check under way sends nothing more. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    await this.checking;
  }

  /** The quiet window after a write began, ms. */
  private quietMs(): number {
    const epochMs = this.wallet.epochGrid?.epochMs ?? 0;
    return this.options.quietMs ?? Math.max(BACKING_QUIET_MIN_MS, BACKING_QUIET_EPOCHS * epochMs);
  }

  /** Whether no write is under way and none began within the quiet window. */
  private quiet(): boolean {
    if (this.wallet.writesUnderWay()) return false;
    const began = this.wallet.lastWriteAt;
    return began === null || this.clock() - began >= this.quietMs();
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    const now = this.clock();
    const grid = this.wallet.epochGrid;
    const slotMs =
      grid !== null && grid.epochMs > 1 ? grid.epochMs : Math.min(this.everyMs, NO_GRID_SLOT_MS);
    const slots = this.retry ? 1 : slotsAhead(slotMs / this.everyMs, this.random());
    this.retry = false;
    const next = nextCheckTime(now, grid, slotMs, slots, this.random(), this.slot);
    this.slot = next.boundary;
    this.timer = this.timers.set(() => this.due(), next.at - now);
  }

  private due(): void {
    this.timer = null;
    if (this.stopped) return;
    if (!this.quiet()) {
      // Skipped, not carried over: the next check is drawn afresh from this slot.
      this.postponed++;
      this.scheduleNext();
      return;
    }
    const began = this.wallet.lastWriteAt;
    let target: 'rpc' | 'pool' = 'pool';
    const beforeRead = (next: 'rpc' | 'pool') => {
      if (this.stopped || this.wallet.lastWriteAt !== began || !this.quiet())
        throw new CheckInterrupted();
      target = next;
    };
    this.checking = this.check(beforeRead)
      .then(
        (report) => this.record({ kind: 'report', at: this.clock(), ok: report.ok, report }),
        (error: unknown) => {
          if (error instanceof CheckInterrupted) {
            this.postponed++;
            return;
          }
          this.retry = true;
          this.record({
            kind: 'failed',
            at: this.clock(),
            ok: false,
            code: target === 'rpc' ? 'backing_rpc_failed' : 'backing_pool_failed',
            message: firstLine(error),
          });
        },
      )
      .finally(() => this.scheduleNext());
  }

  private record(result: BackingCheckResult): void {
    this.latest = result;
    try {
      this.options.onResult?.(result);
    } catch {
      // The user's callback never stops the schedule.
    }
  }
}

/**
 * Starts `wallet`'s background check running `check` unless one runs already, and returns it:
 * `checkBackingInBackground` (`priv-stark/client/chain`) binds `verifyBacking` to the user's RPC.
 * `Wallet.stop` ends it; `Wallet.backingCheck` reads its latest outcome.
 */
export function runBackingSchedule(
  wallet: ScheduledWallet,
  check: BackingCheckRun,
  options: BackingCheckOptions,
): BackingSchedule {
  const tasks = backgroundTasks(wallet);
  if (tasks.backing instanceof BackingSchedule && tasks.backing.running) return tasks.backing;
  const schedule = new BackingSchedule(wallet, check, options);
  tasks.backing = schedule;
  return schedule.start();
}

/** An error's first line, at most 200 characters. */
function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').slice(0, 200);
}
