// Ready notes (docs/client.md): the split plan (fast-check: it never touches a note it must not,
// never splits below the target value, conserves value, and reaches the count in about log2(count)
// rounds when the wallet holds enough), then the whole stack — a wallet funded by one deposit keeps
// eight ready notes by private splits (transitions) on a Poisson schedule, each note of its minimum
// age by an injected clock, and pays eight stock merchants at once (all settle), then pays ten times back to back while the keeper refills; its twin without a
// keeper pays one of eight. A wallet restored from the key alone finds every note the splits made.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  InsufficientFundsError,
  payingFetch,
  planSplits,
  ReadyNotesKeeper,
  type StoredNote,
  settlementOf,
  Wallet,
  WalletBehindError,
} from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import {
  expressMerchant,
  type Merchant,
  PRICE_ATOMIC,
  type Stack,
  startStack,
} from '../../testkit/stack.js';

const VALUE = 100_000n;

function note(i: number, value: bigint, index: number, spent = false): StoredNote {
  const hex = `0x${i.toString(16).padStart(64, '0')}` as StoredNote['commitment'];
  return {
    commitment: hex,
    value: value.toString(),
    rho: hex,
    index,
    nullifier: hex,
    origin: 'deposit',
    ...(spent ? { spent: { settlementId: 's', eventId: 1 } } : {}),
  };
}

/** Whether `error` says the wallet had no note to pay with (typed, or as @x402/fetch rethrows it). */
function ranOut(error: unknown): boolean {
  if (error instanceof InsufficientFundsError) return true;
  const message = error instanceof Error ? error.message : '';
  return /^Failed to create payment payload: (insufficient funds|the note is not in a checkpoint|the wallet has no checkpoint)/.test(
    message,
  );
}

describe('planSplits', () => {
  const arbitraryWallet = fc.record({
    values: fc.array(fc.bigInt({ min: 1n, max: 40n * VALUE }), { minLength: 1, maxLength: 6 }),
    count: fc.integer({ min: 1, max: 16 }),
    lockedMask: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    anchoredMask: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
  });

  it('splits only free, anchored notes holding two values, in whole values, never below one', () => {
    fc.assert(
      fc.property(arbitraryWallet, ({ values, count, lockedMask, anchoredMask }) => {
        const notes = values.map((v, i) => note(i + 1, v, anchoredMask[i] ? i : 100 + i));
        const locked = new Set(notes.filter((_, i) => lockedMask[i]).map((n) => n.commitment));
        const plans = planSplits({ notes, anchoredSize: 100, locked }, { count, value: VALUE });
        const seen = new Set<string>();
        for (const plan of plans) {
          const n = notes.find((x) => x.commitment === plan.note)!;
          expect(locked.has(n.commitment)).toBe(false);
          expect(n.index).toBeLessThan(100);
          expect(seen.has(plan.note)).toBe(false);
          seen.add(plan.note);
          expect(plan.amount % VALUE).toBe(0n);
          expect(plan.amount).toBeGreaterThanOrEqual(VALUE);
          expect(BigInt(n.value) - plan.amount).toBeGreaterThanOrEqual(VALUE);
        }
      }),
    );
  });

  it('reaches min(count, what the notes hold) (or keeps more) in about log2(count) rounds, value conserved', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 1n, max: 40n * VALUE }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 32 }),
        (values, count) => {
          let notes = values.map((v, i) => note(i + 1, v, i));
          let next = 1000;
          const total = values.reduce((a, b) => a + b, 0n);
          const holds = values.reduce((a, v) => a + Number(v / VALUE), 0);
          let rounds = 0;
          for (;;) {
            const plans = planSplits(
              { notes, anchoredSize: Number.MAX_SAFE_INTEGER, locked: new Set() },
              { count, value: VALUE },
            );
            if (plans.length === 0) break;
            rounds++;
            for (const plan of plans) {
              const n = notes.find((x) => x.commitment === plan.note)!;
              notes = notes.filter((x) => x !== n);
              notes.push(
                note(next++, plan.amount, next),
                note(next++, BigInt(n.value) - plan.amount, next),
              );
            }
          }
          expect(notes.reduce((a, n) => a + BigInt(n.value), 0n)).toBe(total);
          const ready = notes.filter((n) => BigInt(n.value) >= VALUE).length;
          const had = values.filter((v) => v >= VALUE).length;
          expect(ready).toBe(Math.max(had, Math.min(count, holds)));
          expect(rounds).toBeLessThanOrEqual(Math.ceil(Math.log2(count)) + 1);
        },
      ),
    );
  });

  it('plans nothing while the notes it has, spendable or waiting for a checkpoint, make the count', () => {
    const notes = [note(1, 5n * VALUE, 0), note(2, VALUE, 50), note(3, VALUE, 51)];
    expect(
      planSplits({ notes, anchoredSize: 10, locked: new Set() }, { count: 3, value: VALUE }),
    ).toEqual([]);
    expect(
      planSplits({ notes, anchoredSize: 10, locked: new Set() }, { count: 4, value: VALUE }),
    ).toEqual([{ note: notes[0]!.commitment, amount: VALUE }]);
    // A spent note counts for nothing.
    const spent = [note(1, 5n * VALUE, 0, true)];
    expect(
      planSplits({ notes: spent, anchoredSize: 10, locked: new Set() }, { count: 2, value: VALUE }),
    ).toEqual([]);
  });

  it('counts a note a payment under way holds until it resolves; a note a split holds is gone', () => {
    // Eight payments at once on eight ready notes: the first one's lock must not make the keeper
    // split one of the seven the others are about to choose.
    const notes = [note(1, 2n * VALUE, 0), note(2, VALUE, 1), note(3, VALUE, 2)];
    const locked = new Set([notes[2]!.commitment]);
    const target = { count: 3, value: VALUE };
    expect(planSplits({ notes, anchoredSize: 10, locked, paying: locked }, target)).toEqual([]);
    // Its twin: the same note held by a transition (a merge, an exit) is replaced at once.
    expect(planSplits({ notes, anchoredSize: 10, locked }, target)).toEqual([
      { note: notes[0]!.commitment, amount: VALUE },
    ]);
  });
});

describe('ready notes on the whole stack', () => {
  let core: PrivStarkCore;
  let stack: Stack;
  const merchants: Merchant[] = [];
  const merchantWallets: Wallet[] = [];

  beforeAll(async () => {
    core = await loadCore();
    stack = await startStack(core);
    for (let i = 0; i < 8; i++) {
      const w = await stack.wallet();
      merchantWallets.push(w);
      merchants.push(await expressMerchant(stack.facilitatorUrl, w.address));
    }
  }, 120_000);
  afterAll(async () => {
    for (const m of merchants) await m.close();
    await stack?.close();
  });

  it('without ready notes, one deposit pays one of eight at once (the twin)', async () => {
    const payer = await stack.wallet();
    await stack.fund(payer, '1000000');
    const pay = payingFetch(payer);
    const results = await Promise.allSettled(merchants.map((m) => pay(`${m.url}/weather`)));
    const paid = results.filter((r) => r.status === 'fulfilled' && r.value.status === 200);
    expect(paid).toHaveLength(1);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused.length).toBe(7);
    for (const r of refused)
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/can spend|InsufficientFunds/i);
  }, 60_000);

  it('eight ready notes from one deposit pay eight merchants at once; ten more back to back; a restore finds every note', async () => {
    // Notes wait for their minimum age (two 60 s epochs plus an exponential delay of mean one)
    // by an injected clock that runs a thousand times faster than real time: the notes are made
    // ready ahead of time, and a note younger than its age waits, as a WalletBehindError, without
    // the test waiting minutes.
    const started = Date.now();
    const ageClock = () => started + (Date.now() - started) * 1000;
    const payer = await Wallet.create({
      core,
      pool: stack.poolUrl,
      notes: { baseMs: 120_000, meanExtraMs: 60_000, clock: ageClock },
    });
    await stack.fund(payer, '1000000');
    const errors: unknown[] = [];
    const keeper = new ReadyNotesKeeper(
      payer,
      { count: 8, value: VALUE },
      { intervalMs: 50, onError: (e) => errors.push(e) },
    ).start();
    try {
      await keeper.whenReady(30_000);
      expect(keeper.ready()).toBeGreaterThanOrEqual(8);
      const pay = payingFetch(payer);
      const responses = await Promise.all(merchants.map((m) => pay(`${m.url}/weather`)));
      for (const r of responses) {
        expect(r.status).toBe(200);
        expect(settlementOf(r)?.success).toBe(true);
      }
      // Back to back: each payment right after the one before, a ready note each time.
      for (let i = 0; i < 10; i++) {
        let response: Response | null = null;
        for (let attempt = 0; attempt < 200 && response === null; attempt++) {
          try {
            response = await pay(`${merchants[i % 8]!.url}/weather`);
          } catch (error) {
            // The keeper refills between checkpoints; a wallet that ran out waits for it. The
            // stock @x402/fetch rethrows the wallet's error as a plain Error with its message.
            if (!(ranOut(error) || error instanceof WalletBehindError)) throw error;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        expect(response?.status).toBe(200);
      }
    } finally {
      await keeper.stop();
    }
    expect(errors).toEqual([]);
    await stack.settle(payer, ...merchantWallets);
    // 18 payments of the price left the payer; every merchant holds what it was paid.
    expect(payer.balance().total).toBe(1_000_000n - 18n * PRICE_ATOMIC);
    const received = merchantWallets.reduce((sum, w) => sum + w.balance().total, 0n);
    expect(received).toBeGreaterThanOrEqual(18n * PRICE_ATOMIC);
    // The key alone finds every note the splits and the payments left.
    const restored = await Wallet.create({ core, pool: stack.poolUrl, sk: payer.spendingKey });
    await restored.sync();
    expect(restored.balance().total).toBe(payer.balance().total);
    expect(
      restored
        .notes()
        .map((n) => n.commitment)
        .sort(),
    ).toEqual(
      payer
        .notes()
        .map((n) => n.commitment)
        .sort(),
    );
  }, 120_000);
});
