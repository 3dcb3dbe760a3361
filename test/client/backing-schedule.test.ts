// The wallet's background backing check (src/client/backing-schedule.ts; docs/audit.md, "Wallet:
// verify-backing"), its timers, draws and clock injected: it runs at the epoch follower's slots, a
// geometric number of slots apart; a slot that falls while a write is under way or within the quiet
// window after one began is skipped (must-fail twin: the same draws with no write check there); a
// write that begins during a check stops it before its RPC read; a failure is reported and retried
// at the next slot; stopping the wallet stops it. The wallet side — a real write under way and its
// start time — on a real pool node.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  BACKING_QUIET_MIN_MS,
  type BackingCheckResult,
  BackingSchedule,
  nextCheckTime,
  runBackingSchedule,
  slotsAhead,
} from '../../src/client/backing-schedule.js';
import type { BackingReport } from '../../src/client/chain.js';
import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import type { EpochGrid } from '../../src/scheme/index.js';
import { depositTo, type GridNode, gridNode } from '../../testkit/grid-node.js';

const GRID: EpochGrid = { epochMs: 60_000, anchorDelayMs: 10_000 };
/** A boundary of the grid (2030-01-01T00:00Z). */
const T0 = Date.UTC(2030, 0, 1);
/** One check every four slots on average. */
const EVERY_MS = 4 * GRID.epochMs;
/** slotsAhead(1/4, U3) = 3: ln(0.5) / ln(0.75) = 2.41. */
const U3 = 0.5;

/** Timers a test fires by hand, moving the clock to each one's time. */
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
    /** Fires the one timer set, at its time. */
    fire() {
      expect(pending).toHaveLength(1);
      const timer = pending.shift()!;
      clock.now = timer.at;
      timer.run();
    },
  };
}

/** Draws handed out in order (then 0.5). */
const draws = (values: number[]) => () => values.shift() ?? 0.5;

const REPORT = { ok: true, problems: [] } as unknown as BackingReport;

/** A wallet the schedule reads, a check that records what it was asked, and the schedule. */
function setup(options: { random: () => number; quietMs?: number; failWith?: Error[] }) {
  const clock = { now: T0 + 1_000 };
  const wallet = {
    epochGrid: GRID as EpochGrid | null,
    busy: false,
    lastWriteAt: null as number | null,
    writesUnderWay() {
      return this.busy;
    },
  };
  const reads: { at: number; target: string }[] = [];
  /** Runs between the check's pool read and its RPC read (a payment beginning meanwhile). */
  const between: { run: () => void } = { run: () => undefined };
  const failures = options.failWith ?? [];
  const check = async (beforeRead: (target: 'rpc' | 'pool') => void) => {
    reads.push({ at: clock.now, target: 'sync' });
    between.run();
    beforeRead('rpc');
    reads.push({ at: clock.now, target: 'rpc' });
    const failure = failures.shift();
    if (failure) throw failure;
    return REPORT;
  };
  const results: BackingCheckResult[] = [];
  const manual = manualTimers(clock);
  const schedule = new BackingSchedule(wallet, check, {
    rpc: 'http://127.0.0.1:1',
    everyMs: EVERY_MS,
    quietMs: options.quietMs,
    onResult: (r) => results.push(r),
    random: options.random,
    timers: manual.timers,
    clock: () => clock.now,
  });
  return { clock, wallet, reads, between, results, schedule, ...manual };
}

describe('when the background check runs', () => {
  it('a geometric number of slots apart: on average one check per everyMs / E slots', () => {
    expect(slotsAhead(1, 0.99)).toBe(1);
    expect(slotsAhead(0.25, 0)).toBe(1);
    expect(slotsAhead(0.25, U3)).toBe(3);
    // The mean over evenly spaced draws is 1/p.
    const n = 100_000;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += slotsAhead(0.25, (i + 0.5) / n);
    expect(sum / n).toBeCloseTo(4, 1);
  });

  it('at the follower’s window of the drawn slot on a grid; in periods of its own without one', () => {
    // The window of T0 has not passed at T0 + 1 s: slot 1 is T0's, slot 3 is T0 + 2E's.
    expect(nextCheckTime(T0 + 1_000, GRID, GRID.epochMs, 1, 0.5).at).toBe(T0 + 5_000);
    expect(nextCheckTime(T0 + 1_000, GRID, GRID.epochMs, 3, 0)).toEqual({
      boundary: T0 + 120_000,
      at: T0 + 120_000 + 2_500,
    });
    // Never twice in one window: after the slot of T0, inside its window, the next is T0 + E's.
    expect(nextCheckTime(T0 + 3_000, GRID, GRID.epochMs, 1, 0, T0).at).toBe(T0 + 62_500);
    expect(nextCheckTime(T0, null, 1_000, 2, 0.5).at).toBe(T0 + 1_500);
  });

  it('runs at its slots, reports each outcome, and stops with the schedule', async () => {
    const s = setup({ random: draws([U3, 0.5, 0, 0]) });
    s.schedule.start();
    expect(s.pending.map((t) => t.at)).toEqual([T0 + 120_000 + 5_000]);
    s.fire();
    await s.schedule.settled();
    expect(s.reads.map((r) => r.target)).toEqual(['sync', 'rpc']);
    expect(s.results).toEqual([{ kind: 'report', at: T0 + 125_000, ok: true, report: REPORT }]);
    expect(s.schedule.last).toBe(s.results[0]);
    // The next one slot later (draw 0), at the window's start (draw 0).
    expect(s.pending.map((t) => t.at)).toEqual([T0 + 180_000 + 2_500]);
    await s.schedule.stop();
    expect(s.pending).toHaveLength(0);
    expect(s.schedule.running).toBe(false);
  });
});

describe('never next to a write', () => {
  it('a slot while a payment is under way is skipped, the next drawn afresh; twin: the same draws with no payment check there', async () => {
    for (const paying of [true, false]) {
      const s = setup({ random: draws([U3, 0.5, U3, 0.5]) });
      s.schedule.start();
      s.wallet.busy = paying;
      s.fire();
      await s.schedule.settled();
      if (paying) {
        expect(s.reads).toEqual([]);
        expect(s.results).toEqual([]);
        expect(s.schedule.postponed).toBe(1);
        // Three slots on (a fresh draw), not at the end of the payment.
        expect(s.pending.map((t) => t.at)).toEqual([T0 + 300_000 + 5_000]);
        s.wallet.busy = false;
        s.fire();
        await s.schedule.settled();
        expect(s.reads.map((r) => r.at)).toEqual([T0 + 305_000, T0 + 305_000]);
      } else {
        expect(s.reads.map((r) => r.at)).toEqual([T0 + 125_000, T0 + 125_000]);
        expect(s.schedule.postponed).toBe(0);
      }
      await s.schedule.stop();
    }
  });

  it('nor within the quiet window after a write began: skipped slot by slot until it has passed', async () => {
    // Draws of 0: every slot is a check's (slot 1), at the window's start (B + D/4).
    const s = setup({ random: () => 0 });
    s.schedule.start();
    const first = s.pending[0]!.at;
    expect(first).toBe(T0 + 2_500);
    // A payment began 30 s before the slot and has resolved since.
    s.wallet.lastWriteAt = first - 30_000;
    s.fire();
    await s.schedule.settled();
    expect(s.reads).toEqual([]);
    // Next slot: 90 s after the write, still inside the 120 s window — skipped too.
    expect(s.pending[0]!.at - s.wallet.lastWriteAt).toBe(90_000);
    expect(90_000).toBeLessThan(BACKING_QUIET_MIN_MS);
    s.fire();
    await s.schedule.settled();
    expect(s.reads).toEqual([]);
    expect(s.schedule.postponed).toBe(2);
    // Then 150 s after it: the check runs.
    s.fire();
    await s.schedule.settled();
    expect(s.reads.map((r) => r.at - s.wallet.lastWriteAt!)).toEqual([150_000, 150_000]);
    await s.schedule.stop();
  });

  it('a write that begins during a check stops it before its RPC read; twin: without one the RPC is read', async () => {
    for (const writes of [true, false]) {
      const s = setup({ random: () => 0 });
      s.schedule.start();
      s.between.run = () => {
        if (writes) s.wallet.lastWriteAt = s.clock.now;
      };
      s.fire();
      await s.schedule.settled();
      expect(s.reads.map((r) => r.target)).toEqual(writes ? ['sync'] : ['sync', 'rpc']);
      expect(s.results).toHaveLength(writes ? 0 : 1);
      expect(s.schedule.postponed).toBe(writes ? 1 : 0);
      expect(s.pending).toHaveLength(1);
      await s.schedule.stop();
    }
  });
});

describe('a check that fails', () => {
  it('is reported with its code, never thrown, and retried at the very next slot', async () => {
    const s = setup({
      random: draws([0, 0, 0, U3, 0]),
      failWith: [new Error('HTTP request failed.\nURL: http://127.0.0.1:1')],
    });
    const throwing = s.results.push.bind(s.results);
    // The user's callback throwing changes nothing.
    (s.schedule as unknown as { options: { onResult: unknown } }).options.onResult = (
      r: BackingCheckResult,
    ) => {
      throwing(r);
      throw new Error('the user’s callback');
    };
    s.schedule.start();
    s.fire();
    await s.schedule.settled();
    expect(s.results).toEqual([
      {
        kind: 'failed',
        at: T0 + 2_500,
        ok: false,
        code: 'backing_rpc_failed',
        message: 'HTTP request failed.',
      },
    ]);
    // The next slot, one epoch on, with no draw of how many.
    expect(s.pending.map((t) => t.at)).toEqual([T0 + 60_000 + 2_500]);
    s.fire();
    await s.schedule.settled();
    expect(s.results.map((r) => r.kind)).toEqual(['failed', 'report']);
    expect(s.schedule.last?.ok).toBe(true);
    // After a success the draw counts again: three slots on.
    expect(s.pending.map((t) => t.at)).toEqual([T0 + 240_000 + 2_500]);
    await s.schedule.stop();
  });

  it('a failure before the RPC read is the pool’s', async () => {
    const s = setup({ random: () => 0 });
    s.between.run = () => {
      throw new Error('pool node unreachable');
    };
    s.schedule.start();
    s.fire();
    await s.schedule.settled();
    expect(s.results).toMatchObject([{ kind: 'failed', code: 'backing_pool_failed' }]);
    await s.schedule.stop();
  });
});

describe('on a real wallet', () => {
  let core: PrivStarkCore;
  const open: GridNode[] = [];
  beforeAll(async () => {
    core = await loadCore();
  });
  afterEach(async () => {
    for (const node of open.splice(0)) await node.close();
  });

  it('a transfer is a write under way until the log shows it, from the time it began; Wallet.stop ends the check', async () => {
    const node = await gridNode(core, { epochMs: 1, anchorDelayMs: 0 }, T0);
    open.push(node);
    const wallet = await Wallet.create({
      core,
      pool: node.url,
      clock: () => node.clock.now,
      minEpochMs: 1,
    });
    await depositTo(node, wallet, '5000');
    await node.ledger.checkpoint();
    await wallet.sync();
    expect(wallet.writesUnderWay()).toBe(false);
    expect(wallet.lastWriteAt).toBeNull();

    node.clock.now = T0 + 10_000;
    await wallet.transfer(wallet.address, '2000');
    expect(wallet.lastWriteAt).toBe(T0 + 10_000);
    expect(wallet.writesUnderWay()).toBe(true);
    node.clock.now = T0 + 20_000;
    await node.ledger.checkpoint();
    await wallet.sync();
    expect(wallet.writesUnderWay()).toBe(false);
    expect(wallet.lastWriteAt).toBe(T0 + 10_000);

    // The schedule reads the wallet: within the window after the transfer it skips the slot.
    const clock = { now: T0 + 20_000 };
    const { pending, timers, fire } = manualTimers(clock);
    let checks = 0;
    const schedule = runBackingSchedule(
      wallet,
      async () => {
        checks++;
        return REPORT;
      },
      {
        rpc: 'http://127.0.0.1:1',
        everyMs: 1_000,
        random: () => 0,
        timers,
        clock: () => clock.now,
      },
    );
    fire();
    await schedule.settled();
    expect(checks).toBe(0);
    expect(schedule.postponed).toBe(1);
    clock.now = T0 + 10_000 + BACKING_QUIET_MIN_MS;
    pending[0]!.at = clock.now;
    fire();
    await schedule.settled();
    expect(checks).toBe(1);
    expect(wallet.backingCheck).toMatchObject({ kind: 'report', ok: true });
    await wallet.stop();
    expect(schedule.running).toBe(false);
    expect(pending).toHaveLength(0);
  }, 60_000);
});
