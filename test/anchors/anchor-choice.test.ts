// The anchor choice on the epoch grid: the newest boundary's checkpoint at least D old, never one
// off the grid — a pool node showing one wallet an extra checkpoint cannot make it anchor there.

import { describe, expect, it } from 'vitest';

import {
  anchorBoundary,
  checkEpochGrid,
  chooseAnchor,
  coversEpoch,
  isOnGrid,
  NO_EPOCH_GRID,
} from '../../src/scheme/index.js';

const GRID = { epochMs: 60_000, anchorDelayMs: 10_000 };
const T0 = Date.UTC(2030, 0, 1);
const grid = (k: number, seq: number) => ({ seq, time: T0 + k * GRID.epochMs });

describe('anchor choice on the epoch grid', () => {
  const everyones = [grid(0, 1), grid(1, 2), grid(2, 3)];

  it('anchors to the newest boundary at least D old', () => {
    expect(chooseAnchor(everyones, T0 + 2 * 60_000 + 9_999, GRID)?.seq).toBe(2);
    expect(chooseAnchor(everyones, T0 + 2 * 60_000 + 10_000, GRID)?.seq).toBe(3);
    expect(anchorBoundary(T0 + 130_000, GRID)).toBe(T0 + 120_000);
    expect(coversEpoch(grid(2, 3), T0 + 130_000, GRID)).toBe(true);
    expect(coversEpoch(grid(1, 2), T0 + 130_000, GRID)).toBe(false);
  });

  it('never anchors to an extra checkpoint off the grid, however new', () => {
    // The operator shows one wallet its own checkpoint, 15 s after the newest boundary.
    const tagged = { seq: 4, time: T0 + 2 * 60_000 + 15_000 };
    expect(isOnGrid(tagged.time, GRID)).toBe(false);
    const now = T0 + 2 * 60_000 + 40_000;
    expect(chooseAnchor([...everyones, tagged], now, GRID)?.seq).toBe(3);
    // Only the extra one held: no anchor at all rather than that one.
    expect(chooseAnchor([tagged], now, GRID)).toBeNull();
  });

  it('must-fail twin: without the grid the extra checkpoint is the anchor (the leak this closes)', () => {
    const tagged = { seq: 4, time: T0 + 2 * 60_000 + 15_000 };
    expect(chooseAnchor([...everyones, tagged], T0 + 2 * 60_000 + 40_000, NO_EPOCH_GRID)?.seq).toBe(
      4,
    );
  });

  it('refuses a grid it cannot use', () => {
    expect(() => checkEpochGrid({ epochMs: 0, anchorDelayMs: 0 })).toThrow(RangeError);
    expect(() => checkEpochGrid({ epochMs: 60_000, anchorDelayMs: 60_000 })).toThrow(RangeError);
    expect(() => checkEpochGrid({ epochMs: 1.5, anchorDelayMs: 0 })).toThrow(RangeError);
    expect(checkEpochGrid(NO_EPOCH_GRID)).toBe(NO_EPOCH_GRID);
  });
});
