// Exits and their payout contract, over real loopback listeners on both stores (a SQLite file and
// a throwaway PostgreSQL 15): a wallet exits to a checksummed CAIP-10 account and keeps its change;
// the pool records a withdrawal that the operator's payout process reads by cursor and pays once
// (paying durably first, then paid), or fails — and the exit's proven refund note comes back to the
// owner's key (a restored wallet finds it). The binding of destination and amount (twins refused,
// the original applied), the destination rules, the operator token, steps out of order. Then the
// invariant after random sequences (fast-check) of deposits, payments, merges, splits and exits
// with paid or failed payouts: deposited − withdrawn + refunded = the value of all unspent notes,
// and /state's totals agree with the log.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  InsufficientFundsError,
  UnpayableRequirementsError,
  Wallet,
} from '../../src/client/index.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { ledgerProblems } from '../ledger/helpers/invariants.js';
import { STORE_KINDS, storeHarness } from '../ledger/helpers/stores.js';
import {
  call,
  postTransition,
  TOKEN,
  transitionStack,
  unspentTotal,
} from './helpers/transition-stack.js';

/** EIP-55's own test vectors (checksummed). */
const ALICE = 'eip155:8453:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BOB = 'eip155:8453:0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

const operator = { authorization: `Bearer ${TOKEN}` };

describe.each(kinds)('exits and payouts on the %s store', (kind) => {
  const { startNode, fundedWallet, settle } = transitionStack(storeHarness(kind));

  it('exits to a checksummed account, keeps the change, and the payout is made once', async () => {
    const node = await startNode();
    const { wallet } = await fundedWallet(node, [500_000n]);
    const receipt = await wallet.exit(ALICE, 120_000n);
    await settle(node, [wallet]);
    expect(
      wallet
        .notes()
        .filter((n) => !n.spent)
        .map((n) => n.value),
    ).toEqual(['380000']);
    const { events } = await node.operator.events(0);
    const withdrawal = events.find((e) => e.kind === 'withdrawal');
    expect(withdrawal).toMatchObject({ amount: '120000', destination: ALICE });
    // The payout process's feed, by cursor.
    const feed = await node.operator.withdrawals(0);
    expect(feed.withdrawals).toEqual([
      expect.objectContaining({
        withdrawalId: receipt.transaction,
        amount: '120000',
        status: null,
      }),
    ]);
    expect((await node.operator.withdrawals(feed.next)).withdrawals).toEqual([]);
    // paying (twice: idempotent), then paid (twice), then nothing else.
    const id = receipt.transaction;
    expect(await node.operator.payout(id, 'paying')).toMatchObject({ status: 'paying' });
    expect(await node.operator.payout(id, 'paying')).toMatchObject({ status: 'paying' });
    expect(await node.operator.payout(id, 'paid')).toMatchObject({ status: 'paid' });
    expect(await node.operator.payout(id, 'paid')).toMatchObject({ status: 'paid' });
    const late = await call(node.url, `/withdrawals/${id}/failed`, {
      method: 'POST',
      headers: operator,
    });
    expect(late.status).toBe(409);
    expect(late.json).toMatchObject({ error: 'payout_conflict', status: 'paid' });
    const state = await call(node.url, '/state');
    expect(state.json).toMatchObject({
      depositTotal: '500000',
      withdrawnTotal: '120000',
      paidOutTotal: '120000',
      refundedTotal: '0',
    });
    expect(await ledgerProblems(node.core, node.store)).toEqual([]);
  });

  it('refunds a failed payout with the proven refund note, found from the key', async () => {
    const node = await startNode();
    const { wallet } = await fundedWallet(node, [500_000n]);
    const { transaction: id } = await wallet.exit(BOB, 500_000n);
    await settle(node, [wallet]);
    expect(wallet.notes().filter((n) => !n.spent)).toEqual([]);
    // paid or failed only after paying.
    const early = await call(node.url, `/withdrawals/${id}/failed`, {
      method: 'POST',
      headers: operator,
    });
    expect(early.json).toMatchObject({ error: 'payout_conflict', status: null });
    await node.operator.payout(id, 'paying');
    const failed = await node.operator.payout(id, 'failed');
    expect(failed.refundIndex).toBe(3);
    // Repeated: answered the same, no second refund.
    await node.operator.payout(id, 'failed');
    await settle(node, [wallet]);
    expect(
      wallet
        .notes()
        .filter((n) => !n.spent)
        .map((n) => [n.value, n.origin]),
    ).toEqual([['500000', 'refund']]);
    const restored = await Wallet.create({
      core: node.core,
      pool: node.url,
      sk: wallet.spendingKey,
    });
    await restored.sync();
    expect(
      restored
        .notes()
        .filter((n) => !n.spent)
        .map((n) => n.value),
    ).toEqual(['500000']);
    // The refund is spendable: it pays again.
    await expect(restored.exit(ALICE, 499_000n)).resolves.toMatchObject({ outputIndexes: [4, 5] });
    // The public head moves with a checkpoint.
    await node.ledger.checkpoint();
    const state = (await call(node.url, '/state')).json;
    expect(state).toMatchObject({
      withdrawnTotal: '999000',
      refundedTotal: '500000',
      paidOutTotal: '0',
    });
    expect(await ledgerProblems(node.core, node.store)).toEqual([]);
  });

  it('binds destination and amount; refuses bad destinations; its twin applies', async () => {
    const node = await startNode();
    const { wallet, capture } = await fundedWallet(node, [500_000n]);
    await expect(wallet.exit(ALICE.toLowerCase(), 1_000n)).rejects.toBeInstanceOf(
      UnpayableRequirementsError,
    );
    await expect(wallet.exit('cosmos:hub:abc', 1_000n)).rejects.toBeInstanceOf(
      UnpayableRequirementsError,
    );
    await expect(wallet.exit(ALICE, 499_500n)).rejects.toThrow(); // change below the minimum
    capture.hold = true;
    await expect(wallet.exit(ALICE, 100_000n)).rejects.toThrow();
    const body = capture.bodies.at(-1)!;
    const post = (b: unknown) => postTransition(node.url, b);
    expect((await post({ ...body, destination: BOB })).json.error).toBe('invalid_priv_stark_proof');
    expect((await post({ ...body, exit: '100001' })).json.error).toBe('invalid_priv_stark_proof');
    expect((await post({ ...body, destination: ALICE.toLowerCase() })).json.error).toBe(
      'invalid_destination',
    );
    const { destination: _, ...noDestination } = body;
    expect((await post(noDestination)).json.error).toBe('invalid_payload');
    expect((await post({ ...body, exit: '0' })).json.error).toBe('invalid_payload');
    expect((await node.store.state()).withdrawnTotal).toBe('0');
    expect((await post(body)).status).toBe(200);
    expect((await node.store.state()).withdrawnTotal).toBe('100000');
  });

  it('keeps the payout routes for the operator and answers unknown ids; no attester on a devnet pool', async () => {
    const node = await startNode();
    expect((await call(node.url, '/withdrawals')).status).toBe(401);
    const id = `0x${'ab'.repeat(32)}`;
    expect((await call(node.url, `/withdrawals/${id}/paying`, { method: 'POST' })).status).toBe(
      401,
    );
    const unknown = await call(node.url, `/withdrawals/${id}/paying`, {
      method: 'POST',
      headers: operator,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toBe('unknown_withdrawal');
    const zero = await call(node.url, '/withdrawals?limit=0', { headers: operator });
    expect(zero.status).toBe(400);
    expect(zero.json.error).toBe('invalid_request');
    expect((await call(node.url, '/withdrawals?limit=5', { headers: operator })).status).toBe(200);
    const bad = await call(node.url, `/withdrawals/${id}/sent`, {
      method: 'POST',
      headers: operator,
    });
    expect(bad.status).toBe(400);
    // The devnet pool posts no attestations: the operator's call is refused, and an anonymous one
    // is unauthorized before that (test/chain/attester.test.ts posts them on a chain).
    expect((await call(node.url, '/attest', { method: 'POST' })).status).toBe(401);
    const attest = await call(node.url, '/attest', { method: 'POST', headers: operator });
    expect(attest.status).toBe(409);
    expect(attest.json.error).toBe('no_attester');
  });

  it('conserves value over random deposits, payments, merges, splits and exits (fast-check)', async () => {
    type Op =
      | { kind: 'deposit'; who: number; amount: number }
      | { kind: 'pay'; from: number; to: number; amount: number }
      | { kind: 'merge'; who: number }
      | { kind: 'split'; who: number; part: number }
      | { kind: 'exit'; who: number; amount: number; payout: 'paid' | 'failed' | 'none' };
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('deposit' as const),
        who: fc.nat(1),
        amount: fc.integer({ min: 2, max: 40 }),
      }),
      fc.record({
        kind: fc.constant('pay' as const),
        from: fc.nat(1),
        to: fc.nat(1),
        amount: fc.integer({ min: 1, max: 20 }),
      }),
      fc.record({ kind: fc.constant('merge' as const), who: fc.nat(1) }),
      fc.record({
        kind: fc.constant('split' as const),
        who: fc.nat(1),
        part: fc.integer({ min: 1, max: 20 }),
      }),
      fc.record({
        kind: fc.constant('exit' as const),
        who: fc.nat(1),
        amount: fc.integer({ min: 1, max: 20 }),
        payout: fc.constantFrom('paid' as const, 'failed' as const, 'none' as const),
      }),
    );
    const applied = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(op as fc.Arbitrary<Op>, { minLength: 3, maxLength: 6 }),
        async (ops) => {
          const node = await startNode();
          const wallets = [
            (await fundedWallet(node, [100_000n])).wallet,
            (await fundedWallet(node, [50_000n])).wallet,
          ];
          const unit = 1_000n;
          for (const o of ops) {
            try {
              if (o.kind === 'deposit') {
                const ticket = await wallets[o.who]!.depositTicket(
                  (BigInt(o.amount) * unit).toString(),
                );
                await node.operator.deposit(ticket.amount, ticket.pre);
              } else if (o.kind === 'pay') {
                await wallets[o.from]!.transfer(wallets[o.to]!.address, BigInt(o.amount) * unit);
              } else if (o.kind === 'merge') {
                await wallets[o.who]!.mergeNotes();
              } else if (o.kind === 'split') {
                const note = wallets[o.who]!.notes().find(
                  (n) => !n.spent && BigInt(n.value) > 2n * unit,
                );
                if (note)
                  await wallets[o.who]!.splitPrivately(note.commitment, BigInt(o.part) * unit);
              } else {
                const { transaction } = await wallets[o.who]!.exit(ALICE, BigInt(o.amount) * unit);
                if (o.payout !== 'none') {
                  await node.operator.payout(transaction, 'paying');
                  await node.operator.payout(transaction, o.payout);
                }
              }
              applied.set(o.kind, (applied.get(o.kind) ?? 0) + 1);
            } catch (error) {
              // A wallet without a fitting note refuses before anything leaves: nothing applied.
              if (
                !(error instanceof InsufficientFundsError) &&
                !(error instanceof UnpayableRequirementsError)
              )
                throw error;
            }
            await settle(node, wallets);
          }
          const state = await node.store.state();
          const expected =
            BigInt(state.depositTotal) - BigInt(state.withdrawnTotal) + BigInt(state.refundedTotal);
          expect(unspentTotal(wallets)).toBe(expected);
          // The log's totals agree with the head's.
          const { events } = await node.operator.events(0, 1000);
          let withdrawn = 0n;
          let refunded = 0n;
          for (const e of events) {
            if (e.kind === 'withdrawal') withdrawn += BigInt(e.amount);
            if (e.kind === 'refund') refunded += BigInt(e.amount);
          }
          expect([withdrawn, refunded]).toEqual([
            BigInt(state.withdrawnTotal),
            BigInt(state.refundedTotal),
          ]);
          expect(await ledgerProblems(node.core, node.store)).toEqual([]);
        },
      ),
      { numRuns: 4, seed: 17 },
    );
    // The runs did move value: each kind of op applied at least once (no vacuous pass).
    expect([...applied.keys()].sort()).toEqual(['deposit', 'exit', 'merge', 'pay', 'split']);
  }, 240_000);
});
