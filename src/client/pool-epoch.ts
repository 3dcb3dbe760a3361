/**
 * @module The pool's epoch as the wallet knows it: the one place the notes' rules read it (a
 * note's minimum age, the ready-notes keeper's mean interval). The pool's epoch grid (issue 25,
 * "Anchors and sync") fills it; while the pool publishes none, the wallet knows none.
 */

import type { WalletState } from './store.js';

/**
 * The pool's epoch length in ms, `null` while the wallet knows none. Kept small on purpose: the
 * anchors' part of the wallet is what learns the epoch from the pool.
 */
export function poolEpochMs(_state: WalletState): number | null {
  return null;
}
