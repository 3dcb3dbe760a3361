/**
 * @module Anchors every wallet shares, without a read that names the payment. A payment anchors to
 * the checkpoint of the newest epoch boundary at least `D` old (`wallet-anchor.ts`), which a
 * wallet holds only if it synced after the pool cut that checkpoint. A wallet whose last sync was
 * epochs ago anchors to an older one instead, and that names the epoch of its last sync (the
 * linkage test's anchor join); syncing right before the payment names the payment by its timing
 * instead. The follower syncs once per epoch at a time drawn uniformly in [B + D/4, B + 3D/4): after
 * the pool has cut boundary B's checkpoint (within its checkpoint interval, 2 s by default, well
 * inside D = 10 s), before any wallet anchors to it. So at any payment the wallet holds the anchor
 * every wallet shows, and its reads are the same fixed pages at the same point of every epoch,
 * whether it pays or not. docs/privacy.md ("Anchors and sync") says what it costs.
 */

import type { EpochGrid } from '../scheme/index.js';
import { cryptoRandom } from './note-age.js';
import type { KeeperTimers } from './ready-notes.js';
import { backgroundTasks } from './wallet-background.js';
import type { Wallet } from './wallet.js';

/** Options of {@link EpochFollower}. */
export interface EpochFollowerOptions {
  /** Errors of a sync (the pool unreachable); the follower keeps going. */
  readonly onError?: ((error: unknown) => void) | undefined;
  /** Uniform draws in [0, 1) (default: the platform's crypto). For tests. */
  readonly random?: (() => number) | undefined;
  /** Timers (default: `setTimeout`, unreferenced: they never keep a process alive). For tests. */
  readonly timers?: KeeperTimers | undefined;
  /** Unix ms (default `Date.now`). For tests. */
  readonly clock?: (() => number) | undefined;
}

/** How long the follower waits to look again while the wallet knows no grid yet, ms. */
const NO_GRID_RECHECK_MS = 10_000;

/** `setTimeout` timers that never keep a process alive (the wallet's background work uses them). */
export const UNREFERENCED_TIMERS: KeeperTimers = {
  set: (run, delayMs) => {
    const handle = setTimeout(run, delayMs);
    handle.unref?.();
    return handle;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The follower's next sync: for which boundary, and when (unix ms). */
export interface FollowTime {
  readonly boundary: number;
  readonly at: number;
}

/**
 * When the follower next syncs, for a wallet on `grid` at `now` that last synced for boundary
 * `followed`: the earliest later boundary whose window has not passed, at a uniform point `u` of
 * that window (at once when `now` is inside it already past that point).
 */
export function nextFollowTime(
  now: number,
  grid: EpochGrid,
  u: number,
  followed = Number.NEGATIVE_INFINITY,
): FollowTime {
  const { epochMs, anchorDelayMs } = grid;
  let boundary = Math.floor(now / epochMs) * epochMs;
  if (boundary <= followed || now >= boundary + (3 * anchorDelayMs) / 4) boundary += epochMs;
  const at = boundary + anchorDelayMs / 4 + (u * anchorDelayMs) / 2;
  return { boundary, at: Math.max(now, Math.round(at)) };
}

/**
 * Keeps a wallet's anchor current in the background: one sync per epoch, inside the window where
 * every wallet's reads look alike. Started by `payingFetch` for the wallet it pays from (once per
 * wallet); does nothing on a pool without a grid (`EPOCH_MS=1`), where a wallet anchors to the
 * newest checkpoint it holds anyway.
 * @example
 * const follower = new EpochFollower(wallet).start();
 * // … payments anchor to the checkpoint every wallet anchors to now …
 * await follower.stop();
 */
export class EpochFollower {
  private readonly onError: (error: unknown) => void;
  private readonly random: () => number;
  private readonly timers: KeeperTimers;
  private readonly clock: () => number;
  private timer: unknown = null;
  private syncing: Promise<void> = Promise.resolve();
  private stopped = true;
  /** The boundary of the last sync, so the next is for a later one. */
  private followed = Number.NEGATIVE_INFINITY;

  constructor(
    readonly wallet: Wallet,
    options: EpochFollowerOptions = {},
  ) {
    this.onError = options.onError ?? (() => undefined);
    this.random = options.random ?? cryptoRandom;
    this.timers = options.timers ?? UNREFERENCED_TIMERS;
    this.clock = options.clock ?? Date.now;
  }

  /** Whether the follower is running. */
  get running(): boolean {
    return !this.stopped;
  }

  /** Starts following (idempotent). */
  start(): this {
    if (!this.stopped) return this;
    this.stopped = false;
    this.scheduleNext();
    return this;
  }

  /** Resolves once the sync under way (if any) has ended. */
  settled(): Promise<void> {
    return this.syncing;
  }

  /** Stops after the sync under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    await this.syncing;
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    const grid = this.wallet.epochGrid;
    // Without a grid every checkpoint is an anchor and following gains nothing: stop.
    if (grid !== null && grid.epochMs <= 1) {
      this.stopped = true;
      return;
    }
    const now = this.clock();
    const next = grid === null ? null : nextFollowTime(now, grid, this.random(), this.followed);
    this.timer = this.timers.set(
      () => {
        this.timer = null;
        if (next === null) return this.scheduleNext();
        this.followed = next.boundary;
        this.syncing = this.wallet
          .sync()
          .then(
            () => undefined,
            (error: unknown) => this.onError(error),
          )
          .finally(() => this.scheduleNext());
      },
      next === null ? NO_GRID_RECHECK_MS : next.at - now,
    );
  }
}

/**
 * Starts `wallet`'s follower unless it runs already (`payingFetch` calls it), and returns it: one
 * per wallet, which `Wallet.stop` stops and a later call starts again.
 */
export function followEpochs(wallet: Wallet, options: EpochFollowerOptions = {}): EpochFollower {
  const tasks = backgroundTasks(wallet);
  if (tasks.follower instanceof EpochFollower) return tasks.follower.start();
  const follower = new EpochFollower(wallet, options);
  tasks.follower = follower;
  return follower.start();
}
