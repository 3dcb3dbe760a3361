/**
 * @module How far behind the epoch grid the payments' anchors were: for each payment, the epochs
 * between the boundary every wallet anchored to when the payment reached the operator and the
 * boundary of the checkpoint it is anchored to. 0 is the shared anchor; 1 or more names a wallet
 * whose follower had not yet read the newest boundary (or a proof that began before the boundary's
 * delay ran out and reached the operator after it) — what the anchor join feeds on. A diagnostic
 * printed beside a run's table, never a pass criterion.
 */

import { anchorBoundary, type EpochGrid } from '../../src/scheme/index.js';
import type { OperatorView } from './operator-view.js';

/** Payments by how many epochs behind their anchor was (`unknown`: no checkpoint with its root). */
export interface AnchorLag {
  readonly current: number;
  readonly oneBehind: number;
  readonly moreBehind: number;
  readonly unknown: number;
}

/** The payments' anchor lag on `grid`, or `null` for a run without a grid (E = 1 ms). */
export function anchorLag(
  view: Pick<OperatorView, 'items' | 'checkpoints'>,
  grid: EpochGrid | null,
): AnchorLag | null {
  if (grid === null || grid.epochMs <= 1) return null;
  const timeOfRoot = new Map(view.checkpoints.map((cp) => [cp.root, cp.time]));
  const lag = { current: 0, oneBehind: 0, moreBehind: 0, unknown: 0 };
  for (const item of view.items) {
    if (item.kind !== 'payment' || item.anchor === null) continue;
    const anchored = timeOfRoot.get(item.anchor);
    if (anchored === undefined) {
      lag.unknown++;
      continue;
    }
    const behind = Math.round((anchorBoundary(item.time, grid) - anchored) / grid.epochMs);
    if (behind <= 0) lag.current++;
    else if (behind === 1) lag.oneBehind++;
    else lag.moreBehind++;
  }
  return lag;
}
