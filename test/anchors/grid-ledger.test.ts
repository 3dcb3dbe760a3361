// The pool's side of the epoch grid (issue 25, "anchors many wallets share"), driven by an
// injected clock: at most one checkpoint per boundary, stamped with the boundary's time; an anchor
// older than E + D + maxTimeoutSeconds + slack and superseded is refused (root_too_old), with its
// twins — the same root inside the limit, and a quiet pool's old but newest root, are accepted.

import { beforeAll, describe, expect, it } from 'vitest';

import type { PrivStarkCore } from '../../src/core/index.js';
import { Ledger } from '../../src/ledger/index.js';
import { isOnGrid, maxAnchorAgeMs } from '../../src/scheme/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { storeHarness } from '../ledger/helpers/stores.js';

const SPEC = { seed: 'pool-rules', notes: 6, variants: 2 };
const GRID = { epochMs: 60_000, anchorDelayMs: 10_000 };
/** A boundary of the grid (2030-01-01T00:00Z). */
const T0 = Date.UTC(2030, 0, 1);

describe('the epoch grid at the ledger', () => {
  const h = storeHarness('sqlite');
  let core: PrivStarkCore;
  let fx: Fixtures;

  beforeAll(async () => {
    core = h.core();
    fx = await fixtures(core, SPEC);
  }, 300_000);

  async function gridPool(start: number) {
    const { store } = await h.fresh();
    const clock = { now: start };
    const pool = new Ledger({ core, store, clock: () => clock.now, epoch: GRID });
    return { pool, store, clock };
  }

  const pre = (i: number) => fx.notes[i % fx.notes.length]!.precommitment;

  it('stamps a checkpoint with the newest boundary and cuts at most one per boundary', async () => {
    const { pool, store, clock } = await gridPool(T0 + 12_345);
    expect((await pool.deposit({ amount: '5', pre: pre(0) })).ok).toBe(true);
    const first = await pool.checkpoint();
    expect(first).toMatchObject({ seq: 1, time: T0 });
    // The tree changed, but this boundary has its checkpoint: none until the next one.
    expect((await pool.deposit({ amount: '6', pre: pre(1) })).ok).toBe(true);
    clock.now = T0 + 59_999;
    expect(await pool.checkpoint()).toBeNull();
    clock.now = T0 + 60_000 + 1_500;
    const second = await pool.checkpoint();
    expect(second).toMatchObject({ seq: 2, time: T0 + 60_000, size: 2 });
    // Unchanged tree: no checkpoint at the next boundary either.
    clock.now = T0 + 120_000 + 10;
    expect(await pool.checkpoint()).toBeNull();
    for (const cp of await store.checkpoints(0, 10)) expect(isOnGrid(cp.time, GRID)).toBe(true);
    expect(pool.epoch).toEqual(GRID);
  });

  it('without a grid a checkpoint is stamped with its own time, as before (the twin)', async () => {
    const { store } = await h.fresh();
    const pool = new Ledger({ core, store, clock: () => T0 + 12_345 });
    expect((await pool.deposit({ amount: '5', pre: pre(0) })).ok).toBe(true);
    expect(await pool.checkpoint()).toMatchObject({ time: T0 + 12_345 });
    expect(isOnGrid(T0 + 12_345, GRID)).toBe(false);
  });

  it('refuses an anchor past E + D + maxTimeoutSeconds + slack once superseded (root_too_old)', async () => {
    const { pool, clock } = await gridPool(T0);
    const funded = await fundPool(pool, fx);
    expect(funded.time).toBe(T0);
    const limit = maxAnchorAgeMs(GRID, 60);
    // A quiet pool: its newest checkpoint is every wallet's anchor, however old.
    clock.now = T0 + 10 * limit;
    expect(await pool.anchorRefusal(funded.root, 60)).toBeNull();
    // Superseded at T0 + E: accepted within the limit…
    const { store } = await gridPool(T0);
    const busy = new Ledger({ core, store, clock: () => clock.now, epoch: GRID });
    clock.now = T0;
    const anchor = await fundPool(busy, fx);
    clock.now = T0 + GRID.epochMs;
    expect((await busy.deposit({ amount: '7', pre: pre(2) })).ok).toBe(true);
    expect(await busy.checkpoint()).toMatchObject({ time: T0 + GRID.epochMs });
    clock.now = T0 + limit;
    expect(await busy.anchorRefusal(anchor.root, 60)).toBeNull();
    // …refused past it, and a root that is no checkpoint stays unknown_root.
    clock.now = T0 + limit + 1;
    expect(await busy.anchorRefusal(anchor.root, 60)).toBe('root_too_old');
    expect(await busy.anchorRefusal(fx.notes[0]!.commitment, 60)).toBe('unknown_root');
    // A longer maxTimeoutSeconds allows it again: the limit is the payment's.
    expect(await busy.anchorRefusal(anchor.root, 120)).toBeNull();
  });
});
