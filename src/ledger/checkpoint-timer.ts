/**
 * @module The ledger's checkpoint timer: about once per interval it publishes the current root as
 * a checkpoint (if the tree changed; on an epoch grid, once per boundary, stamped with it — the
 * interval is then how soon after a boundary its checkpoint appears), drops handed-over proofs
 * whose time has passed and, about once a minute, the archive's pages past their retention. Any
 * number of processes sharing a store may run one: the store decides under its lock whether a
 * checkpoint is due, and what a prune may drop.
 */

import { ARCHIVE_PAGE_SIZE } from './proof-archive.js';
import type { PoolStore } from './store.js';

/** How often the archive is pruned: its retention is counted in days. */
const ARCHIVE_PRUNE_EVERY_MS = 60_000;

/** Runs the ledger's periodic store work; it never keeps the process alive. */
export class CheckpointTimer {
  private timer: NodeJS.Timeout | null = null;
  /** The tick under way, if any. */
  private ticking: Promise<void> | null = null;
  /** When the archive was last pruned (unix ms; 0: not yet). */
  private archivePrunedAt = 0;

  /**
   * @param store where checkpoints are published and proofs pruned
   * @param clock unix milliseconds
   * @param intervalMs the checkpoint cadence
   * @param epochMs the epoch grid a checkpoint is stamped on (1: none): at most one per boundary
   * @param onError errors of a tick (the store was unreachable); the timer keeps running
   * @param archiveRetentionMs how long archived proofs are kept after their event is published
   */
  constructor(
    private readonly store: PoolStore,
    private readonly clock: () => number,
    private readonly intervalMs: number,
    private readonly epochMs: number,
    private readonly onError: (error: unknown) => void,
    private readonly archiveRetentionMs: number,
  ) {}

  /** Starts the timer (idempotent). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /**
   * Stops the timer and resolves once a tick under way has finished, so that the store can be
   * closed after it (a tick left running would fail on the closed store, and say so).
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
  }

  private tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = this.run().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  private async run(): Promise<void> {
    try {
      // 90% of the interval: timers in several processes publish about once per interval.
      await this.store.checkpoint(this.clock(), Math.floor(this.intervalMs * 0.9), this.epochMs);
      // Handed-over proofs whose time has passed go (a lookup refuses them already).
      await this.store.pruneProofs(this.clock());
      const now = this.clock();
      if (now - this.archivePrunedAt >= ARCHIVE_PRUNE_EVERY_MS) {
        this.archivePrunedAt = now;
        await this.store.pruneArchive(now - this.archiveRetentionMs, ARCHIVE_PAGE_SIZE);
      }
    } catch (error) {
      this.onError(error);
    }
  }
}
