// The epoch follower (src/client/epoch-follower.ts; issue 25, "anchors many wallets share"): a
// wallet whose only syncs are the follower's holds, at any payment, the anchor every wallet shows
// now — on a real pool node on the product's grid (E = 60 s, D = 10 s), clock and timers injected.
// Its twin: the same wallet without the follower, synced once, still anchors epochs later to the
// boundary of that sync, which names it. And where the follower syncs: one per epoch, inside
// [B + D/4, B + 3D/4), never twice for one boundary.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { MIN_POOL_EPOCH_MS } from '../../src/client/epoch-minimum.js';
import { EpochFollower, nextFollowTime, Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import type { EpochGrid } from '../../src/scheme/index.js';
import { depositTo, type GridNode, gridNode } from '../../testkit/grid-node.js';

const GRID: EpochGrid = { epochMs: 60_000, anchorDelayMs: 10_000 };
/** A boundary of the grid (2030-01-01T00:00Z). */
const T0 = Date.UTC(2030, 0, 1);

let core: PrivStarkCore;
const open: GridNode[] = [];

beforeAll(async () => {
  core = await loadCore();
});

afterEach(async () => {
  for (const node of open.splice(0)) await node.close();
});

describe('nextFollowTime', () => {
  it('draws inside [B + D/4, B + 3D/4) of the next boundary whose window has not passed', () => {
    expect(nextFollowTime(T0 + 1_000, GRID, 0)).toEqual({ boundary: T0, at: T0 + 2_500 });
    expect(nextFollowTime(T0 + 1_000, GRID, 0.999_999).at).toBe(T0 + 7_500);
    // Past the window's end: the next boundary's window.
    expect(nextFollowTime(T0 + 7_500, GRID, 0.5)).toEqual({
      boundary: T0 + 60_000,
      at: T0 + 65_000,
    });
    // Inside the window past the drawn point: at once.
    expect(nextFollowTime(T0 + 6_000, GRID, 0)).toEqual({ boundary: T0, at: T0 + 6_000 });
  });

  it('never twice for one boundary: after following B, the next is B + E (must-fail twin of the above)', () => {
    expect(nextFollowTime(T0 + 3_000, GRID, 0.5, T0)).toEqual({
      boundary: T0 + 60_000,
      at: T0 + 65_000,
    });
    expect(nextFollowTime(T0 + 3_000, GRID, 0.5, T0 - 60_000).boundary).toBe(T0);
  });
});

/** The boundary a payment from `wallet` would anchor to now (the balance chooses it again). */
function anchorTime(wallet: Wallet): number | undefined {
  wallet.balance();
  return wallet.checkpoint?.time;
}

/** Timers a test fires by hand, moving the node's clock to each one's time. */
function manualTimers(clock: { now: number }) {
  const pending: { run: () => void; at: number }[] = [];
  return {
    pending,
    timers: {
      set: (run: () => void, delayMs: number) => {
        const timer = { run, at: clock.now + delayMs };
        pending.push(timer);
        return timer;
      },
      clear: (handle: unknown) => {
        const i = pending.indexOf(handle as (typeof pending)[number]);
        if (i >= 0) pending.splice(i, 1);
      },
    },
  };
}

describe('a wallet following the epochs', () => {
  it('holds the anchor every wallet shows at each payment time; without the follower it shows its sync’s (twin)', async () => {
    const node = await gridNode(core, GRID, T0 + 1_000);
    open.push(node);
    const walletOptions = {
      core,
      pool: node.url,
      clock: () => node.clock.now,
      minEpochMs: MIN_POOL_EPOCH_MS,
    };
    const following = await Wallet.create(walletOptions);
    const once = await Wallet.create(walletOptions);
    await depositTo(node, following, '1000');
    await depositTo(node, once, '1000');
    // Both learn the grid; from here only the follower syncs `following`.
    await following.sync();
    await once.sync();
    const { pending, timers } = manualTimers(node.clock);
    const syncs: number[] = [];
    const sync = following.sync.bind(following);
    following.sync = async () => {
      syncs.push(node.clock.now);
      return sync();
    };
    const follower = new EpochFollower(following, {
      timers,
      clock: () => node.clock.now,
      random: () => 0.5,
    }).start();

    // Started at T0 + 1 s: its first sync is for boundary T0 (the draw 0.5: at T0 + D/2).
    expect(pending.map((t) => t.at)).toEqual([T0 + 5_000]);
    const first = pending.shift()!;
    node.clock.now = first.at;
    first.run();
    await follower.settled();

    for (let epoch = 1; epoch <= 3; epoch++) {
      const boundary = T0 + epoch * GRID.epochMs;
      // Others deposit during the epoch; the pool cuts the boundary's checkpoint half a second in.
      await depositTo(node, once, '1');
      node.clock.now = boundary + 500;
      const cut = await node.ledger.checkpoint();
      expect(cut).toMatchObject({ time: boundary });
      // The follower's one timer is this boundary's, at B + D/2 (the draw 0.5).
      expect(pending).toHaveLength(1);
      expect(pending[0]!.at).toBe(boundary + 5_000);
      const timer = pending.shift()!;
      node.clock.now = timer.at;
      timer.run();
      await follower.settled();
      // The twin syncs once, in the first epoch, at the same time.
      if (epoch === 1) await once.sync();
      // A payment any time in [B + D, B + E + D) anchors to B: the anchor every wallet shows.
      for (const at of [boundary + GRID.anchorDelayMs, boundary + 69_000]) {
        node.clock.now = at;
        expect(anchorTime(following)).toBe(boundary);
        // Twin: `once`, synced in the first epoch only, still shows that epoch's boundary — an
        // anchor that names when it last read.
        expect(anchorTime(once)).toBe(T0 + GRID.epochMs);
      }
      node.clock.now = boundary + 5_000;
    }
    // One sync per epoch, each inside its window.
    expect(syncs.map((t) => t - T0)).toEqual([5_000, 65_000, 125_000, 185_000]);
    await follower.stop();
    expect(pending).toHaveLength(0);
  });

  it('does nothing on a pool without a grid (a checkpoint is an anchor at once there)', async () => {
    const node = await gridNode(core, { epochMs: 1, anchorDelayMs: 0 }, T0 + 1_000);
    open.push(node);
    const wallet = await Wallet.create({
      core,
      pool: node.url,
      clock: () => node.clock.now,
      minEpochMs: 1,
    });
    await wallet.sync();
    const { pending, timers } = manualTimers(node.clock);
    const follower = new EpochFollower(wallet, { timers, clock: () => node.clock.now }).start();
    expect(follower.running).toBe(false);
    expect(pending).toHaveLength(0);
  });
});
