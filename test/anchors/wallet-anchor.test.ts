// The wallet's side of the epoch grid (issue 25, "anchors many wallets share") against a real pool
// node on an injected clock: the wallet learns E and D from the pool node's own /state, anchors to
// the newest grid checkpoint at least D old — moving on at a boundary without a sync — and never to
// an extra checkpoint off the grid (the must-fail case: the pool node shows the wallet one that
// covers a fresh note; its twin, the next grid checkpoint, is anchored to). A pool advertising an
// epoch below the wallet's minimum is refused (twin: a wallet configured for a test pool accepts
// it), and a mirror's grid is never taken.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { MIN_POOL_EPOCH_MS } from '../../src/client/epoch-minimum.js';
import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { PoolNodeClient } from '../../src/pool-node/index.js';
import type { PoolNodeState } from '../../src/pool-node/read-schemas.js';
import { type EpochGrid, NO_EPOCH_GRID } from '../../src/scheme/index.js';
import { depositTo, type GridNode, gridNode as startGridNode } from '../../testkit/grid-node.js';

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

/** A real pool node over a SQLite ledger on `grid`, its clock injected (no timer: cut by hand). */
async function gridNode(grid: EpochGrid, start: number): Promise<GridNode> {
  const node = await startGridNode(core, grid, start);
  open.push(node);
  return node;
}

const deposit = depositTo;

describe('the wallet on the epoch grid', () => {
  it('anchors to the newest grid checkpoint at least D old, and moves on at a boundary without a sync', async () => {
    const node = await gridNode(GRID, T0 + 1_000);
    const wallet = await Wallet.create({
      core,
      pool: node.url,
      clock: () => node.clock.now,
      minEpochMs: MIN_POOL_EPOCH_MS,
    });
    await deposit(node, wallet, '1000');
    node.clock.now = T0 + 60_000 + 500;
    const first = await node.ledger.checkpoint();
    expect(first).toMatchObject({ time: T0 + 60_000 });
    // Synced before the boundary is D old: held, not yet the anchor.
    node.clock.now = T0 + 60_000 + 5_000;
    await wallet.sync();
    expect(wallet.balance().unconfirmed).toBe(1000n);
    expect(wallet.checkpoint).toBeNull();
    // D later, no sync: the notes are chosen against it (the balance reads it again).
    node.clock.now = T0 + 60_000 + 10_000;
    expect(wallet.balance().unconfirmed).toBe(0n);
    expect(wallet.checkpoint).toMatchObject({ seq: first!.seq, root: first!.root });
    // Stored state covers this epoch (a one-shot write needs no sync); past the next boundary's
    // D it no longer does (twin).
    expect(wallet.coversCurrentEpoch()).toBe(true);
    node.clock.now = T0 + 120_000 + 10_000;
    expect(wallet.coversCurrentEpoch()).toBe(false);
  });

  it('never anchors to an extra checkpoint off the grid (must-fail), and takes the next grid one (twin)', async () => {
    const node = await gridNode(GRID, T0 + 1_000);
    const wallet = await Wallet.create({
      core,
      pool: node.url,
      clock: () => node.clock.now,
      minEpochMs: MIN_POOL_EPOCH_MS,
    });
    await deposit(node, wallet, '1000');
    node.clock.now = T0 + 60_000 + 500;
    const grid = (await node.ledger.checkpoint())!;
    node.clock.now = T0 + 60_000 + 20_000;
    await wallet.sync();
    expect(wallet.checkpoint?.root).toBe(grid.root);

    // The pool node publishes an extra checkpoint, off the grid, covering a fresh note of the
    // wallet's: what an operator would show one wallet to tag its next payment.
    await deposit(node, wallet, '2000');
    node.clock.now = T0 + 60_000 + 25_000;
    const extra = await node.store.checkpoint(node.clock.now, 0, 1);
    expect(extra).toMatchObject({ time: T0 + 85_000, size: 2 });
    const head = await node.operator.state();
    expect(head.checkpoint?.seq).toBe(extra!.seq);
    node.clock.now = T0 + 60_000 + 40_000; // the extra one is well past D old
    await wallet.sync();
    expect(wallet.checkpoint?.root).toBe(grid.root);
    expect(wallet.checkpoint?.root).not.toBe(extra!.root);
    // The fresh note stays outside the anchor: no payment can anchor to the extra root.
    expect(wallet.checkpoint?.size).toBe(1);
    expect(wallet.balance().unconfirmed).toBe(2000n);

    // Twin: the next boundary's checkpoint (same tree) is the anchor once D old.
    await deposit(node, wallet, '3000');
    node.clock.now = T0 + 120_000 + 300;
    const next = (await node.ledger.checkpoint())!;
    expect(next.time).toBe(T0 + 120_000);
    node.clock.now = T0 + 120_000 + 10_000;
    await wallet.sync();
    expect(wallet.checkpoint?.root).toBe(next.root);
    expect(wallet.balance().unconfirmed).toBe(0n);
  });

  it('refuses a pool advertising an epoch below its minimum; a wallet configured for a test pool accepts it (twin)', async () => {
    const node = await gridNode(NO_EPOCH_GRID, Date.now());
    const strict = await Wallet.create({ core, pool: node.url, minEpochMs: MIN_POOL_EPOCH_MS });
    await expect(strict.sync()).rejects.toMatchObject({ code: 'pool_epoch_too_short' });
    expect(strict.checkpoint).toBeNull();
    const devnet = await Wallet.create({ core, pool: node.url, minEpochMs: 1 });
    await deposit(node, devnet, '700');
    await node.ledger.checkpoint();
    await devnet.sync();
    expect(devnet.balance().unconfirmed).toBe(0n);
    expect(devnet.checkpoint?.size).toBe(1);
  });

  it("learns the grid from the pool node, never from a mirror's head", async () => {
    const node = await gridNode(GRID, T0 + 1_000);
    /** A mirror that serves the pool's pages but advertises no grid. */
    class GridlessMirror extends PoolNodeClient {
      override async state(): Promise<PoolNodeState> {
        return { ...(await super.state()), epochMs: 1, anchorDelayMs: 0 };
      }
    }
    const wallet = await Wallet.create({
      core,
      pool: node.url,
      poolMirror: new GridlessMirror(node.url),
      clock: () => node.clock.now,
      minEpochMs: MIN_POOL_EPOCH_MS,
    });
    await deposit(node, wallet, '1000');
    node.clock.now = T0 + 60_000 + 100;
    const grid = (await node.ledger.checkpoint())!;
    node.clock.now = T0 + 60_000 + 3_000;
    await wallet.sync();
    // The mirror's 1 ms would make the fresh checkpoint the anchor at once; the pool's D holds it.
    expect(wallet.checkpoint).toBeNull();
    node.clock.now = T0 + 60_000 + 10_000;
    expect(wallet.balance().unconfirmed).toBe(0n);
    expect(wallet.checkpoint?.root).toBe(grid.root);
  });
});
