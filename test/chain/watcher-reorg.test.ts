// The deposit watcher where history is rewritten and time moves (a node of its own): reorgs with
// anvil_reorg, so blocks the watcher read come back with other hashes. A reorg removing an
// acceptance before it is final shields nothing (and the deposit, accepted again, is shielded
// once); a reorg shallower than the depth changes nothing shielded; one reaching a shielded
// acceptance stops shielding, reports reorg_beyond_depth and raises its metric. An acceptance
// mined before a reclaim makes the reclaim revert and the deposit is shielded; a reclaim mined
// before the acceptance keeps the deposit out for good, and the deposits beside it go on. The safe
// tag (anvil: 32 blocks behind the head) decides finality when asked to.

import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';
import { registerChainGauges } from '../../src/http/chain-metrics.js';
import { noteCommitment } from '../../src/ledger/index.js';
import { foundry } from 'viem/chains';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { type Chain, connect, revertOf, walletOf } from '../../testkit/chain.js';
import { depositDirect, depositor, escrowCall, readDeposit, STATE, tickets } from './shared.js';
import { leaves, type WatchedPool, watchedPool } from './watcher-harness.js';

const N = 10;

describe('the deposit watcher across reorganisations and reclaims', () => {
  let node: LocalNode;
  let chain: Chain;
  const pools: WatchedPool[] = [];

  beforeAll(async () => {
    node = await startLocalNode();
    chain = connect(node.url);
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    await node?.stop();
  });

  async function pool(options: Parameters<typeof watchedPool>[1] = {}) {
    const created = await watchedPool(chain, options);
    pools.push(created);
    return created;
  }

  /** Replaces the last `depth` blocks with empty ones (the same height, other hashes). */
  async function reorg(depth: number) {
    await chain.test.request({ method: 'anvil_reorg', params: [depth, []] } as never);
  }

  /** A deposit of a fresh ticket; its commitment. */
  async function deposit(p: WatchedPool, amount: bigint) {
    const [ticket] = await tickets([amount]);
    const payer = await depositor(p.f, amount);
    await depositDirect(p.f, payer, amount, ticket!.pre);
    return { payer, commitment: noteCommitment(p.core, amount, ticket!.pre) };
  }

  it('a reorg removing an acceptance before it is final shields nothing; accepted again, it is shielded once', async () => {
    const p = await pool({ watcher: { resendAfterBlocks: 5 } });
    const { commitment } = await deposit(p, 5_000n);
    await p.mine(N);
    await p.poll();
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Accepted);
    await p.mine(N - 3);
    await p.poll();
    expect(await p.indexes('accepted')).toEqual([0]);
    // The acceptance and the blocks on it are replaced by empty blocks: the deposit is pending again.
    await reorg(N - 1);
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Pending);
    await p.mine(2);
    await p.poll();
    expect(p.watcher.status().reorgs).toBe(1);
    expect(await p.indexes('pending')).toEqual([0]);
    expect(await leaves(p)).toEqual([]);
    // Its acceptance is gone for good: decided again and sent again, then final, then shielded.
    await p.mine(5);
    await p.poll();
    await p.poll();
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Accepted);
    await p.mine(N);
    await p.poll();
    expect(await leaves(p)).toEqual([commitment]);
    await p.mine(N);
    await p.poll();
    expect(await leaves(p)).toEqual([commitment]);
    expect(p.watcher.status().status).toBe('ok');
  });

  it('a reorg shallower than the depth changes nothing shielded', async () => {
    const p = await pool();
    const { commitment } = await deposit(p, 6_000n);
    await p.mine(N);
    await p.poll();
    await p.mine(N - 1);
    await p.poll();
    expect(await leaves(p)).toEqual([commitment]);
    // The acceptance has exactly N confirmations: N − 1 blocks above it are replaced.
    await reorg(N - 1);
    await p.poll();
    expect(p.watcher.status()).toMatchObject({ status: 'ok', reorgs: 1 });
    expect(await p.indexes('shielded')).toEqual([0]);
    // A deposit after the reorg is shielded as usual.
    const later = await deposit(p, 7_000n);
    await p.mine(N);
    await p.poll();
    await p.mine(N);
    await p.poll();
    expect(await leaves(p)).toEqual([commitment, later.commitment]);
  });

  it('a reorg reaching a shielded acceptance stops shielding: reorg_beyond_depth and its metric', async () => {
    const p = await pool();
    const { commitment } = await deposit(p, 8_000n);
    await p.mine(N);
    await p.poll();
    await p.mine(N - 1);
    await p.poll();
    expect(await leaves(p)).toEqual([commitment]);
    const registry = new Registry();
    registerChainGauges(registry, () => p.watcher.status());
    const gauge = async () =>
      (await registry.getSingleMetricAsString('priv_stark_chain_reorg_beyond_depth')).split(
        '\n',
      )[2];
    expect(await gauge()).toBe('priv_stark_chain_reorg_beyond_depth 0');
    // N blocks: the acceptance's own block is replaced.
    await reorg(N);
    await p.poll();
    expect(p.watcher.status().status).toBe('reorg_beyond_depth');
    expect(await gauge()).toBe('priv_stark_chain_reorg_beyond_depth 1');
    // Stopped: a new deposit is neither accepted nor shielded, polls or not.
    await deposit(p, 9_000n);
    await p.mine(N);
    await p.poll();
    await p.mine(N);
    await p.poll();
    expect((await readDeposit(p.f, 1n)).state).toBe(STATE.Pending);
    expect(await leaves(p)).toEqual([commitment]);
    expect(p.watcher.status().status).toBe('reorg_beyond_depth');
  });

  it('an acceptance mined before a reclaim: the reclaim reverts and the deposit is shielded', async () => {
    const p = await pool();
    const { payer, commitment } = await deposit(p, 10_000n);
    // Past the reclaim delay: the depositor may reclaim a pending deposit.
    await chain.test.increaseTime({ seconds: 86_401 });
    await p.mine(N);
    await p.poll();
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Accepted);
    expect((await revertOf(escrowCall(p.f, payer, 'reclaim', [0n]))).name).toBe(
      'DepositNotReclaimable',
    );
    await p.mine(N);
    await p.poll();
    expect(await leaves(p)).toEqual([commitment]);
  });

  it('a reclaim mined before the acceptance: the acceptance reverts, the deposit is never shielded, the one beside it is', async () => {
    const p = await pool();
    const first = await deposit(p, 11_000n);
    const second = await deposit(p, 12_000n);
    await chain.test.increaseTime({ seconds: 86_401 });
    await p.mine(N);
    // One block holds both: the depositor's reclaim (the higher tip) before the acceptance.
    await chain.test.setAutomine(false);
    try {
      await p.poll();
      await walletOf(chain, first.payer).writeContract({
        address: p.f.escrow,
        abi: privStarkEscrowAbi,
        functionName: 'reclaim',
        args: [0n],
        account: first.payer,
        chain: foundry,
        maxPriorityFeePerGas: 10n ** 10n,
        maxFeePerGas: 10n ** 11n,
        // Not estimated: against the pending block (the acceptance in it) it would revert.
        gas: 200_000n,
      });
      await p.mine(1);
    } finally {
      await chain.test.setAutomine(true);
    }
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Reclaimed);
    // The batch reverted as a whole: the deposit beside it is still pending.
    expect((await readDeposit(p.f, 1n)).state).toBe(STATE.Pending);
    await p.poll();
    expect((await readDeposit(p.f, 1n)).state).toBe(STATE.Accepted);
    await p.mine(N);
    await p.poll();
    expect(await p.indexes('reclaimed')).toEqual([0]);
    expect(await leaves(p)).toEqual([second.commitment]);
  });

  it('with the safe tag, shields once the node tags the acceptance’s block safe', async () => {
    const p = await pool({ finality: { tag: 'safe' } });
    const { commitment } = await deposit(p, 13_000n);
    // anvil tags safe the block 32 below the head.
    await p.mine(32);
    await p.poll();
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Accepted);
    await p.mine(31);
    await p.poll();
    expect(await leaves(p)).toEqual([]);
    await p.mine(1);
    await p.poll();
    expect(await leaves(p)).toEqual([commitment]);
    expect(p.watcher.status().finality).toBe('safe');
  });
});
