/**
 * @module The epoch grid wallets anchor to (issue 25, "anchors many wallets share"): the pool
 * publishes at most one checkpoint per epoch boundary, stamped with the boundary's time (a multiple
 * of the epoch, unix ms), so a checkpoint on the grid is known from its time alone; a wallet anchors
 * to the checkpoint of the newest boundary at least `anchorDelayMs` old, and refuses any other.
 * Every wallet paying within the same epoch (shifted by the delay) then shows the same anchor,
 * whenever it synced. The pool and the facilitator refuse an anchor older than
 * {@link maxAnchorAgeMs}: a wallet cannot keep an old anchor that would single it out.
 */

/** The grid: the epoch and the delay before a boundary's checkpoint may be anchored to. */
export interface EpochGrid {
  /** Length of an epoch, ms (boundaries are its multiples, unix ms). */
  readonly epochMs: number;
  /** How old a boundary must be before wallets anchor to it, ms (every wallet has it by then). */
  readonly anchorDelayMs: number;
}

/** The product's grid: E = 60 s, D = 10 s (`EPOCH_MS`, `ANCHOR_DELAY_MS`). */
export const DEFAULT_EPOCH_GRID: EpochGrid = { epochMs: 60_000, anchorDelayMs: 10_000 };

/**
 * No grid: every millisecond is a boundary and no delay — a checkpoint whenever one is asked for,
 * anchored to at once (a `Ledger` built without a grid; tests that drive checkpoints by hand).
 */
export const NO_EPOCH_GRID: EpochGrid = { epochMs: 1, anchorDelayMs: 0 };

/** Slack on the anchor's age for clocks apart and the expiry's rounding up, ms. */
export const ANCHOR_AGE_SLACK_MS = 60_000;

/**
 * `grid` when usable: a positive whole epoch, a whole delay below it.
 * @throws RangeError naming the bad value
 */
export function checkEpochGrid(grid: EpochGrid): EpochGrid {
  const { epochMs, anchorDelayMs } = grid;
  if (!Number.isSafeInteger(epochMs) || epochMs < 1)
    throw new RangeError(`"epochMs" expected a whole number ≥ 1, got ${epochMs}`);
  if (!Number.isSafeInteger(anchorDelayMs) || anchorDelayMs < 0 || anchorDelayMs >= epochMs)
    throw new RangeError(
      `"anchorDelayMs" expected a whole number in [0, epochMs), got ${anchorDelayMs}`,
    );
  return grid;
}

/** The newest boundary at or before `time` (unix ms). */
export function boundaryAtOrBefore(time: number, grid: EpochGrid): number {
  return Math.floor(time / grid.epochMs) * grid.epochMs;
}

/** Whether a checkpoint stamped `time` is on the grid. */
export function isOnGrid(time: number, grid: EpochGrid): boolean {
  return Number.isSafeInteger(time) && time % grid.epochMs === 0;
}

/** The boundary a wallet anchors to at `now`: the newest one at least the delay old. */
export function anchorBoundary(now: number, grid: EpochGrid): number {
  return boundaryAtOrBefore(now - grid.anchorDelayMs, grid);
}

/** What the anchor choice reads of a checkpoint. */
export interface GridCheckpoint {
  readonly seq: number;
  readonly time: number;
}

/**
 * The checkpoint a wallet anchors to at `now`: of those it holds, the newest on the grid at least
 * the delay old; checkpoints off the grid are never chosen (an operator showing one wallet an extra
 * checkpoint cannot make it anchor there). `null` when none qualifies.
 */
export function chooseAnchor<C extends GridCheckpoint>(
  held: readonly C[],
  now: number,
  grid: EpochGrid,
): C | null {
  const latest = anchorBoundary(now, grid);
  let chosen: C | null = null;
  for (const cp of held) {
    if (!isOnGrid(cp.time, grid) || cp.time > latest) continue;
    if (chosen === null || cp.time > chosen.time) chosen = cp;
  }
  return chosen;
}

/**
 * Whether the anchor `anchor` is what a wallet would choose at `now` with everything published:
 * the checkpoint of the current anchor boundary (the wallet's state covers the current epoch).
 */
export function coversEpoch(anchor: GridCheckpoint | null, now: number, grid: EpochGrid): boolean {
  return anchor !== null && anchor.time === anchorBoundary(now, grid);
}

/**
 * The oldest an anchor may be when a payment or a transition uses it: an epoch, the delay, the
 * payment's `maxTimeoutSeconds` and {@link ANCHOR_AGE_SLACK_MS}. A wallet following the grid
 * never exceeds it: it anchors at most E + D after the boundary, and the proof lives at most
 * `maxTimeoutSeconds` (plus the expiry's rounding) after that.
 */
export function maxAnchorAgeMs(grid: EpochGrid, maxTimeoutSeconds: number): number {
  return grid.epochMs + grid.anchorDelayMs + maxTimeoutSeconds * 1000 + ANCHOR_AGE_SLACK_MS;
}
