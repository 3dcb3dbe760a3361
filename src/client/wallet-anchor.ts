/**
 * @module The checkpoint a wallet anchors to (docs/privacy.md, "Anchors and sync"): the pool's
 * epoch grid learned from the pool node's own `/state` (never from a mirror), the grid checkpoints
 * the wallet has read and verified, and of those the one `chooseAnchor` names — the newest on the
 * grid at least the delay old, what every wallet paying in the same epoch anchors to, whenever it
 * synced. A checkpoint off the grid, or a second one on a boundary the wallet already holds, is
 * never anchored to: an operator showing one wallet an extra checkpoint cannot tag it that way. A
 * pool advertising an epoch shorter than the wallet's minimum (which would switch the grid off) is
 * refused, unless the wallet is configured for a test or devnet pool (`minEpochMs`).
 */

import {
  anchorBoundary,
  chooseAnchor,
  type EpochGrid,
  isOnGrid,
  NO_EPOCH_GRID,
} from '../scheme/index.js';
import { WalletError } from './errors.js';
import type { WalletState } from './store.js';
import type { WalletContext } from './wallet-context.js';

/** Grid checkpoints a wallet keeps at most (a few are ever candidates: those within E + D). */
const HELD_MAX = 8;

/** A checkpoint as the wallet keeps it. */
export type HeldCheckpoint = NonNullable<WalletState['checkpoint']>;

/**
 * The pool advertises an epoch grid the wallet will not follow: shorter than its minimum (a grid
 * that would single the wallet's anchor out), or none at all.
 */
export class PoolEpochError extends WalletError {
  constructor(
    /** The epoch the pool advertised, ms (`null`: none). */
    readonly epochMs: number | null,
    /** The wallet's minimum, ms. */
    readonly minEpochMs: number,
  ) {
    super(
      'pool_epoch_too_short',
      `the pool node advertises ${epochMs === null ? 'no epoch grid' : `an epoch of ${epochMs} ms`}, shorter than the ${minEpochMs} ms this wallet accepts: anchors so fine would tell the operator which wallet paid (a test or devnet pool: set the wallet's minEpochMs, PRIV_STARK_MIN_EPOCH_MS)`,
    );
    this.name = 'PoolEpochError';
  }
}

/** The grid the wallet follows, `null` before it learned one. */
export function walletGrid(state: WalletState): EpochGrid | null {
  return state.epoch ?? null;
}

/** Where the pool node names its grid: its head (`/state`) or a fixed checkpoints page. */
export interface GridSource {
  readonly epochMs?: number | undefined;
  readonly anchorDelayMs?: number | undefined;
}

/**
 * Takes the grid the pool node itself names — its head, or its own checkpoints page — never a
 * mirror's.
 * @throws PoolEpochError when its epoch is below `minEpochMs`, or it names none
 */
export function learnGrid(context: WalletContext, source: GridSource): void {
  const { epochMs, anchorDelayMs } = source;
  const valid =
    Number.isSafeInteger(epochMs) &&
    Number.isSafeInteger(anchorDelayMs) &&
    (anchorDelayMs as number) >= 0 &&
    (anchorDelayMs as number) < (epochMs as number);
  if (!valid || (epochMs as number) < context.minEpochMs)
    throw new PoolEpochError(valid ? (epochMs as number) : null, context.minEpochMs);
  const { state } = context;
  const known = state.epoch;
  if (known && known.epochMs === epochMs && known.anchorDelayMs === anchorDelayMs) return;
  const grid = { epochMs: epochMs as number, anchorDelayMs: anchorDelayMs as number };
  state.epoch = grid;
  // Checkpoints held under another grid are not this one's. A wallet file from before the grid
  // holds its anchor but no list: that anchor is its first candidate when on the grid (a sync
  // with nothing new would otherwise leave it none).
  const held = state.anchors ?? (state.checkpoint ? [state.checkpoint] : []);
  state.anchors = held.filter((cp) => isOnGrid(cp.time, grid));
}

/**
 * Keeps `cp` — read and verified against the local tree — as a candidate anchor when it is on the
 * grid and its boundary holds no other checkpoint yet; anything else is left alone.
 * @returns whether it was kept
 */
export function holdCheckpoint(context: WalletContext, cp: HeldCheckpoint): boolean {
  const { state } = context;
  const grid = state.epoch;
  if (!grid || !isOnGrid(cp.time, grid)) return false;
  const held = state.anchors ?? [];
  state.anchors = held;
  if (held.some((h) => h.time === cp.time || h.seq === cp.seq)) return false;
  held.push({ seq: cp.seq, root: cp.root, size: cp.size, time: cp.time });
  held.sort((a, b) => a.seq - b.seq);
  return true;
}

/** Whether `grid` is no grid at all: every checkpoint anchored to at once (tests, devnet). */
function isNoGrid(grid: EpochGrid): boolean {
  return grid.epochMs === NO_EPOCH_GRID.epochMs && grid.anchorDelayMs === 0;
}

/**
 * Sets the wallet's anchor (`state.checkpoint`) to what the grid names now, among the checkpoints
 * held, and drops those no wallet can choose any more (older than the anchor). Called after each
 * sync and whenever notes are chosen, so the anchor moves on at a boundary without a sync.
 * Without a grid learned, the anchor stays what it was (a wallet file from before the grid keeps
 * its checkpoint until its next sync).
 */
export function refreshAnchor(context: WalletContext): HeldCheckpoint | null {
  const { state } = context;
  const grid = state.epoch;
  if (!grid) return state.checkpoint;
  const held = state.anchors ?? [];
  const now = context.clock();
  // No grid: the newest checkpoint, whatever the wallet's clock says (as before the grid).
  const anchor = isNoGrid(grid) ? (held.at(-1) ?? null) : chooseAnchor(held, now, grid);
  if (anchor) {
    const candidates = held.filter((cp) => cp.seq >= anchor.seq);
    state.anchors = candidates.slice(-HELD_MAX);
  } else if (held.length > HELD_MAX) {
    state.anchors = held.slice(-HELD_MAX);
  }
  state.checkpoint = anchor ? { ...anchor } : null;
  return state.checkpoint;
}

/**
 * Whether the wallet's state covers the current epoch: its anchor is the checkpoint of the
 * boundary every wallet anchors to now (or, with no grid, it holds any). A one-shot command that
 * finds this true writes without syncing first.
 */
export function coversCurrentEpoch(context: WalletContext): boolean {
  const grid = context.state.epoch;
  const anchor = refreshAnchor(context);
  if (!grid || !anchor) return false;
  if (isNoGrid(grid)) return false;
  return anchor.time === anchorBoundary(context.clock(), grid);
}
