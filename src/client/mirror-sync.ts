/**
 * @module A sync through a mirror (`WalletOptions.poolMirror`): the public log read from a party the
 * wallet does not trust, checked against the pool node before anything of it is kept. The head the
 * mirror shows names a checkpoint; the pool node's own checkpoints page must hold the same one
 * (asked over the wallet's write transport, the same URL for every wallet), the leaves read up to
 * it must give its root — or they are dropped again, from the tree and the store — and only then
 * are the events read, each naming leaves of that tree. The wallet anchors only to checkpoints the
 * pool node published (that one, and those before it on the pool node's own page, each checked
 * against the tree, chosen by the epoch grid that page names): a stale mirror leaves it behind, a forged page fails the sync with `PoolMismatchError`,
 * and neither can make it anchor to a root the pool node did not publish or take a note that is not
 * in the tree.
 */

import type { Checkpoint, PoolEvent } from '../pool-node/client.js';
import { PAGE_SIZES } from '../pool-node/client.js';
import type { CheckpointsPage, PoolNodeState } from '../pool-node/read-schemas.js';
import { PoolMismatchError } from './errors.js';
import { readEvents, readLeaves } from './sync-pages.js';
import type { LocalTree } from './tree.js';
import { holdCheckpoint, learnGrid } from './wallet-anchor.js';
import type { WalletContext } from './wallet-context.js';

/**
 * The checkpoint `mirrored` as the pool node publishes it, or a refusal.
 * @throws PoolMismatchError when the pool node's checkpoint of that seq differs or is missing
 */
async function confirm(context: WalletContext, mirrored: Checkpoint): Promise<CheckpointsPage> {
  const page = Math.floor((mirrored.seq - 1) / PAGE_SIZES.checkpoints);
  const own = await context.handOverNode.checkpointsPage(page);
  const { checkpoints } = own;
  const same = checkpoints.find((cp) => cp.seq === mirrored.seq);
  if (
    !same ||
    same.root !== mirrored.root ||
    same.size !== mirrored.size ||
    same.time !== mirrored.time
  ) {
    throw new PoolMismatchError(
      `the mirror's checkpoint ${mirrored.seq} is not the pool node's: the mirror is forged or serves another pool`,
    );
  }
  return own;
}

/** The leaves an event names, with their indexes. */
function namedLeaves(event: PoolEvent): [number, string][] {
  switch (event.kind) {
    case 'deposit':
    case 'refund':
      return [[event.index, event.commitment]];
    case 'settlement':
      return [
        [event.changeIndex, event.change],
        [event.recipientIndex, event.recipientNote],
      ];
    default:
      return [
        [event.outputIndexes[0], event.outputs[0]],
        [event.outputIndexes[1], event.outputs[1]],
      ];
  }
}

/** Whether every leaf `event` names is the tree's, below `size`. */
function agrees(event: PoolEvent, tree: LocalTree, size: number): boolean {
  return namedLeaves(event).every(
    ([index, commitment]) => index < size && tree.leaf(index) === commitment,
  );
}

/**
 * Whether the mirror's head is behind what the wallet read (a mirror that has not caught up, or
 * another one): nothing to read there yet.
 */
export function mirrorBehind(context: WalletContext, head: PoolNodeState): boolean {
  return head.size < context.tree.size || head.events < context.state.eventCursor;
}

/**
 * Reads the mirror up to its head's checkpoint, confirmed by the pool node: the leaves (verified
 * against the checkpoint's root, dropped again when they are not), then the events (each naming
 * leaves of that tree), then the checkpoint taken as the wallet's anchor.
 * @param apply applies a page of events (the wallet's event applier)
 * @throws PoolMismatchError when the pool node does not publish the mirror's checkpoint, the
 *   leaves do not give its root, or an event names a leaf the tree does not hold
 */
export async function syncFromMirror(
  context: WalletContext,
  head: PoolNodeState,
  apply: (events: readonly PoolEvent[]) => Promise<void>,
): Promise<void> {
  const { state, tree } = context;
  const target = head.checkpoint;
  if (target === null || target.seq <= state.checkpointCursor) return;
  if (head.size !== target.size)
    throw new PoolMismatchError('the mirror shows a head its checkpoint does not fix');
  const confirmed = await confirm(context, target);
  // The grid from the pool node's own page (the mirror's head is not the pool node's).
  learnGrid(context, confirmed);
  // Leaves past the anchor the wallet had taken were never checked against a root.
  const verified = Math.min(tree.size, state.checkpoint?.size ?? 0);
  try {
    await readLeaves(context, context.pages, target.size, { failed: false });
    if (tree.size !== target.size || tree.root(target.size) !== target.root)
      throw new PoolMismatchError(
        `the mirror's leaves do not give the root of checkpoint ${target.seq}: the mirror is forged or behind its own head`,
      );
  } catch (error) {
    tree.truncate(Math.min(verified, tree.size));
    await context.store?.appendLeaves(tree.size, []);
    throw error;
  }
  await readEvents(context.pages, state.eventCursor, head.events, { failed: false }, (page) => {
    const stray = page.find((event) => !agrees(event, tree, target.size));
    if (stray)
      throw new PoolMismatchError(
        `the mirror's event ${stray.id} names a leaf the pool's tree does not hold`,
      );
    return apply(page);
  });
  if (state.eventCursor !== head.events)
    throw new PoolMismatchError("the mirror's events end before its head");
  state.checkpointCursor = target.seq;
  state.poolTime = Math.max(state.poolTime, target.time);
  // Candidate anchors: the pool node's own checkpoints up to the target (its page, read to confirm
  // it), each checked against the tree — the grid's anchor is often the one before the newest.
  for (const cp of confirmed.checkpoints)
    if (cp.seq <= target.seq && cp.size <= tree.size && tree.root(cp.size) === cp.root)
      holdCheckpoint(context, { seq: cp.seq, root: cp.root, size: cp.size, time: cp.time });
}
