// The relayer's answer when its transaction is not mined within its wait, on a node of its own
// (the test stops automining): POST /relay/deposit answers 202 with the transaction's hash and
// `mined: false`, nothing moved yet; once a block mines it, the deposit is the escrow's with the
// amount and the fee moved once, and the same ticket relayed again is deposit_exists. The wallet's
// depositBySignature over the same answer returns `mined: false` and no index, recorded as such.
// The twin — mined within the wait, 200 with the index — is test/chain/relay-route.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { depositBySignature } from '../../src/client/chain.js';
import { Wallet } from '../../src/client/index.js';
import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { connect } from '../../testkit/chain.js';
import { balances, type RelayPool, relayDepositBody, relayPool } from './relay-harness.js';
import { depositor, escrowFixture, readDeposit, STATE, tickets } from './shared.js';

const FEE = 1_000n;

let node: LocalNode | undefined;
let core: PrivStarkCore;
let pool: RelayPool;

beforeAll(async () => {
  core = await loadCore();
  node = await startLocalNode({ accounts: 1 });
  const fixture = await escrowFixture(connect(node.url));
  // A short wait: the route answers 202 once it passes with the transaction unmined.
  pool = await relayPool(core, { fee: FEE, fixture, receiptTimeoutMs: 300 });
}, 120_000);

afterAll(async () => {
  await pool?.close();
  await node?.stop();
});

describe('a relayed deposit not mined within the wait', () => {
  it('answers 202 with the hash; mined later, it moves the funds once and the ticket is taken', async () => {
    const chain = pool.f.chain;
    const [ticket] = await tickets([200_000n]);
    const from = await depositor(pool.f, 1_000_000n);
    const before = await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address);
    const signed = await relayDepositBody(pool.f, FEE, from, ticket!);
    await chain.test.setAutomine(false);
    try {
      const response = await fetch(`${pool.url}/relay/deposit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(signed),
      });
      expect(response.status).toBe(202);
      const answer = (await response.json()) as Record<string, unknown>;
      expect(answer).toEqual({
        transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        mined: false,
      });
      expect(await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address)).toEqual(
        before,
      );
      await chain.test.mine({ blocks: 1 });
      const receipt = await chain.public.getTransactionReceipt({
        hash: answer.transaction as `0x${string}`,
      });
      expect(receipt.status).toBe('success');
    } finally {
      await chain.test.setAutomine(true);
    }
    expect(await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address)).toEqual([
      before[0]! - 200_000n - FEE,
      before[1]! + 200_000n,
      before[2]! + FEE,
    ]);
    const count = await chain.public.readContract({
      address: pool.f.escrow,
      abi: privStarkEscrowAbi,
      functionName: 'depositCount',
    });
    expect(await readDeposit(pool.f, count - 1n)).toMatchObject({
      depositor: from.address,
      amount: 200_000n,
      pre: ticket!.pre,
      state: STATE.Pending,
    });
    const again = await fetch(`${pool.url}/relay/deposit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signed),
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: 'deposit_exists' });
  });

  it("the wallet's deposit by signature says it is not mined yet, with no index", async () => {
    const chain = pool.f.chain;
    const wallet = await Wallet.create({ core, pool: pool.url, network: pool.profile });
    const owner = await depositor(pool.f, 1_000_000n);
    await chain.test.setAutomine(false);
    try {
      const receipt = await depositBySignature(wallet, {
        account: owner,
        rpc: chain.url,
        amount: 150_000n,
        maxFee: FEE,
      });
      expect(receipt).toMatchObject({ path: 'relayed', mined: false, depositIndex: null });
      expect(wallet.chainDeposits()).toEqual([
        expect.objectContaining({
          amount: '150000',
          index: null,
          transaction: receipt.transaction,
        }),
      ]);
      await chain.test.mine({ blocks: 1 });
    } finally {
      await chain.test.setAutomine(true);
    }
  });
});
