// The payout sender's faults on a node of its own (these tests stop automining, drop transactions
// from the pool, set the base fee and move time): a stuck payout replaced under the gas ceiling —
// each cap bumped by the required minimum, at the ceiling no further — and its original mined after
// the replacement was sent, paid once; a dropped transaction's nonce gap filled with the stored
// bytes; a transaction that reverts for its destination failed only once every transaction signed
// for it reverted, while one reverted by a pause is signed again under a new nonce and paid once —
// failed (refunded) only once its allowed attempts all reverted while simulations pass;
// a deadline passed with nothing mined, failed, and the stored transaction mined later fills its
// nonce without paying; a payout made first by another payout key, the sender's own reverting with
// WithdrawalAlreadyPaid: recorded paid, not failed.

import { type Address, type Hex, parseGwei } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi, testUsdcAbi } from '../../src/chain/contract-artifacts.js';
import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';
import { type Chain, connect, newAccount, send, walletOf } from '../../testkit/chain.js';
import { caip10, paidEvents, seedWithdrawal, tokenBalance } from '../../testkit/payouts.js';
import { freshAddress, type PayoutStack, payoutHarness } from './payout-harness.js';

let node: LocalNode | undefined;
let chain: Chain | undefined;
const theChain = () => {
  if (!chain) throw new Error('the node is not started');
  return chain;
};

beforeAll(async () => {
  node = await startLocalNode({ accounts: 1 });
  chain = connect(node.url);
});
afterEach(async () => {
  await chain?.test.setAutomine(true);
});
afterAll(async () => {
  await node?.stop();
});

const { stack } = payoutHarness(theChain);

const CEILING = parseGwei('50');

async function setNextBaseFee(fee: bigint): Promise<void> {
  await theChain().test.request({
    method: 'anvil_setNextBlockBaseFeePerGas' as never,
    params: [`0x${fee.toString(16)}`] as never,
  });
}

async function mine(blocks = 1): Promise<void> {
  await theChain().test.mine({ blocks });
}

async function drop(hash: string): Promise<void> {
  await theChain().test.request({
    method: 'anvil_dropTransaction' as never,
    params: [hash] as never,
  });
}

async function sendRaw(raw: string): Promise<void> {
  await theChain().public.sendRawTransaction({ serializedTransaction: raw as Hex });
}

/** The withdrawal's attempts as [nonce, [hash, maxFee, tip][]]. */
async function attemptsOf(s: PayoutStack, id: Hex) {
  return (await s.journal.attempts(s.rail.name, id)).map((a) => ({
    nonce: a.nonce,
    transactions: a.transactions.map((t) => ({
      hash: t.hash,
      raw: t.raw,
      maxFee: BigInt(t.maxFeePerGas),
      tip: BigInt(t.maxPriorityFeePerGas),
    })),
  }));
}

async function receiptStatus(hash: string): Promise<string | null> {
  try {
    return (await theChain().public.getTransactionReceipt({ hash: hash as Hex })).status;
  } catch {
    return null;
  }
}

/** Sends an escrow or token call as `account` with a high tip (mined first in its block), unmined. */
async function sendFirstInBlock(
  account: Parameters<typeof walletOf>[1],
  call: {
    address: Address;
    abi: typeof privStarkEscrowAbi | typeof testUsdcAbi;
    functionName: string;
    args: unknown[];
  },
): Promise<Hex> {
  return walletOf(theChain(), account).writeContract({
    ...call,
    account,
    chain: null,
    gas: 300_000n,
    maxFeePerGas: parseGwei('20'),
    maxPriorityFeePerGas: parseGwei('10'),
  } as never);
}

describe('payout faults on a node of its own', () => {
  it('replaces a stuck payout under the ceiling; its original, mined after, pays once', async () => {
    const s = await stack({ maxFeePerGas: CEILING, replaceAfterBlocks: 2 });
    const to = freshAddress();
    const id = await seedWithdrawal(s.store, caip10(theChain(), to), 4_000n);
    await theChain().test.setAutomine(false);
    await s.sender.pass();
    const [first] = (await attemptsOf(s, id))[0]!.transactions;
    // The base fee rises past what it offers: it is not mined (this node even drops it).
    await setNextBaseFee(first!.maxFee * 3n);
    await mine(2);
    expect(await receiptStatus(first!.hash)).toBeNull();
    await s.sender.pass();
    const [, second] = (await attemptsOf(s, id))[0]!.transactions;
    expect(second!.maxFee).toBeGreaterThanOrEqual((first!.maxFee * 110n) / 100n);
    expect(second!.tip).toBeGreaterThanOrEqual((first!.tip * 110n) / 100n);
    expect(second!.maxFee).toBeLessThanOrEqual(CEILING);
    // Past the ceiling: one replacement at the ceiling, then none.
    await setNextBaseFee(CEILING * 2n);
    await mine(2);
    await s.sender.pass();
    await setNextBaseFee(CEILING * 2n);
    await mine(2);
    await s.sender.pass();
    const attempt = (await attemptsOf(s, id))[0]!;
    expect(attempt.transactions.map((t) => t.maxFee)).toEqual([
      first!.maxFee,
      second!.maxFee,
      CEILING,
    ]);
    expect(new Set(attempt.transactions.map((t) => t.hash)).size).toBe(3);
    // Fees fall; the replacements are gone from the pool and the original comes back and is mined.
    for (const t of attempt.transactions.slice(1)) await drop(t.hash);
    await setNextBaseFee(1n);
    await sendRaw(first!.raw);
    await mine();
    expect(await receiptStatus(first!.hash)).toBe('success');
    const report = await s.sender.pass();
    expect(report.decided).toEqual([{ withdrawalId: id, status: 'paid' }]);
    expect(await paidEvents(theChain(), s.f.escrow, id)).toEqual([
      { to, amount: 4_000n, transactionHash: first!.hash },
    ]);
    for (const t of attempt.transactions.slice(1)) expect(await receiptStatus(t.hash)).toBeNull();
    expect(await tokenBalance(theChain(), s.f.token, to)).toBe(4_000n);
    expect(await theChain().public.getTransactionCount({ address: s.f.payer.address })).toBe(
      attempt.nonce + 1,
    );
  });

  it('fills a dropped transaction’s nonce gap with its stored bytes', async () => {
    const s = await stack();
    const targets = [freshAddress(), freshAddress()];
    const ids = [
      await seedWithdrawal(s.store, caip10(theChain(), targets[0]!), 100n),
      await seedWithdrawal(s.store, caip10(theChain(), targets[1]!), 200n),
    ];
    await theChain().test.setAutomine(false);
    await s.sender.pass();
    const [a, b] = [(await attemptsOf(s, ids[0]!))[0]!, (await attemptsOf(s, ids[1]!))[0]!];
    expect(b.nonce).toBe(a.nonce + 1);
    await drop(a.transactions[0]!.hash);
    await mine();
    // The second waits behind the gap.
    expect(await receiptStatus(b.transactions[0]!.hash)).toBeNull();
    expect(await theChain().public.getTransactionCount({ address: s.f.payer.address })).toBe(
      a.nonce,
    );
    await s.sender.pass();
    await mine();
    expect((await s.sender.pass()).decided.map((d) => d.status)).toEqual(['paid', 'paid']);
    // Filled with the same bytes: nothing signed again.
    expect((await attemptsOf(s, ids[0]!))[0]!.transactions).toHaveLength(1);
    expect((await attemptsOf(s, ids[1]!))[0]!.transactions).toHaveLength(1);
    expect(await tokenBalance(theChain(), s.f.token, targets[1]!)).toBe(200n);
  });

  it('fails a payout only once its transaction reverted for the destination; a paused one is paid later', async () => {
    const s = await stack();
    const listed = freshAddress();
    const held = freshAddress();
    const failing = await seedWithdrawal(s.store, caip10(theChain(), listed), 300n);
    const waiting = await seedWithdrawal(s.store, caip10(theChain(), held), 400n);
    await theChain().test.setAutomine(false);
    await s.sender.pass();
    // Mined first in the block that mines both payouts: the blacklist and the token's pause.
    const token = { address: s.f.token, abi: testUsdcAbi };
    await sendFirstInBlock(s.f.admin, { ...token, functionName: 'blacklist', args: [listed] });
    await sendFirstInBlock(s.f.admin, { ...token, functionName: 'pause', args: [] });
    await mine();
    const [listedTx] = (await attemptsOf(s, failing))[0]!.transactions;
    const [heldTx] = (await attemptsOf(s, waiting))[0]!.transactions;
    expect(await receiptStatus(listedTx!.hash)).toBe('reverted');
    expect(await receiptStatus(heldTx!.hash)).toBe('reverted');
    // Paused, every payout reverts: neither is failed, whatever its destination.
    const whilePaused = await s.sender.pass();
    expect(whilePaused.decided).toEqual([]);
    expect(whilePaused.waiting.map((w) => w.wait)).toEqual(['rail_refusing', 'rail_refusing']);
    await sendFirstInBlock(s.f.admin, { ...token, functionName: 'unpause', args: [] });
    await mine();
    // Unpaused: the blacklisted destination is failed (its one transaction reverted), the other is
    // signed again under a new nonce.
    expect((await s.sender.pass()).decided).toEqual([{ withdrawalId: failing, status: 'failed' }]);
    await mine();
    expect((await s.sender.pass()).decided).toEqual([{ withdrawalId: waiting, status: 'paid' }]);
    const again = await attemptsOf(s, waiting);
    expect(again).toHaveLength(2);
    expect(again[1]!.nonce).toBeGreaterThan(again[0]!.nonce);
    expect(await attemptsOf(s, failing)).toHaveLength(1);
    expect(await paidEvents(theChain(), s.f.escrow, waiting)).toEqual([
      { to: held, amount: 400n, transactionHash: again[1]!.transactions[0]!.hash },
    ]);
    expect(await tokenBalance(theChain(), s.f.token, held)).toBe(400n);
    expect(await s.ledger.state()).toMatchObject({ paidOutTotal: '400', refundedTotal: '300' });
  });

  it('fails a payout once its attempts all reverted while simulations pass: refunded, never paid', async () => {
    // One attempt allowed (default 3) so a single revert decides; the test above is the twin: with
    // attempts left, the same revert is signed again under a new nonce and paid.
    const s = await stack({ maxRevertedAttempts: 1 });
    const to = freshAddress();
    const id = await seedWithdrawal(s.store, caip10(theChain(), to), 500n);
    await theChain().test.setAutomine(false);
    await s.sender.pass();
    const token = { address: s.f.token, abi: testUsdcAbi };
    await sendFirstInBlock(s.f.admin, { ...token, functionName: 'pause', args: [] });
    await mine();
    const [tx] = (await attemptsOf(s, id))[0]!.transactions;
    expect(await receiptStatus(tx!.hash)).toBe('reverted');
    await sendFirstInBlock(s.f.admin, { ...token, functionName: 'unpause', args: [] });
    await mine();
    // The payout would pass now, but its one attempt reverted in a final block: failed.
    expect((await s.sender.pass()).decided).toEqual([{ withdrawalId: id, status: 'failed' }]);
    expect(await attemptsOf(s, id)).toHaveLength(1);
    expect(await paidEvents(theChain(), s.f.escrow, id)).toEqual([]);
    expect(await tokenBalance(theChain(), s.f.token, to)).toBe(0n);
    expect(await s.ledger.state()).toMatchObject({ paidOutTotal: '0', refundedTotal: '500' });
  });

  it('fails a payout whose deadline passed with nothing mined; its transaction mined later pays nothing', async () => {
    const s = await stack({
      deadlineSeconds: 600,
      maxFeePerGas: CEILING,
      replaceAfterBlocks: 1000,
    });
    const to = freshAddress();
    const id = await seedWithdrawal(s.store, caip10(theChain(), to), 500n);
    await theChain().test.setAutomine(false);
    await s.sender.pass();
    const [attempt] = await attemptsOf(s, id);
    await setNextBaseFee(CEILING * 2n);
    await mine();
    // Not mined, not yet past its deadline: it waits.
    expect((await s.sender.pass()).waiting).toEqual([{ withdrawalId: id, wait: 'in_flight' }]);
    await theChain().test.increaseTime({ seconds: 700 });
    await setNextBaseFee(CEILING * 2n);
    await mine();
    expect((await s.sender.pass()).decided).toEqual([{ withdrawalId: id, status: 'failed' }]);
    // Fees fall: the stored transaction is broadcast again and mined, and reverts (its nonce filled).
    await setNextBaseFee(1n);
    await mine();
    await s.sender.pass();
    await mine();
    expect(await receiptStatus(attempt!.transactions[0]!.hash)).toBe('reverted');
    expect(await paidEvents(theChain(), s.f.escrow, id)).toEqual([]);
    expect(await tokenBalance(theChain(), s.f.token, to)).toBe(0n);
    // The next payout takes the next nonce.
    const next = await seedWithdrawal(s.store, caip10(theChain(), to), 600n);
    await s.sender.pass();
    await mine();
    expect((await s.sender.pass()).decided).toEqual([{ withdrawalId: next, status: 'paid' }]);
    expect((await attemptsOf(s, next))[0]!.nonce).toBe(attempt!.nonce + 1);
    expect(await s.ledger.state()).toMatchObject({ paidOutTotal: '600', refundedTotal: '500' });
  });

  it('records paid, not failed, when another payout key paid first and its own reverted', async () => {
    const s = await stack();
    const other = await newAccount(theChain());
    const escrow = { address: s.f.escrow, abi: privStarkEscrowAbi };
    const role = await theChain().public.readContract({ ...escrow, functionName: 'PAYOUT_ROLE' });
    await send(theChain(), s.f.admin, {
      ...escrow,
      functionName: 'grantRole',
      args: [role, other.address],
    });
    const to = freshAddress();
    const id = await seedWithdrawal(s.store, caip10(theChain(), to), 700n);
    await theChain().test.setAutomine(false);
    await s.sender.pass();
    const [own] = (await attemptsOf(s, id))[0]!.transactions;
    const deadline = (await theChain().public.getBlock()).timestamp + 3600n;
    const theirs = await sendFirstInBlock(other, {
      ...escrow,
      functionName: 'payout',
      args: [id, to, 700n, deadline],
    });
    await mine();
    expect(await receiptStatus(theirs)).toBe('success');
    expect(await receiptStatus(own!.hash)).toBe('reverted');
    expect((await s.sender.pass()).decided).toEqual([{ withdrawalId: id, status: 'paid' }]);
    expect(await paidEvents(theChain(), s.f.escrow, id)).toEqual([
      { to, amount: 700n, transactionHash: theirs },
    ]);
    expect(await tokenBalance(theChain(), s.f.token, to)).toBe(700n);
    expect(await s.ledger.state()).toMatchObject({ paidOutTotal: '700', refundedTotal: '0' });
  });
});
