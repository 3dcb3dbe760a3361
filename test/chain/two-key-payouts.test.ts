// Two-key payouts end to end (docs/chain.md, "Two-key payouts"): a chain pool over an escrow
// deployed with the mode, its wallets exiting through the pool node. The payout sender pays a
// withdrawal only once an attestation's unpaid set covers it — before, it waits
// (`awaiting_attestation`) and nothing is sent — with a proof built from the set the attester
// recorded. Must-fail twin: with the payout key alone (the operator's key lacks the attester role,
// so no attestation lands) the withdrawal is never paid, neither by the sender nor by the key
// calling the escrow itself.

import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Address, type Hex, keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { unpaidRoot } from '../../src/chain/unpaid-withdrawals.js';
import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { openAttestedSets } from '../../src/ledger/open-attested-sets.js';
import { PoolNodeClient } from '../../src/pool-node/index.js';
import { revertOf } from '../../testkit/chain.js';
import { type ChainStack, chainStack } from './chain-stack.js';
import { balanceOf, depositDirect, depositor, escrowRead } from './shared.js';

const TOKEN = 'chain-stack-operator-token-0123456789';
const AMOUNT = 700_000n;

let core: PrivStarkCore;
beforeAll(async () => {
  core = await loadCore();
});

/** A stack whose wallet deposited and exited `AMOUNT` to a fresh address; the exit published. */
async function exited(stack: ChainStack): Promise<{ id: Hex; to: Address }> {
  const wallet = await Wallet.create({ core, pool: stack.poolUrl, network: stack.profile });
  const payer = await depositor(stack.f, 5_000_000n);
  const ticket = await wallet.depositTicket('2000000');
  await depositDirect(stack.f, payer, 2_000_000n, ticket.pre as Hex);
  await stack.shieldAll();
  await wallet.sync();
  const to = privateKeyToAccount(generatePrivateKey()).address;
  const exit = await wallet.exit(`eip155:31337:${to}`, AMOUNT, {});
  await stack.service.ledger.checkpoint();
  return { id: exit.transaction as Hex, to };
}

/** The sender's pass: what it left waiting for `id`. */
async function waitOf(stack: ChainStack, id: Hex) {
  const report = await stack.service.payoutSender!.pass();
  return report.waiting.find((w) => w.withdrawalId === id)?.wait;
}

describe('two-key payouts, with the attester key', () => {
  let stack: ChainStack;
  beforeAll(async () => {
    stack = await chainStack({ attester: true, twoKeyPayouts: true });
  });
  afterAll(() => stack?.close());

  it('pays a withdrawal only once an attestation covers it, with the recorded set’s proof', async () => {
    expect(await escrowRead(stack.f, 'twoKeyPayouts')).toBe(true);
    const { id, to } = await exited(stack);
    const operator = new PoolNodeClient(stack.poolUrl, { token: TOKEN });
    // No attestation covers it yet: the pass sends nothing (and asks the attester to attest).
    const before = await escrowRead<{ seq: bigint; unpaidRoot: Hex }>(stack.f, 'latestAttestation');
    expect(before.seq).toBe(0n);
    expect(await waitOf(stack, id)).toBe('awaiting_attestation');
    expect(await escrowRead(stack.f, 'isPaid', [id])).toBe(false);
    expect(await balanceOf(stack.f, to)).toBe(0n);
    // The attestation (asked for by the pass, or now): its set holds the exit, recorded first.
    const report = await operator.attest();
    expect(['attested', 'already_attested']).toContain(report.outcome);
    const latest = await escrowRead<{ seq: bigint; unpaidRoot: Hex }>(stack.f, 'latestAttestation');
    const w = { withdrawalId: id, to, amount: AMOUNT };
    expect(latest.unpaidRoot).toBe(unpaidRoot([w]));
    const sets = openAttestedSets({ dataDir: stack.dataDir });
    try {
      expect((await sets.byRoot(latest.unpaidRoot))?.withdrawals).toEqual([
        { withdrawalId: id.toLowerCase(), to: to.toLowerCase(), amount: AMOUNT.toString() },
      ]);
    } finally {
      await sets.close();
    }
    await stack.payoutPass();
    await stack.payoutPass();
    expect(await escrowRead(stack.f, 'isPaid', [id])).toBe(true);
    expect(await balanceOf(stack.f, to)).toBe(AMOUNT);
    const withdrawals = await stack.service.ledger.store.withdrawals(0, 10);
    expect(withdrawals.find((r) => r.withdrawalId === id)?.status).toBe('paid');
  });
});

describe('must-fail twin: the payout key alone', () => {
  let stack: ChainStack;
  beforeAll(async () => {
    // The operator's key holds the payout role, not the attester role: no attestation lands.
    stack = await chainStack({ attester: false, twoKeyPayouts: true });
  });
  afterAll(() => stack?.close());

  it('cannot pay a withdrawal no attestation covers, by the sender or by calling the escrow', async () => {
    const { id, to } = await exited(stack);
    for (let i = 0; i < 3; i++) {
      expect(await waitOf(stack, id)).toBe('awaiting_attestation');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const operator = new PoolNodeClient(stack.poolUrl, { token: TOKEN });
    await expect(operator.attest()).rejects.toThrow();
    expect((await escrowRead<{ seq: bigint }>(stack.f, 'latestAttestation')).seq).toBe(0n);
    // A payout-role key calling the escrow itself: the plain payout and a made-up proof refused.
    const payer = stack.f.payer;
    const call = (functionName: 'payout' | 'payoutWithProof', args: readonly unknown[]) =>
      stack.f.chain.public.simulateContract({
        address: stack.f.escrow,
        abi: privStarkEscrowAbi,
        functionName,
        args: args as never,
        account: payer,
      });
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    expect(await revertOf(call('payout', [id, to, AMOUNT, deadline]))).toEqual({
      name: 'UnpaidProofRequired',
      args: [id],
    });
    const forged = [keccak256(toHex('a sibling of my own'))];
    expect(await revertOf(call('payoutWithProof', [id, to, AMOUNT, deadline, forged]))).toEqual({
      name: 'NoAttestedUnpaidSet',
      args: [id],
    });
    expect(await escrowRead(stack.f, 'isPaid', [id])).toBe(false);
    expect(await balanceOf(stack.f, to)).toBe(0n);
  });
});
