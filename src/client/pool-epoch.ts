/**
 * @module The pool's epoch as the wallet knows it: the one place the notes' rules read it (a
 * note's minimum age, the ready-notes keeper's mean interval). The pool's epoch grid (issue 25,
 * "Anchors and sync") fills it; while the pool publishes none, the wallet knows none.
 */

import type { WalletState } from './store.js';

/**
 * The pool's epoch length in ms, `null` while the wallet knows none or the pool runs without a
 * grid: the grid the wallet learned from the pool node itself (`wallet-anchor.ts`).
 */
export function poolEpochMs(state: WalletState): number | null {
  const grid = state.epoch;
  // E = 1 ms is no grid (a test or devnet pool): no epoch to age notes by.
  return grid && grid.epochMs > 1 ? grid.epochMs : null;
}
