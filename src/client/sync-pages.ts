/**
 * @module What a sync reads, in the public log's fixed pages (`PAGE_SIZES`: the same URLs for every
 * wallet, whatever its cursors): the leaves from the local tree's size, the events after the event
 * cursor, the checkpoints after the checkpoint cursor. The wallet asks only whole pages and keeps
 * what it lacks; a page that comes back short ends the read (the source holds nothing past it).
 */

import type { DigestHex } from '../core/digest.js';
import { PAGE_SIZES, type PoolEvent, type PoolNodeClient } from '../pool-node/client.js';
import { PoolMismatchError } from './errors.js';
import { pagesAhead } from './pages-ahead.js';
import { holdCheckpoint } from './wallet-anchor.js';
import type { WalletContext } from './wallet-context.js';

/** Leaves written and hashed together (16 pages: one fsync per run). */
const LEAF_RUN = 16 * PAGE_SIZES.leaves;

/** Set once one of two readers side by side has failed: the other stops at its next page. */
export interface Stop {
  failed: boolean;
}

/** The fixed pages that hold items `from … end - 1` of a list whose pages hold `size` items. */
const pagesOf = (from: number, end: number, size: number) => ({
  first: Math.floor(from / size),
  last: Math.floor((end - 1) / size),
});

/**
 * The leaves from the local tree's size up to `end`, written (and hashed) in runs of pages: one
 * store write and fsync per run, always before the tree takes the leaves, so the tree never holds
 * leaves the store lacks.
 * @throws PoolMismatchError when a page does not start where its number says
 */
export async function readLeaves(
  context: WalletContext,
  source: PoolNodeClient,
  end: number,
  stop: Stop,
): Promise<void> {
  const { tree, store } = context;
  if (end <= tree.size) return;
  let run: DigestHex[] = [];
  let runFrom = tree.size;
  let next = tree.size;
  const flush = async () => {
    if (run.length === 0) return;
    await store?.appendLeaves(runFrom, run);
    tree.append(run);
    runFrom += run.length;
    run = [];
  };
  const size = PAGE_SIZES.leaves;
  const { first, last } = pagesOf(next, end, size);
  for await (const { page, value } of pagesAhead(first, last, (p) => source.leavesPage(p))) {
    if (stop.failed) return;
    if (value.from !== page * size)
      throw new PoolMismatchError(`leaves page ${page} starts at ${value.from}`);
    const lacking = value.leaves.slice(next - value.from, end - value.from);
    for (const leaf of lacking) run.push(leaf);
    next += lacking.length;
    if (run.length >= LEAF_RUN) await flush();
    if (value.leaves.length < size) break;
  }
  if (!stop.failed) await flush();
}

/**
 * The events after `cursor` up to position `end`, page by page, each page's new events handed to
 * `apply` in the log's order.
 * @throws PoolMismatchError when a page skips a position
 */
export async function readEvents(
  source: PoolNodeClient,
  cursor: number,
  end: number,
  stop: Stop,
  apply: (events: readonly PoolEvent[]) => Promise<void>,
): Promise<void> {
  if (end <= cursor) return;
  let at = cursor;
  const size = PAGE_SIZES.events;
  const { first, last } = pagesOf(cursor, end, size);
  for await (const { page, value } of pagesAhead(first, last, (p) => source.eventsPage(p))) {
    if (stop.failed) return;
    const lacking = value.events.filter((event) => event.id > at && event.id <= end);
    lacking.forEach((event, i) => {
      if (event.id !== at + 1 + i)
        throw new PoolMismatchError(`events page ${page} skips position ${at + 1 + i}`);
    });
    if (lacking.length > 0) await apply(lacking);
    at += lacking.length;
    if (value.events.length < size) break;
  }
}

/**
 * 3. Checkpoints up to `headSeq` (none to ask for when the head names none newer than the
 * cursor); each the local tree covers must have the root the wallet computes, and those on the
 * pool's epoch grid are held as candidate anchors.
 * @throws PoolMismatchError when a checkpoint's root is not the local tree's at its size
 */
export async function readCheckpoints(
  context: WalletContext,
  source: PoolNodeClient,
  headSeq: number,
): Promise<void> {
  const { state, tree } = context;
  if (headSeq <= state.checkpointCursor) return;
  const { first, last } = pagesOf(state.checkpointCursor, headSeq, PAGE_SIZES.checkpoints);
  for (let page = first; page <= last; page++) {
    const { checkpoints } = await source.checkpointsPage(page);
    for (const cp of checkpoints) {
      if (cp.seq <= state.checkpointCursor || cp.seq > headSeq) continue;
      // Published after the leaves were read: left for the next sync (the cursor stays before it).
      if (cp.size > tree.size) return;
      state.checkpointCursor = cp.seq;
      state.poolTime = Math.max(state.poolTime, cp.time);
      if (tree.root(cp.size) !== cp.root) {
        throw new PoolMismatchError(
          `checkpoint ${cp.seq} has a root the wallet's copy of the tree does not give: another or a reset pool`,
        );
      }
      // A candidate anchor when on the grid (wallet-anchor.ts); the anchor is chosen after the sync.
      holdCheckpoint(context, { seq: cp.seq, root: cp.root, size: cp.size, time: cp.time });
    }
    if (checkpoints.length < PAGE_SIZES.checkpoints) return;
  }
}
