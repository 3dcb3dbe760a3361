/**
 * @module A wallet's sync: what the pool published since the wallet's cursors, read in the public
 * log's fixed pages (`sync-pages.ts`: the same URLs for every wallet) — leaves into the local tree
 * (and the store), events (applied by `wallet-events.ts`), checkpoints checked against the tree's
 * root — and then the pending payments the pool's clock (or, when the pool is idle, the wallet's)
 * has outlived. Through a mirror, the mirror's pages are checked against the pool node first
 * (`mirror-sync.ts`). The pool's epoch grid comes from the pool node's own head, and the anchor
 * from the grid checkpoints read (`wallet-anchor.ts`). The wallet syncs on its own schedule, never at payment time and never asking
 * for one path.
 */

import type { PoolNodeState } from '../pool-node/read-schemas.js';
import { PoolMismatchError } from './errors.js';
import { mirrorBehind, syncFromMirror } from './mirror-sync.js';
import { readCheckpoints, readEvents, readLeaves, type Stop } from './sync-pages.js';
import { learnGrid, refreshAnchor } from './wallet-anchor.js';
import type { WalletContext } from './wallet-context.js';
import { EventApplier } from './wallet-events.js';

/** Margin for the pool's clock before a pending payment past its expiry is released, ms. */
export const POOL_CLOCK_MARGIN_MS = 5_000;

/** How long past expiry, by the wallet's clock, an idle pool's silence releases a pending payment. */
export const IDLE_RELEASE_GRACE_MS = 10 * 60_000;

/** What a sync read. */
export interface SyncReport {
  readonly leaves: number;
  readonly events: number;
  readonly notesFound: number;
  readonly settled: number;
  readonly released: number;
  readonly checkpoint: number | null;
}

/** One wallet's sync: one run at a time, shared by concurrent callers. */
export class WalletSync {
  private running: Promise<SyncReport> | null = null;
  private readonly events: EventApplier;

  constructor(private readonly context: WalletContext) {
    this.events = new EventApplier(context);
  }

  /**
   * Reads what the pool published since the cursors, then resolves pending payments. Concurrent
   * calls share one run.
   * @throws PoolMismatchError when the node's pool is not the one the wallet followed
   */
  sync(): Promise<SyncReport> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(): Promise<SyncReport> {
    const { state, tree, tickets } = this.context;
    const head = await this.context.pages.state();
    checkNetwork(this.context, head);
    // The epoch grid from the pool node's own head; through a mirror, from the pool node's own
    // checkpoints page when the anchor is confirmed (mirror-sync.ts), never the mirror's head.
    if (!this.context.mirrored) learnGrid(this.context, head);
    const leavesBefore = tree.size;
    const checkpointBefore = state.checkpointCursor;
    const anchorBefore = state.checkpoint?.seq;
    const found = { events: 0, notes: 0, settled: 0 };
    const apply = async (events: Parameters<EventApplier['applyEvents']>[0]) => {
      const page = await this.events.applyEvents(events);
      found.events += events.length;
      found.notes += page.notes;
      found.settled += page.settled;
    };
    if (!this.context.mirrored) {
      checkHead(this.context, head);
      await this.readLeavesAndEvents(head, apply);
      await readCheckpoints(this.context, this.context.pages, head.checkpoint?.seq ?? 0);
    } else if (!mirrorBehind(this.context, head)) {
      await syncFromMirror(this.context, head, apply);
    }
    // The anchor the grid names now, among the checkpoints held.
    refreshAnchor(this.context);
    // 4. Pending payments the pool's clock has outlived.
    const released = releaseExpired(this.context);
    state.syncedAt = this.context.clock();
    // A restored key's first sync fixes which counters a lost copy may have handed out.
    const firstRestore = state.depositGap > 0 && state.inheritedBelow == null;
    tickets.synced();
    // A sync that read nothing new writes nothing (the time of the sync alone can wait for the next write).
    if (
      tree.size !== leavesBefore ||
      found.events > 0 ||
      state.checkpointCursor !== checkpointBefore ||
      state.checkpoint?.seq !== anchorBefore ||
      released > 0 ||
      firstRestore
    )
      await this.context.save();
    return {
      leaves: tree.size - leavesBefore,
      events: found.events,
      notesFound: found.notes,
      settled: found.settled,
      released,
      checkpoint: state.checkpoint?.seq ?? null,
    };
  }

  /**
   * 1. Leaves up to the head's size and 2. events up to its count, side by side (the events need
   * no tree; the checkpoints do): the local tree is hashed while deposits are matched off the
   * JavaScript thread, each side reading pages ahead. If one fails the other stops at its next
   * page, and the sync fails with nothing saved past what each had applied.
   */
  private async readLeavesAndEvents(
    head: PoolNodeState,
    apply: (events: Parameters<EventApplier['applyEvents']>[0]) => Promise<void>,
  ): Promise<void> {
    const { context } = this;
    const stop: Stop = { failed: false };
    const stopOnFailure = <T>(run: () => Promise<T>) =>
      run().catch((error: unknown) => {
        stop.failed = true;
        throw error;
      });
    const [leavesRead, eventsRead] = await Promise.allSettled([
      stopOnFailure(() => readLeaves(context, context.pages, head.size, stop)),
      stopOnFailure(() =>
        readEvents(context.pages, context.state.eventCursor, head.events, stop, apply),
      ),
    ]);
    if (leavesRead.status === 'rejected') throw leavesRead.reason;
    if (eventsRead.status === 'rejected') throw eventsRead.reason;
  }
}

/** The head must be of the pool's network the wallet follows. */
function checkNetwork(context: WalletContext, head: PoolNodeState): void {
  const { network } = context;
  if (head.network !== network.network)
    throw new PoolMismatchError(
      `the pool node serves ${head.network}, the wallet is for ${network.network}`,
    );
}

/** The node's head must continue what the wallet read: no fewer leaves or events. */
function checkHead(context: WalletContext, head: PoolNodeState): void {
  const { tree, state } = context;
  if (head.size < tree.size || head.events < state.eventCursor) {
    throw new PoolMismatchError(
      `the pool node has ${head.size} leaves and ${head.events} events, the wallet already read ${tree.size} and ${state.eventCursor}: another or a reset pool`,
    );
  }
}

/**
 * Releases the pending payments past their expiry by the pool's clock (with a margin), or by the
 * wallet's once it is {@link IDLE_RELEASE_GRACE_MS} past it.
 * @returns how many were released
 */
function releaseExpired(context: WalletContext): number {
  const { state } = context;
  let released = 0;
  const now = context.clock();
  for (const p of state.pending) {
    if (p.status !== 'pending') continue;
    const expiryMs = p.expiry * 1000;
    const poolPassed = state.poolTime > expiryMs + POOL_CLOCK_MARGIN_MS;
    const idlePassed = now > expiryMs + IDLE_RELEASE_GRACE_MS;
    if (poolPassed || idlePassed) {
      p.status = 'expired';
      released++;
    }
  }
  return released;
}
