// The deposit watcher's state (src/ledger/deposit-watch.ts) on both stores, through the one
// interface: the binding recorded once, events recorded with the cursor atomically, a deposit read
// again keeping its decision, a rewind undoing exactly what was read above it and never a shielded
// deposit, the decisions of one acceptance sent and cleared, and a commitment's leaf told apart
// as a deposit's or not — all of it surviving a reopening.

import { afterEach, describe, expect, it } from 'vitest';

import { randomDigest } from '../../src/core/index.js';
import {
  type DepositWatchStore,
  openDepositWatch,
  type WatchBinding,
  type WatchEvent,
  watchSource,
} from '../../src/ledger/index.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { depositOp, settlementOp } from './helpers/ops.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const NOW = 1_800_000_000_000;
const ESCROW = '0x1111111111111111111111111111111111111111';
const SOURCE = watchSource(8453, ESCROW);
const BINDING: WatchBinding = {
  source: SOURCE,
  chainId: 8453,
  escrow: ESCROW,
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  network: 'shielded:076db7eb00dc66f38c605ef42616f63b',
  deployBlock: 100,
};

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

function hash(block: number, fork = 'a'): string {
  return `0x${fork}${block.toString(16).padStart(63, '0')}`;
}

function deposited(index: number, block: number, fork = 'a'): WatchEvent {
  return {
    kind: 'deposited',
    index,
    depositor: '0x2222222222222222222222222222222222222222',
    amount: String(1000 + index),
    pre: randomDigest(),
    block,
    blockHash: hash(block, fork),
  };
}

function settled(
  kind: 'accepted' | 'declined' | 'reclaimed',
  index: number,
  block: number,
): WatchEvent {
  return { kind, index, block, blockHash: hash(block) };
}

describe.each(kinds)('deposit watcher state on the %s store', (kind) => {
  const h = storeHarness(kind);
  const opened: DepositWatchStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((w) => w.close()));
  });

  async function fresh() {
    const fresh = await h.fresh();
    const open = () => {
      const watch = openDepositWatch(fresh.config);
      opened.push(watch);
      return watch;
    };
    const watch = open();
    await watch.bind(BINDING, NOW);
    return { ...fresh, watch, open };
  }

  async function states(watch: DepositWatchStore) {
    const all = await watch.deposits(
      SOURCE,
      ['pending', 'accepted', 'declined', 'reclaimed', 'shielded', 'unshieldable'],
      100,
    );
    return Object.fromEntries(all.map((d) => [d.index, d.state]));
  }

  it('records the binding once, its cursor before the deployment block', async () => {
    const { watch } = await fresh();
    expect(await watch.bindings()).toEqual([BINDING]);
    expect(await watch.cursor(SOURCE)).toEqual({ block: 99, hash: null });
    // A second binding, even of another escrow, answers the first: a store backs one pool.
    const other = { ...BINDING, source: watchSource(8453, `0x${'3'.repeat(40)}`) };
    expect(await watch.bind(other, NOW)).toEqual(BINDING);
    expect(await watch.bindings()).toEqual([BINDING]);
  });

  it('records events with the cursor, and they survive a reopening', async () => {
    const { watch, open } = await fresh();
    await watch.record(
      SOURCE,
      [deposited(0, 101), deposited(1, 101), deposited(2, 102), settled('accepted', 0, 103)],
      { block: 103, hash: hash(103) },
      NOW,
    );
    await watch.record(
      SOURCE,
      [settled('declined', 1, 104), settled('reclaimed', 1, 105)],
      { block: 105, hash: hash(105) },
      NOW,
    );
    const again = open();
    expect(await again.cursor(SOURCE)).toEqual({ block: 105, hash: hash(105) });
    expect(await states(again)).toEqual({ 0: 'accepted', 1: 'reclaimed', 2: 'pending' });
    const [first] = await again.deposits(SOURCE, ['accepted'], 10);
    expect(first).toMatchObject({
      index: 0,
      amount: '1000',
      block: 101,
      blockHash: hash(101),
      settledBlock: 103,
      settledHash: hash(103),
      decision: null,
    });
    expect(await again.counts(SOURCE)).toEqual({
      pending: 1,
      accepted: 1,
      declined: 0,
      reclaimed: 1,
      shielded: 0,
      unshieldable: 0,
    });
  });

  it('records decisions per acceptance, keeps them when a deposit is read again, clears them', async () => {
    const { watch } = await fresh();
    const events = [deposited(0, 101), deposited(1, 101), deposited(2, 101)];
    await watch.record(SOURCE, events, { block: 101, hash: hash(101) }, NOW);
    const tx = `0x${'ab'.repeat(32)}`;
    await watch.decide(
      SOURCE,
      [
        { index: 0, decision: 'accept', reason: null },
        { index: 1, decision: 'decline', reason: 'denied_depositor' },
      ],
      tx,
      110,
      NOW,
    );
    // Read again (the same page after a crash before the cursor moved): the decision stays.
    await watch.record(SOURCE, events, { block: 101, hash: hash(101) }, NOW);
    const pending = await watch.deposits(SOURCE, ['pending'], 10);
    expect(pending.map((d) => [d.index, d.decision, d.reason, d.sentTx, d.sentBlock])).toEqual([
      [0, 'accept', null, tx, 110],
      [1, 'decline', 'denied_depositor', tx, 110],
      [2, null, null, null, null],
    ]);
    await watch.clearSent(SOURCE, tx, NOW);
    expect((await watch.deposits(SOURCE, ['pending'], 10)).every((d) => d.sentTx === null)).toBe(
      true,
    );
  });

  it('a rewind undoes what was read above it, never a shielded deposit', async () => {
    const { watch } = await fresh();
    await watch.record(
      SOURCE,
      [
        deposited(0, 101),
        deposited(1, 101),
        deposited(2, 101),
        deposited(3, 101),
        settled('accepted', 0, 102),
        settled('declined', 1, 102),
        settled('accepted', 3, 102),
        deposited(4, 106),
        settled('reclaimed', 1, 107),
        settled('declined', 2, 108),
        settled('accepted', 4, 108),
      ],
      { block: 110, hash: hash(110) },
      NOW,
    );
    await watch.markShielded(SOURCE, 0, 7, NOW);
    await watch.markUnshieldable(SOURCE, 3, 'duplicate_commitment', NOW);
    // Twin: marking a deposit that is not accepted changes nothing.
    await watch.markShielded(SOURCE, 2, 8, NOW);
    // Blocks above 104 are gone; shielded deposit 0 was accepted at 102 (kept in any case).
    await watch.rewind(SOURCE, { block: 104, hash: hash(104) }, NOW);
    expect(await watch.cursor(SOURCE)).toEqual({ block: 104, hash: hash(104) });
    expect(await states(watch)).toEqual({
      0: 'shielded',
      1: 'declined',
      2: 'pending',
      3: 'unshieldable',
    });
    const [one] = await watch.deposits(SOURCE, ['declined'], 10);
    expect(one).toMatchObject({ settledBlock: 102, reclaimedBlock: null, reclaimedHash: null });
    // A rewind below a shielded deposit's blocks leaves it as it is.
    await watch.rewind(SOURCE, { block: 99, hash: null }, NOW);
    expect(await states(watch)).toEqual({ 0: 'shielded', 3: 'unshieldable' });
    expect((await watch.deposits(SOURCE, ['shielded'], 10))[0]?.leafIndex).toBe(7);
  });

  it('recent: deposits with an event at or above a block, and every pending or accepted one', async () => {
    const { watch } = await fresh();
    await watch.record(
      SOURCE,
      [
        deposited(0, 101),
        deposited(1, 101),
        deposited(2, 101),
        settled('accepted', 0, 102),
        settled('declined', 1, 102),
        settled('accepted', 2, 102),
      ],
      { block: 150, hash: hash(150) },
      NOW,
    );
    await watch.markShielded(SOURCE, 2, 0, NOW);
    // 0 is accepted: always; 1 declined at 102 and 2 shielded at 102: only from 102 down.
    expect((await watch.recent(SOURCE, 103)).map((d) => d.index)).toEqual([0]);
    expect((await watch.recent(SOURCE, 102)).map((d) => d.index)).toEqual([0, 1, 2]);
  });

  it('tells a deposit’s leaf from another leaf holding a commitment', async () => {
    const { watch, store } = await fresh();
    const deposit = depositOp();
    const settlement = settlementOp(h.core());
    await store.apply([deposit, settlement], NOW);
    expect(await watch.commitmentLeaf(deposit.commitment)).toEqual({ index: 0, deposit: true });
    expect(await watch.commitmentLeaf(settlement.recipientNote)).toEqual({
      index: 2,
      deposit: false,
    });
    expect(await watch.commitmentLeaf(randomDigest())).toBeNull();
  });
});
