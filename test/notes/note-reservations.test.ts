// One reservation point for a wallet's notes (src/client/note-reservations.ts), on a real pool node:
// a note chosen by a transfer under way is refused to a private split started right after it, and a
// note being split is refused to a payment (which waits, a WalletBehindError, instead of reporting
// insufficient funds) — the twin of the race where both spent it and the pool answered "already
// spent". Then the ready-notes keeper's rounds, fired by injected timers, run beside payments
// through payingFetch: every payment settles, nothing is spent twice, the value adds up.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  payingFetch,
  ReadyNotesKeeper,
  type Wallet,
  WalletBehindError,
} from '../../src/client/index.js';
import { NoteReservations } from '../../src/client/note-reservations.js';
import { loadCore } from '../../src/core/index.js';
import {
  expressMerchant,
  type Merchant,
  PRICE_ATOMIC,
  type Stack,
  startStack,
} from '../../testkit/stack.js';

const VALUE = 100_000n;

describe('NoteReservations', () => {
  it('reserves a note for one operation only, all or none, and gives it back on release', () => {
    const r = new NoteReservations();
    r.reserve(['a'], 'transition', new Set());
    expect(() => r.reserve(['a'], 'payment', new Set())).toThrow(/reserved/);
    expect(() => r.reserve(['b', 'a'], 'payment', new Set())).toThrow(/reserved/);
    expect(r.commitments()).toEqual(new Set(['a'])); // 'b' was not taken either
    expect(() => r.reserve(['c'], 'payment', new Set(['c']))).toThrow(/reserved/);
    expect(() => r.reserve(['d', 'd'], 'transition', new Set())).toThrow(/reserved/);
    r.release(['a']);
    r.reserve(['a'], 'payment', new Set());
    expect(r.heldFor('payment')).toEqual(new Set(['a']));
    expect(r.heldFor('transition')).toEqual(new Set());
  });
});

describe('payments and the ready-notes keeper on one wallet', () => {
  let stack: Stack;
  let merchant: Merchant;
  let merchantWallet: Wallet;

  beforeAll(async () => {
    stack = await startStack(await loadCore());
    merchantWallet = await stack.wallet();
    merchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address);
  }, 120_000);
  afterAll(async () => {
    await merchant?.close();
    await stack?.close();
  });

  it('a note a transfer chose is refused to a split started beside it, and a note being split to a payment', async () => {
    const payer = await stack.wallet();
    await stack.fund(payer, (4n * VALUE).toString());
    const [only] = payer.notes();
    // Started in the same tick: the transfer chose the note before its first await.
    const transfer = payer.transfer(merchantWallet.address, PRICE_ATOMIC);
    const split = payer.splitPrivately(only!.commitment, VALUE);
    await expect(split).rejects.toMatchObject({ code: 'unpayable_requirements' });
    await transfer;
    await stack.settle(payer, merchantWallet);
    expect(payer.balance().total).toBe(4n * VALUE - PRICE_ATOMIC);

    // The change is the one note: a split takes it, and a transfer beside it waits.
    const [change] = payer.notes();
    const splitting = payer.splitPrivately(change!.commitment, VALUE);
    const waiting = payer.transfer(merchantWallet.address, PRICE_ATOMIC);
    await expect(waiting).rejects.toBeInstanceOf(WalletBehindError);
    await expect(waiting).rejects.toMatchObject({ code: 'notes_in_transition' });
    await splitting;
    await stack.settle(payer);
    expect(
      payer
        .notes()
        .map((n) => BigInt(n.value))
        .sort(),
    ).toEqual([VALUE, 4n * VALUE - PRICE_ATOMIC - VALUE]);
  }, 120_000);

  it('keeper rounds fired beside payments: every payment settles, no note is spent twice', async () => {
    const payer = await stack.wallet();
    await stack.fund(payer, (4n * VALUE).toString());
    const due: Array<() => void> = [];
    const timers = { set: (run: () => void) => due.push(run), clear: () => undefined };
    const errors: unknown[] = [];
    const keeper = new ReadyNotesKeeper(
      payer,
      { count: 4, value: VALUE },
      { timers, random: () => 0.5, onError: (e) => errors.push(e) },
    ).start();
    // A round: fire the timer, and it is over once the keeper schedules the next.
    const round = async () => {
      due.shift()!();
      while (due.length === 0) await new Promise((r) => setTimeout(r, 5));
    };
    const pay = payingFetch(payer);
    const payOnce = async () => {
      for (;;) {
        try {
          return await pay(`${merchant.url}/weather`);
        } catch (error) {
          // The existing rule: a wallet whose notes are under way waits and syncs; it never
          // answers insufficient funds here (four payments of the price from four ready values).
          // The stock wrapper wraps the wallet's error (its cause, or its message).
          const cause = (error as { cause?: unknown }).cause;
          const waits =
            error instanceof WalletBehindError ||
            cause instanceof WalletBehindError ||
            /sync again|not in a checkpoint|younger than/.test(String(error));
          if (!waits) throw error;
          await new Promise((r) => setTimeout(r, 20));
          await payer.sync();
        }
      }
    };
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const [, response] = await Promise.all([round(), payOnce()]);
        statuses.push(response.status);
      }
    } finally {
      await keeper.stop();
    }
    expect(statuses).toEqual([200, 200, 200]);
    expect(errors).toEqual([]);
    await stack.settle(payer, merchantWallet);
    expect(payer.balance().total).toBe(4n * VALUE - 3n * PRICE_ATOMIC);
    expect(payer.payments().filter((p) => p.status === 'pending')).toEqual([]);
  }, 180_000);
});
