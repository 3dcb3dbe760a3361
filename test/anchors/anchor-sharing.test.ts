// How many wallets share a payer's anchor (issue 25, "anchors many wallets share"): a deterministic
// simulation over the real anchor choice (`chooseAnchor`, `coversEpoch`). 100 wallets sync every
// 300 s with ±60 s jitter, each with its clock up to 2 s off; 2,000 payments at random times.
// For each payment: how many wallets would show the same anchor if they paid at that moment.
// Target: ≥ 50 on average and P(the payer alone) ≤ 1 % on the grid (E = 60 s, D = 10 s, a wallet
// whose state does not cover the epoch syncs before its write); the must-fail twin is today's
// anchoring — the newest checkpoint of the last sync, one every 2 s — which the issue measured at
// 1.7 and 50 %. Figures are printed, and asserted only against the targets.

import { describe, expect, it } from 'vitest';

import {
  chooseAnchor,
  coversEpoch,
  DEFAULT_EPOCH_GRID,
  type EpochGrid,
  NO_EPOCH_GRID,
} from '../../src/scheme/index.js';

const WALLETS = 100;
const SYNC_MS = 300_000;
const JITTER_MS = 60_000;
const SKEW_MS = 2_000;
const PAYMENTS = 2_000;
const HOURS_MS = 6 * 3_600_000;
const T0 = Date.UTC(2030, 0, 1);

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Cp {
  readonly seq: number;
  readonly time: number;
}

interface Population {
  /** Each wallet's sync times, ascending. */
  readonly syncs: number[][];
  readonly skews: number[];
}

function population(rand: () => number): Population {
  const syncs: number[][] = [];
  const skews: number[] = [];
  for (let w = 0; w < WALLETS; w++) {
    const times: number[] = [];
    let t = T0 + rand() * SYNC_MS;
    while (t < T0 + HOURS_MS) {
      times.push(t);
      t += SYNC_MS + (rand() * 2 - 1) * JITTER_MS;
    }
    syncs.push(times);
    skews.push((rand() * 2 - 1) * SKEW_MS);
  }
  return { syncs, skews };
}

/** Checkpoints published every `cadenceMs` (the pool is busy: the tree changes every time). */
function published(cadenceMs: number): Cp[] {
  const cps: Cp[] = [];
  for (let t = T0 - 10 * cadenceMs, seq = 1; t < T0 + HOURS_MS + cadenceMs; t += cadenceMs, seq++)
    cps.push({ seq, time: t });
  return cps;
}

/** Checkpoints published by `time`. */
function upTo(cps: readonly Cp[], time: number): Cp[] {
  let lo = 0;
  let hi = cps.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cps[mid]!.time <= time) lo = mid + 1;
    else hi = mid;
  }
  return cps.slice(Math.max(0, lo - 8), lo);
}

/** The last sync at or before `t`. */
function lastSync(times: readonly number[], t: number): number {
  let last = T0 - SYNC_MS;
  for (const s of times) if (s <= t) last = s;
  return last;
}

interface Rule {
  readonly grid: EpochGrid;
  readonly cadenceMs: number;
  /** Whether a wallet whose state does not cover the epoch syncs before its write. */
  readonly syncsWhenBehind: boolean;
}

/** The anchor wallet `w` shows paying at `t` (its own clock), by the real anchor choice. */
function anchorOf(pop: Population, cps: readonly Cp[], rule: Rule, w: number, t: number) {
  const now = t + pop.skews[w]!;
  let held = upTo(cps, lastSync(pop.syncs[w]!, t));
  let anchor = chooseAnchor(held, now, rule.grid);
  if (rule.syncsWhenBehind && !coversEpoch(anchor, now, rule.grid)) {
    held = upTo(cps, t);
    anchor = chooseAnchor(held, now, rule.grid);
  }
  return anchor?.seq ?? -1;
}

function simulate(rule: Rule, seed: number) {
  const rand = random(seed);
  const pop = population(rand);
  const cps = published(rule.cadenceMs);
  let shared = 0;
  let alone = 0;
  for (let i = 0; i < PAYMENTS; i++) {
    // Past the first sync period: every wallet has synced once.
    const t = T0 + SYNC_MS + rand() * (HOURS_MS - 2 * SYNC_MS);
    const payer = Math.floor(rand() * WALLETS);
    const mine = anchorOf(pop, cps, rule, payer, t);
    let same = 0;
    for (let w = 0; w < WALLETS; w++) if (anchorOf(pop, cps, rule, w, t) === mine) same++;
    shared += same;
    if (same === 1) alone++;
  }
  return { meanShared: shared / PAYMENTS, pAlone: alone / PAYMENTS };
}

const GRID_RULE: Rule = {
  grid: DEFAULT_EPOCH_GRID,
  cadenceMs: DEFAULT_EPOCH_GRID.epochMs,
  syncsWhenBehind: true,
};
const TODAY: Rule = { grid: NO_EPOCH_GRID, cadenceMs: 2_000, syncsWhenBehind: false };

describe('anchors many wallets share (simulated, 100 wallets syncing every 300 s)', () => {
  it('on the epoch grid: ≥ 50 wallets share the payer anchor, P(alone) ≤ 1 %', () => {
    const figures = simulate(GRID_RULE, 25);
    console.log('epoch grid', figures);
    expect(figures.meanShared).toBeGreaterThanOrEqual(50);
    expect(figures.pAlone).toBeLessThanOrEqual(0.01);
  });

  it("must-fail twin: today's last-sync anchoring on 2 s checkpoints misses both targets", () => {
    const figures = simulate(TODAY, 25);
    console.log('last-sync anchoring', figures);
    expect(figures.meanShared).toBeLessThan(50);
    expect(figures.pAlone).toBeGreaterThan(0.01);
    // The figures (1.7 wallets, half alone), within the simulation's noise.
    expect(figures.meanShared).toBeGreaterThan(1.3);
    expect(figures.meanShared).toBeLessThan(2.2);
    expect(figures.pAlone).toBeGreaterThan(0.35);
  });

  it('must-fail twin: the grid without syncing when behind (anchor of the last sync) misses the target', () => {
    const figures = simulate({ ...GRID_RULE, syncsWhenBehind: false }, 25);
    console.log('grid, last-sync anchoring', figures);
    expect(figures.meanShared).toBeLessThan(50);
  });
});
