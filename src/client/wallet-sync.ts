/**
 * @module A wallet's sync: what the pool published since the wallet's cursors — leaves into the
 * local tree (and the store), events (applied by `wallet-events.ts`), checkpoints checked against
 * the tree's root — and then the pending payments the pool's clock (or, when the pool is idle, the
 * wallet's) has outlived. The wallet syncs on its own schedule, never at payment time and never
 * asking for one path.
 */

import type { DigestHex } from '../core/digest.js';
import type { PoolNodeState } from '../pool-node/read-schemas.js';
import { PoolMismatchError } from './errors.js';
import { pagesAhead } from './pages-ahead.js';
import type { WalletContext } from './wallet-context.js';
import { EventApplier, type EventsFound } from './wallet-events.js';

/** Margin for the pool's clock before a pending payment past its expiry is released, ms. */
export const POOL_CLOCK_MARGIN_MS = 5_000;

/** How long past expiry, by the wallet's clock, an idle pool's silence releases a pending payment. */
export const IDLE_RELEASE_GRACE_MS = 10 * 60_000;

/** Leaves written and hashed together (16 pages: one fsync per run). */
const LEAF_RUN = 16 * 4096;

/** What a sync read. */
export interface SyncReport {
  readonly leaves: number;
  readonly events: number;
  readonly notesFound: number;
  readonly settled: number;
  readonly released: number;
  readonly checkpoint: number | null;
}

/** Set once one of two readers side by side has failed: the other stops at its next page. */
interface Stop {
  failed: boolean;
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
    const head = await this.context.poolNode.state();
    checkHead(this.context, head);
    const leavesBefore = tree.size;
    const found = await this.readLeavesAndEvents(head);
    const checkpointBefore = state.checkpointCursor;
    await readCheckpoints(this.context, head.checkpoint?.seq ?? 0);
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
  ): Promise<EventsFound & { events: number }> {
    const stop: Stop = { failed: false };
    const stopOnFailure = <T>(run: () => Promise<T>) =>
      run().catch((error: unknown) => {
        stop.failed = true;
        throw error;
      });
    const [leavesRead, eventsRead] = await Promise.allSettled([
      stopOnFailure(() => readLeaves(this.context, head.size, stop)),
      stopOnFailure(() => this.readEvents(head.events, stop)),
    ]);
    if (leavesRead.status === 'rejected') throw leavesRead.reason;
    if (eventsRead.status === 'rejected') throw eventsRead.reason;
    return eventsRead.value;
  }

  /** The events after the cursor up to `end`, applied page by page. */
  private async readEvents(end: number, stop: Stop): Promise<EventsFound & { events: number }> {
    let events = 0;
    let notes = 0;
    let settled = 0;
    const read = (after: number, limit: number) =>
      this.context.poolNode.events(after, limit).then((page) => page.events);
    for await (const { items } of pagesAhead(this.context.state.eventCursor, end, 1000, read)) {
      if (stop.failed) break;
      const found = await this.events.applyEvents(items);
      notes += found.notes;
      settled += found.settled;
      events += items.length;
    }
    return { events, notes, settled };
  }
}

/** The node's head must be the pool the wallet followed: its network, and no fewer leaves or events. */
function checkHead(context: WalletContext, head: PoolNodeState): void {
  const { network, tree, state } = context;
  if (head.network !== network.network)
    throw new PoolMismatchError(
      `the pool node serves ${head.network}, the wallet is for ${network.network}`,
    );
  if (head.size < tree.size || head.events < state.eventCursor) {
    throw new PoolMismatchError(
      `the pool node has ${head.size} leaves and ${head.events} events, the wallet already read ${tree.size} and ${state.eventCursor}: another or a reset pool`,
    );
  }
}

/**
 * The leaves from the local tree's size up to `end`, written (and hashed) in runs of pages: one
 * store write and fsync per run, always before the tree takes the leaves, so the tree never holds
 * leaves the store lacks.
 */
async function readLeaves(context: WalletContext, end: number, stop: Stop): Promise<void> {
  const { tree, store, poolNode } = context;
  let run: DigestHex[] = [];
  let runFrom = tree.size;
  const flush = async () => {
    if (run.length === 0) return;
    await store?.appendLeaves(runFrom, run);
    tree.append(run);
    runFrom += run.length;
    run = [];
  };
  const read = (from: number, limit: number) =>
    poolNode.leaves(from, limit).then((page) => page.leaves);
  for await (const { items } of pagesAhead(tree.size, end, 4096, read)) {
    if (stop.failed) return;
    for (const leaf of items) run.push(leaf);
    if (run.length >= LEAF_RUN) await flush();
  }
  if (!stop.failed) await flush();
}

/**
 * 3. Checkpoints up to `headSeq` (none to ask for when the head names none newer than the
 * cursor); the latest one the local tree covers must have the root the wallet computes.
 */
async function readCheckpoints(context: WalletContext, headSeq: number): Promise<void> {
  const { state, tree, poolNode } = context;
  checkpoints: while (headSeq > state.checkpointCursor) {
    const page = await poolNode.checkpoints(state.checkpointCursor);
    if (page.checkpoints.length === 0) break;
    for (const cp of page.checkpoints) {
      // Published after the leaves were read: left for the next sync (the cursor stays before it).
      if (cp.size > tree.size) break checkpoints;
      state.checkpointCursor = cp.seq;
      state.poolTime = Math.max(state.poolTime, cp.time);
      if (tree.root(cp.size) !== cp.root) {
        throw new PoolMismatchError(
          `checkpoint ${cp.seq} has a root the wallet's copy of the tree does not give: another or a reset pool`,
        );
      }
      state.checkpoint = { seq: cp.seq, root: cp.root, size: cp.size, time: cp.time };
    }
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
