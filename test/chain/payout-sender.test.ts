// The payout sender on the shared node (automining; nothing here rewrites history): an exit paid
// once through the escrow, `paying` durable before the signature, the signed bytes stored before
// the broadcast, balances moved on chain, nothing signed again once paid; exits the rail can never
// pay refused before anything is signed (another chain, another namespace, the escrow, the token);
// a blacklisted destination failed with its refund while a paused token or escrow waits and pays
// once unpaused; gas below the minimum and fees above the ceiling stop the signing and say so.

import { type Hex, parseEther } from 'viem';
import { describe, expect, it } from 'vitest';

import { caip10, paidEvents, seedWithdrawal, tokenBalance } from '../../testkit/payouts.js';
import { freshAddress, payoutHarness } from './payout-harness.js';
import { escrowCall, sharedChain, tokenCall } from './shared.js';

const { stack } = payoutHarness(sharedChain);

async function statusOf(s: Awaited<ReturnType<typeof stack>>, id: Hex) {
  const list = await s.ledger.withdrawals(0, 100);
  return list.find((w) => w.withdrawalId === id)?.status;
}

describe('the payout sender on a real chain', () => {
  it('pays an exit once: paying first, the signed bytes stored before they are sent', async () => {
    const chain = sharedChain();
    const s = await stack();
    const to = freshAddress();
    const id = await seedWithdrawal(s.store, caip10(chain, to), 1_250_000n);
    const nonceBefore = await chain.public.getTransactionCount({ address: s.f.payer.address });

    const first = await s.sender.pass();
    expect(first).toEqual({
      role: 'active',
      decided: [],
      waiting: [{ withdrawalId: id, wait: 'in_flight' }],
    });
    expect(await statusOf(s, id)).toBe('paying');
    const [attempt, ...more] = await s.journal.attempts(s.rail.name, id);
    expect(more).toEqual([]);
    expect(attempt?.nonce).toBe(nonceBefore);
    expect(attempt?.transactions).toHaveLength(1);
    const stored = attempt!.transactions[0]!;
    // What the node mined is exactly the stored bytes.
    const mined = await chain.public.getTransaction({ hash: stored.hash as Hex });
    expect(mined.nonce).toBe(nonceBefore);

    const second = await s.sender.pass();
    expect(second.decided).toEqual([{ withdrawalId: id, status: 'paid' }]);
    expect(await statusOf(s, id)).toBe('paid');
    expect(await tokenBalance(chain, s.f.token, to)).toBe(1_250_000n);
    expect(await paidEvents(chain, s.f.escrow, id)).toEqual([
      { to, amount: 1_250_000n, transactionHash: stored.hash },
    ]);
    expect(await s.ledger.state()).toMatchObject({ paidOutTotal: '1250000', refundedTotal: '0' });

    // Nothing more is signed or sent for it; the cursor moved past it.
    expect(await s.sender.pass()).toEqual({ role: 'active', decided: [], waiting: [] });
    expect(await chain.public.getTransactionCount({ address: s.f.payer.address })).toBe(
      nonceBefore + 1,
    );
    expect((await s.journal.attempts(s.rail.name, id))[0]?.transactions).toHaveLength(1);
    expect(await s.journal.cursor(s.rail.name)).toBeGreaterThan(0);
    expect(s.sender.status()).toMatchObject({ role: 'active', paid: 1, failed: 0 });
  });

  it('pays several exits in one pass, one nonce each, oldest first', async () => {
    const chain = sharedChain();
    const s = await stack();
    const targets = [freshAddress(), freshAddress(), freshAddress()];
    const ids: Hex[] = [];
    for (const [i, to] of targets.entries())
      ids.push(await seedWithdrawal(s.store, caip10(chain, to), BigInt(1000 + i)));
    await s.sender.pass();
    const report = await s.sender.pass();
    expect(report.decided.map((d) => d.withdrawalId)).toEqual(ids);
    const nonces = [];
    for (const id of ids) nonces.push((await s.journal.attempts(s.rail.name, id))[0]?.nonce);
    expect(nonces).toEqual([nonces[0], nonces[0]! + 1, nonces[0]! + 2]);
    for (const [i, to] of targets.entries())
      expect(await tokenBalance(chain, s.f.token, to)).toBe(BigInt(1000 + i));
  });

  it('refuses, before anything is signed, an exit it can never pay: refunded at once', async () => {
    const chain = sharedChain();
    const s = await stack();
    const someone = freshAddress();
    const destinations = [
      `eip155:8453:${someone}`,
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
      caip10(chain, s.f.escrow),
      caip10(chain, s.f.token),
    ];
    const ids: Hex[] = [];
    for (const destination of destinations)
      ids.push(await seedWithdrawal(s.store, destination, 500n));
    const nonceBefore = await chain.public.getTransactionCount({ address: s.f.payer.address });
    const report = await s.sender.pass();
    expect(report.decided).toEqual(ids.map((withdrawalId) => ({ withdrawalId, status: 'failed' })));
    for (const id of ids) {
      expect(await statusOf(s, id)).toBe('failed');
      expect(await s.journal.attempts(s.rail.name, id)).toEqual([]);
    }
    expect(await chain.public.getTransactionCount({ address: s.f.payer.address })).toBe(
      nonceBefore,
    );
    expect(await s.ledger.state()).toMatchObject({ refundedTotal: '2000', paidOutTotal: '0' });
    // The twin: this chain's account is paid.
    expect(s.rail.refusal(caip10(chain, someone))).toBeNull();
    expect(s.rail.refusal(`eip155:${chain.chainId}:${someone.toLowerCase()}0`)).toBe(
      'unpayable_destination',
    );
  });

  it('fails a blacklisted destination with its refund; a paused token or escrow waits, then pays', async () => {
    const chain = sharedChain();
    const s = await stack();
    const listed = freshAddress();
    const waiting = freshAddress();
    await tokenCall(s.f, s.f.admin, 'blacklist', [listed]);
    await tokenCall(s.f, s.f.admin, 'pause');
    const failing = await seedWithdrawal(s.store, caip10(chain, listed), 700n);
    const paused = await seedWithdrawal(s.store, caip10(chain, waiting), 800n);
    const nonceBefore = await chain.public.getTransactionCount({ address: s.f.payer.address });

    // Paused: every payout reverts, so none is refused for its destination — both wait.
    const whilePaused = await s.sender.pass();
    expect(whilePaused.decided).toEqual([]);
    expect(whilePaused.waiting).toEqual([
      { withdrawalId: failing, wait: 'rail_refusing' },
      { withdrawalId: paused, wait: 'rail_refusing' },
    ]);
    await tokenCall(s.f, s.f.admin, 'unpause');
    await escrowCall(s.f, s.f.pauser, 'pause');
    expect((await s.sender.pass()).decided).toEqual([]);
    await escrowCall(s.f, s.f.pauser, 'unpause');
    expect(await chain.public.getTransactionCount({ address: s.f.payer.address })).toBe(
      nonceBefore,
    );

    // Unpaused: the blacklisted destination fails (nothing signed), the other is paid.
    const after = await s.sender.pass();
    expect(after.decided).toEqual([{ withdrawalId: failing, status: 'failed' }]);
    expect(await s.journal.attempts(s.rail.name, failing)).toEqual([]);
    expect((await s.sender.pass()).decided).toEqual([{ withdrawalId: paused, status: 'paid' }]);
    expect(await tokenBalance(chain, s.f.token, waiting)).toBe(800n);
    expect(await tokenBalance(chain, s.f.token, listed)).toBe(0n);
    expect(await s.ledger.state()).toMatchObject({ refundedTotal: '700', paidOutTotal: '800' });
  });

  it('stops signing below the minimum gas balance and says so; pays once funded', async () => {
    const chain = sharedChain();
    const s = await stack({ minGasBalance: parseEther('1') });
    await chain.test.setBalance({ address: s.f.payer.address, value: parseEther('0.5') });
    const to = freshAddress();
    const id = await seedWithdrawal(s.store, caip10(chain, to), 900n);
    expect((await s.sender.pass()).waiting).toEqual([{ withdrawalId: id, wait: 'gas_low' }]);
    expect(s.sender.status()).toMatchObject({
      waiting: { gas_low: 1 },
      rail: {
        gasLow: true,
        gasBalance: parseEther('0.5').toString(),
        minGasBalance: parseEther('1').toString(),
      },
    });
    expect(await s.journal.attempts(s.rail.name, id)).toEqual([]);
    await chain.test.setBalance({ address: s.f.payer.address, value: parseEther('2') });
    await s.sender.pass();
    let decided = (await s.sender.pass()).decided;
    // On the busy shared node the payment can need another block, or another pass, to be seen
    // final (a fresh-clone CI run saw none decided here); a few more, never a payment twice.
    for (let pass = 0; pass < 5 && decided.length === 0; pass++) {
      await chain.test.mine({ blocks: 1 });
      decided = (await s.sender.pass()).decided;
    }
    expect(decided).toEqual([{ withdrawalId: id, status: 'paid' }]);
    expect(await tokenBalance(chain, s.f.token, to)).toBe(900n);
    expect(s.sender.status().rail.gasLow).toBe(false);
  });

  it('signs nothing while fees are above the ceiling', async () => {
    const chain = sharedChain();
    const base = (await chain.public.getBlock()).baseFeePerGas ?? 0n;
    const s = await stack({ maxFeePerGas: base });
    const id = await seedWithdrawal(s.store, caip10(chain, freshAddress()), 900n);
    expect((await s.sender.pass()).waiting).toEqual([
      { withdrawalId: id, wait: 'gas_above_ceiling' },
    ]);
    expect(await s.journal.attempts(s.rail.name, id)).toEqual([]);
  });
});
