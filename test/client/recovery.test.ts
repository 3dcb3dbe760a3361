// Recovery from the spending key alone — a new wallet file and one sync — against a real pool on
// both stores (SQLite, and a throwaway PostgreSQL): the product owner's three wallets with the
// payer's twelve deposit tickets shielded out of order and forty payments among them (twins: the
// wallet refuses the over-issuing that would break recovery, and a restore whose bound is too small
// for the order used loses the out-of-order deposits and every note descending from them);
// fast-check over shielding orders, interleavings of payments and receipts, and restore points;
// a payment still pending when the wallet is restored; a restored wallet's own tickets.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  type DepositTicket,
  MemoryWalletStore,
  type StoredNote,
  TooManyOpenTicketsError,
  Wallet,
  WalletBehindError,
  WalletError,
} from '../../src/client/index.js';
import {
  depositRhoOf,
  deriveNote,
  loadCore,
  type PrivStarkCore,
  randomDigest,
} from '../../src/core/index.js';
import type { Ledger } from '../../src/ledger/index.js';
import {
  decodeProof,
  paymentContext,
  type PaymentRequirements,
  type PrivStarkPayload,
  publicInputs,
} from '../../src/scheme/index.js';
import { startTestPostgres, type TestPostgres } from '../../testkit/postgres.js';
import { type Devnet, startDevnet } from './helpers/devnet.js';

let core: PrivStarkCore;
let dir: string;
let walletCount = 0;
const walletPath = () => join(dir, `w${walletCount++}.wallet`);

beforeAll(async () => {
  core = await loadCore();
  dir = mkdtempSync(join(tmpdir(), 'priv-stark-recovery-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function requirements(
  payTo: string,
  amount: bigint,
  resourceId = 'GET /paid',
): PaymentRequirements {
  return {
    scheme: 'priv-stark/v1',
    network: 'shielded:devnet',
    asset: 'dUSD',
    amount: amount.toString(),
    payTo,
    maxTimeoutSeconds: 300,
    extra: { resourceId },
  };
}

/** Settles a payload straight through the pool (what the facilitator's settle ends in). */
async function settle(pool: Ledger, req: PaymentRequirements, payload: PrivStarkPayload) {
  const proof = decodeProof(payload.proof ?? '');
  if (!proof.ok) throw new Error('bad proof encoding');
  const payment = paymentContext(req, payload.expiry);
  return pool.settle({
    proof: proof.bytes,
    publicInputs: publicInputs(payload, core.contextDigest(payment)),
    payment,
  });
}

/** Every note of a wallet as a restore must find it: value, place, origin, counter, spent by. */
function notesOf(wallet: Wallet) {
  return wallet
    .allNotes()
    .map((n: StoredNote) => ({
      commitment: n.commitment,
      value: n.value,
      index: n.index,
      origin: n.origin,
      counter: n.counter,
      nullifier: n.nullifier,
      spentBy: n.spent?.settlementId ?? null,
    }))
    .sort((a, b) => a.index - b.index);
}

/**
 * A restored wallet equals the live one: the same notes, values and spent flags, the same
 * balance — except that the live wallet's unresolved payments lock notes the restored one cannot
 * know are promised (they count as spendable there).
 */
function expectSameWallet(restored: Wallet, live: Wallet): void {
  expect(notesOf(restored)).toEqual(notesOf(live));
  const r = restored.balance();
  const l = live.balance();
  expect(r.total).toBe(l.total);
  expect(r.unconfirmed).toBe(l.unconfirmed);
  expect(r.pending).toBe(0n);
  expect(r.spendable).toBe(l.spendable + l.pending);
}

describe.each(['sqlite', 'postgres'] as const)('recovery from the key alone (%s)', (kind) => {
  let postgres: TestPostgres | undefined;
  let devnet: Devnet | undefined;

  beforeAll(async () => {
    if (kind === 'postgres') postgres = await startTestPostgres();
  });
  afterEach(async () => {
    await devnet?.close();
    devnet = undefined;
  });
  afterAll(async () => {
    await postgres?.stop();
  });

  async function start(): Promise<Devnet> {
    devnet = await startDevnet(core, {
      checkpointIntervalMs: 600_000,
      ...(postgres ? { databaseUrl: await postgres.newDatabase() } : {}),
    });
    return devnet;
  }

  /** A new wallet file of `sk` (or a new key), synced once when restoring. */
  async function wallet(
    net: Devnet,
    options: { sk?: `0x${string}`; recoveryBound?: number } = {},
  ): Promise<Wallet> {
    const w = await Wallet.create({ core, pool: net.nodeUrl, path: walletPath(), ...options });
    if (options.sk) await w.sync();
    return w;
  }

  const shield = (net: Devnet, ticket: DepositTicket) =>
    net.operator.deposit(ticket.amount, ticket.pre);

  /** `from` pays `to`; the pool settles it and publishes a checkpoint; both sync. */
  async function pay(net: Devnet, from: Wallet, to: Wallet, amount: bigint): Promise<void> {
    const req = requirements(to.address, amount);
    const settled = await settle(net.pool, req, await from.createPayment(req));
    expect(settled.ok).toBe(true);
    await net.checkpoint();
    await from.sync();
    await to.sync();
  }

  it("finds every note of the issue's three wallets: twelve tickets shielded out of order, forty payments among them", async () => {
    const net = await start();
    const payer = await wallet(net);
    const a = await wallet(net);
    const b = await wallet(net);
    const amounts = [
      '80000',
      '80000',
      '80000',
      '80000',
      '120000',
      '150000',
      '60000',
      '90000',
      '100000',
      '50000',
      '70000',
      '42000',
    ];
    const tickets: DepositTicket[] = [];
    for (const amount of amounts.slice(0, 8)) tickets.push(await payer.depositTicket(amount));
    // The over-issuing the order needed (twelve tickets out at once) is refused: a ninth
    // open ticket could be shielded before any other and a restore would never find it.
    const refused = await payer.depositTicket('1000').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TooManyOpenTicketsError);
    expect(refused).toMatchObject({
      code: 'too_many_open_tickets',
      bound: 8,
      open: [0, 1, 2, 3, 4, 5, 6, 7],
    });
    expect((refused as Error).message).not.toContain('80000');
    // An open ticket is handed out again unchanged.
    expect(await payer.reissueTicket(5)).toEqual(tickets[5]);
    // The operator shields the last four first; once the payer has seen them, four more tickets.
    for (const c of [7, 6, 5, 4]) await shield(net, tickets[c]!);
    await net.checkpoint();
    await payer.sync();
    for (const amount of amounts.slice(8)) tickets.push(await payer.depositTicket(amount));
    expect(payer.openTickets().map((t) => t.counter)).toEqual([0, 1, 2, 3, 8, 9, 10, 11]);
    for (const c of [11, 3, 10, 2, 9, 1, 8, 0]) await shield(net, tickets[c]!);
    for (const [w, list] of [
      [a, ['50000', '30000']],
      [b, ['40000', '25000']],
    ] as const)
      for (const amount of list) await shield(net, await w.depositTicket(amount));
    await net.checkpoint();
    for (const w of [payer, a, b]) await w.sync();
    expect(payer.openTickets()).toEqual([]);
    expect(payer.balance().total).toBe(1_002_000n);

    // Forty payments: payer → A, A → B with what it received, B → the payer or A, A → the payer
    // with its change.
    for (let round = 0n; round < 10n; round++) {
      await pay(net, payer, a, 12_000n + round * 100n);
      await pay(net, a, b, 7_000n + round * 50n);
      await pay(net, b, round % 2n === 0n ? payer : a, 3_000n + round * 10n);
      await pay(net, a, payer, 2_000n + round * 10n);
    }
    const total = [payer, a, b].reduce((sum, w) => sum + w.balance().total, 0n);
    expect(total).toBe(1_002_000n + 80_000n + 65_000n);
    expect(payer.allNotes().filter((n) => n.origin === 'change').length).toBe(10);

    for (const live of [payer, a, b])
      expectSameWallet(await wallet(net, { sk: live.spendingKey }), live);

    // Twin: a restore whose bound is too small for the order used (4: tickets 4–7 were shielded
    // before any of 0–3) misses those deposits, then 8–11, and every note descending from them.
    const short = await wallet(net, { sk: payer.spendingKey, recoveryBound: 4 });
    const found = short.allNotes().filter((n) => n.origin === 'deposit');
    expect(found.map((n) => n.counter).sort()).toEqual([0, 1, 2, 3]);
    expect(short.balance().total).toBeLessThan(payer.balance().total);
    const live = new Set(payer.allNotes().map((n) => n.commitment));
    expect(short.allNotes().every((n) => live.has(n.commitment))).toBe(true);
  }, 900_000);

  it('restores to the live wallet whatever the shielding order, payments, receipts and restore point (fast-check)', async () => {
    const net = await start();
    // A friend with one large note pays the wallet under test; payments go to a sink.
    const friend = await wallet(net);
    await shield(net, await friend.depositTicket('100000000'));
    await net.checkpoint();
    await friend.sync();
    const sink = (await wallet(net)).address;

    type Step =
      | { kind: 'issue'; amount: number }
      | { kind: 'shield'; pick: 'newest' | 'oldest' | number }
      | { kind: 'sync' }
      | { kind: 'pay'; amount: number; now: boolean }
      | { kind: 'receive'; amount: number }
      | { kind: 'restore' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('issue' as const),
          amount: fc.integer({ min: 1000, max: 90_000 }),
        }),
      },
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('shield' as const),
          // Newest first is the order that needs the whole window.
          pick: fc.oneof(
            { weight: 3, arbitrary: fc.constant('newest' as const) },
            { weight: 1, arbitrary: fc.constant('oldest' as const) },
            { weight: 2, arbitrary: fc.nat() },
          ),
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('sync' as const) }) },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('pay' as const),
          amount: fc.integer({ min: 100, max: 20_000 }),
          now: fc.boolean(),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('receive' as const),
          amount: fc.integer({ min: 100, max: 50_000 }),
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('restore' as const) }) },
    );
    const plan = fc.record({
      bound: fc.constantFrom(2, 3, 8),
      steps: fc.array(step, { minLength: 8, maxLength: 24 }),
      // The order the operator shields what is still out at the end.
      rest: fc.array(fc.nat(), { maxLength: 12 }),
    });

    await fc.assert(
      fc.asyncProperty(plan, async ({ bound, steps, rest }) => {
        const live = await wallet(net, { recoveryBound: bound });
        const out: DepositTicket[] = []; // handed to the operator, not shielded yet
        const late: { req: PaymentRequirements; payload: PrivStarkPayload }[] = [];
        const restored: Wallet[] = [];
        let proofs = 0;
        const restoreAndCompare = async () => {
          await net.checkpoint();
          await live.sync();
          const r = await wallet(net, { sk: live.spendingKey, recoveryBound: bound });
          expectSameWallet(r, live);
          restored.push(r);
        };
        for (const s of steps) {
          switch (s.kind) {
            case 'issue': {
              const atBound = live.openTickets().length >= bound;
              const issued = await live.depositTicket(String(s.amount)).catch((e: unknown) => e);
              if (atBound) expect(issued).toBeInstanceOf(TooManyOpenTicketsError);
              else out.push(issued as DepositTicket);
              break;
            }
            case 'shield': {
              if (out.length === 0) break;
              const at =
                s.pick === 'newest'
                  ? out.length - 1
                  : s.pick === 'oldest'
                    ? 0
                    : s.pick % out.length;
              await shield(net, out.splice(at, 1)[0]!);
              break;
            }
            case 'sync':
              await net.checkpoint();
              await live.sync();
              break;
            case 'pay': {
              if (proofs >= 3) break;
              await net.checkpoint();
              await live.sync();
              const req = requirements(sink, BigInt(s.amount), `GET /r${proofs}`);
              const payload = await live.createPayment(req).catch(() => null);
              if (!payload) break; // no note covers it
              proofs++;
              if (s.now) expect((await settle(net.pool, req, payload)).ok).toBe(true);
              else late.push({ req, payload }); // pending across restore points
              break;
            }
            case 'receive': {
              if (proofs >= 3) break;
              proofs++;
              await net.checkpoint();
              await friend.sync();
              const req = requirements(live.address, BigInt(s.amount), `GET /f${proofs}`);
              expect((await settle(net.pool, req, await friend.createPayment(req))).ok).toBe(true);
              break;
            }
            case 'restore':
              await restoreAndCompare();
              break;
          }
        }
        // The operator shields what is still out (in the plan's order), the merchants settle late.
        for (const pick of rest)
          if (out.length > 0) await shield(net, out.splice(pick % out.length, 1)[0]!);
        while (out.length > 0) await shield(net, out.shift()!);
        for (const { req, payload } of late)
          expect((await settle(net.pool, req, payload)).ok).toBe(true);
        await restoreAndCompare();
        expect(live.openTickets()).toEqual([]);
        expect(live.payments().every((p) => p.status === 'settled')).toBe(true);
        // Wallets restored earlier kept watching: one more sync and they equal the live one too.
        for (const r of restored) {
          await r.sync();
          expectSameWallet(r, live);
          expect(r.balance()).toEqual(live.balance());
        }
      }),
      { numRuns: 12, endOnFailure: true },
    );
  }, 900_000);

  it('a payment pending when the wallet is restored: the restore cannot know it, and nothing is lost either way', async () => {
    const net = await start();
    const live = await wallet(net);
    const merchant = await wallet(net);
    await shield(net, await live.depositTicket('50000'));
    await net.checkpoint();
    await live.sync();
    const req = requirements(merchant.address, 20_000n);
    const pending = await live.createPayment(req);
    expect(live.balance()).toMatchObject({ pending: 50_000n, spendable: 0n });

    // Restored now: the note is unspent and, as far as the log says, spendable.
    const restored = await wallet(net, { sk: live.spendingKey });
    expectSameWallet(restored, live);
    expect(restored.balance()).toMatchObject({ spendable: 50_000n, pending: 0n });

    // The merchant settles the payment the lost wallet made: the restored wallet sees the note
    // spent and finds its change.
    expect((await settle(net.pool, req, pending)).ok).toBe(true);
    await net.checkpoint();
    for (const w of [live, restored, merchant]) await w.sync();
    expect(live.payments()[0]!.status).toBe('settled');
    expectSameWallet(restored, live);
    expect(restored.balance()).toEqual(live.balance());
    expect(restored.balance().total).toBe(30_000n);

    // The other way: the restored wallet spends the note first; the lost wallet's payment is then
    // refused by the pool (the nullifier is spent once), and both copies agree on what is left.
    const again = await wallet(net);
    await shield(net, await live.depositTicket('9000'));
    await net.checkpoint();
    for (const w of [live, restored]) await w.sync();
    const stale = await live.createPayment(requirements(again.address, 1_000n));
    const first = await restored.createPayment(requirements(again.address, 4_000n, 'GET /first'));
    expect(first.nullifier).toBe(stale.nullifier); // the same 9000 note
    expect(
      (await settle(net.pool, requirements(again.address, 4_000n, 'GET /first'), first)).ok,
    ).toBe(true);
    expect(await settle(net.pool, requirements(again.address, 1_000n), stale)).toMatchObject({
      ok: false,
    });
    await net.checkpoint();
    for (const w of [live, restored, again]) await w.sync();
    expect(live.payments().at(-1)!.status).toBe('expired');
    expect(again.balance().total).toBe(4_000n);
    expect(live.balance()).toEqual(restored.balance());
    expect(notesOf(live)).toEqual(notesOf(restored));
  }, 300_000);

  it("a restored wallet's own tickets: only after its first sync, never past the bound, and a counter the lost copy also handed out is found twice", async () => {
    const net = await start();
    const lost = await wallet(net);
    const t0 = await lost.depositTicket('1000');
    const t1 = await lost.depositTicket('2000');
    const t2 = await lost.depositTicket('3000');
    await shield(net, t0);
    await net.checkpoint();
    await lost.sync();
    // The wallet is lost with tickets 1 and 2 still with the operator.

    const restored = await Wallet.create({
      core,
      pool: net.nodeUrl,
      path: walletPath(),
      sk: lost.spendingKey,
    });
    await expect(restored.depositTicket('5000')).rejects.toBeInstanceOf(WalletBehindError);
    await restored.sync();
    expect(restored.balance().total).toBe(1000n);
    // It reuses the lowest counter it has not seen used (1: the lost copy's open ticket).
    const r1 = await restored.depositTicket('5000');
    expect(r1.counter).toBe(1);
    expect(r1.pre).toBe(t1.pre);
    await expect(restored.reissueTicket(2)).rejects.toBeInstanceOf(WalletError);
    // Its own ticket first, then the lost copy's ticket for the same counter, then counter 2 —
    // a checkpoint each, so the public log lists them in that order (within one checkpoint it
    // lists deposits by commitment).
    for (const ticket of [r1, t1, t2]) {
      await shield(net, ticket);
      await net.checkpoint();
    }
    await restored.sync();
    expect(restored.openTickets()).toEqual([]);
    expect(restored.balance().total).toBe(1000n + 5000n + 2000n + 3000n);
    expect(
      restored
        .allNotes()
        .map((n) => [n.counter, n.value])
        .sort(),
    ).toEqual([
      [0, '1000'],
      [1, '2000'],
      [1, '5000'],
      [2, '3000'],
    ]);
    // The limit docs/client.md states: a restore from the key alone finds the first deposit of
    // each counter — the lost copy's second one for counter 1 only its issuer finds.
    const again = await wallet(net, { sk: lost.spendingKey });
    expect(again.balance().total).toBe(1000n + 5000n + 3000n);

    // Within the bound: the restored wallet watches and reuses only counters below found + N.
    const bounded = await wallet(net, { sk: lost.spendingKey, recoveryBound: 2 });
    const b1 = await bounded.depositTicket('10');
    const b2 = await bounded.depositTicket('20');
    expect([b1.counter, b2.counter]).toEqual([3, 4]);
    await expect(bounded.depositTicket('30')).rejects.toBeInstanceOf(TooManyOpenTicketsError);
  }, 300_000);
});

describe('a wallet file from before the wallet kept its tickets', () => {
  it('counts the counters it issued and never saw shielded as open tickets of unknown amount', async () => {
    const sk = randomDigest();
    const found = deriveNote(core, { sk, value: '700', rho: depositRhoOf(core, sk, 1) });
    const store = new MemoryWalletStore();
    // Three tickets handed out, the second one found: no `tickets`, `depositBound`, `inheritedBelow`.
    await store.create({
      version: 1,
      network: 'shielded:devnet',
      asset: 'dUSD',
      sk,
      depositCounter: 3,
      depositGap: 0,
      notes: [
        {
          commitment: found.commitment,
          value: '700',
          rho: found.rho,
          index: 0,
          nullifier: found.nullifier,
          origin: 'deposit',
          counter: 1,
        },
      ],
      pending: [],
      eventCursor: 1,
      checkpointCursor: 0,
      checkpoint: null,
      poolTime: 0,
      syncedAt: 0,
    });
    const wallet = await Wallet.open({ core, pool: 'http://127.0.0.1:9', store });
    expect(wallet.openTickets()).toMatchObject([
      { counter: 0, amount: null, commitment: null },
      { counter: 2, amount: null, commitment: null },
    ]);
    await expect(wallet.reissueTicket(0)).rejects.toThrow(/give the amount/);
    expect(await wallet.reissueTicket(0, '500')).toMatchObject({ counter: 0, amount: '500' });
    expect((await store.load()).state.tickets).toContainEqual({ counter: 0, amount: '500' });
    await expect(wallet.reissueTicket(0, '501')).rejects.toThrow(/another amount/);
    await expect(wallet.reissueTicket(1)).rejects.toBeInstanceOf(WalletError);
    // The next counter is the next one it never handed out, within the bound.
    expect((await wallet.depositTicket('900')).counter).toBe(3);
  });
});
