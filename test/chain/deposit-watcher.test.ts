// The deposit watcher on a node of its own (its assertions count confirmations block by block, and
// suites beside it on the shared node mine blocks of their own): deposits by both paths
// are accepted once their payment is final and shielded once the acceptance is final — not a
// block before — each exactly once, as H_NOTE(amount, pre) of the ticket; deposits the pool cannot
// shield (a commitment in the tree, a depositor on the deny list) are declined in the same batch,
// reclaimable at once, and never hold up the deposits after them.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DenyList } from '../../src/chain/deny-list.js';
import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';
import { DEFAULT_MIN_GAS_BALANCE } from '../../src/chain/gas-balances.js';
import { registerChainGauges } from '../../src/http/chain-metrics.js';
import { noteCommitment } from '../../src/ledger/index.js';
import { type Chain, connect, newAccount } from '../../testkit/chain.js';
import {
  balanceOf,
  depositDirect,
  depositor,
  escrowCall,
  readDeposit,
  STATE,
  tickets,
} from './shared.js';
import { depositGasless, leaves, type WatchedPool, watchedPool } from './watcher-harness.js';
import { scratchDir } from '../scratch-dir.js';

const N = 10;

describe('the deposit watcher', () => {
  let chain: Chain;
  const pools: WatchedPool[] = [];

  let node: LocalNode | undefined;

  beforeAll(async () => {
    node = await startLocalNode({ accounts: 1 });
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

  it('accepts once the payment is final and shields once the acceptance is final, by both paths', async () => {
    const p = await pool();
    const [a, b] = await tickets([1_000_000n, 2_500_000n]);
    const payer = await depositor(p.f, 10_000_000n);
    const relayer = await newAccount(chain);
    await depositDirect(p.f, payer, a!.amount, a!.pre);
    await depositGasless(p.f, payer, relayer, b!.amount, b!.pre);
    await p.poll();
    // Read, not final: nothing sent, nothing shielded.
    expect(await p.indexes('pending')).toEqual([0, 1]);
    expect((await readDeposit(p.f, 1n)).state).toBe(STATE.Pending);

    await p.mine(N);
    await p.poll();
    // Final payments: accepted on chain in one batch; the acceptance is not final yet.
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Accepted);
    expect((await readDeposit(p.f, 1n)).state).toBe(STATE.Accepted);
    // The acceptance carried half again its estimate (src/chain/gas-limit.ts).
    const [sentRow] = await p.watch.deposits(p.source, ['pending', 'accepted'], 1);
    const hash = sentRow!.sentTx as `0x${string}`;
    const acceptance = await p.f.chain.public.getTransaction({ hash });
    const accepted = await p.f.chain.public.getTransactionReceipt({ hash });
    expect(acceptance.gas).toBeGreaterThanOrEqual((accepted.gasUsed * 14n) / 10n);
    await p.poll();
    expect(await p.indexes('accepted')).toEqual([0, 1]);
    expect(await leaves(p)).toEqual([]);

    // N − 1 confirmations of the acceptance: not yet.
    await p.mine(N - 2);
    await p.poll();
    expect(await leaves(p)).toEqual([]);
    // N confirmations: shielded, in index order, as the tickets' notes.
    await p.mine(1);
    await p.poll();
    const notes = [a!, b!].map((t) => noteCommitment(p.core, t.amount, t.pre));
    expect(await leaves(p)).toEqual(notes);
    expect(await p.indexes('shielded')).toEqual([0, 1]);
    const [first] = await p.watch.deposits(p.source, ['shielded'], 10);
    expect(first?.leafIndex).toBe(0);

    // Polled again, however often: never twice.
    await p.mine(3);
    await p.poll();
    await p.poll();
    expect(await leaves(p)).toEqual(notes);
    expect((await p.ledger.state()).depositTotal).toBe('3500000');
    const status = p.watcher.status();
    expect(status).toMatchObject({
      status: 'ok',
      finality: '10 confirmations',
      error: null,
      lagBlocks: 0,
      deposits: { shielded: 2, pending: 0, accepted: 0 },
    });
    expect(status.keys).toEqual([
      expect.objectContaining({
        role: 'acceptor',
        address: p.f.acceptor.address,
        sufficient: true,
      }),
    ]);
  });

  it('sends nothing while the acceptor key is below its gas minimum, and goes on once topped up', async () => {
    const p = await pool();
    const [ticket] = await tickets([5_000n]);
    await depositDirect(p.f, await depositor(p.f, 5_000n), 5_000n, ticket!.pre);
    await chain.test.setBalance({ address: p.f.acceptor.address, value: 10n ** 14n });
    await p.mine(N);
    await p.poll();
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Pending);
    const registry = new Registry();
    registerChainGauges(registry, () => p.watcher.status());
    expect(p.watcher.status().keys[0]).toMatchObject({
      balance: String(10n ** 14n),
      minimum: String(DEFAULT_MIN_GAS_BALANCE),
      sufficient: false,
    });
    expect(await registry.getSingleMetricAsString('priv_stark_chain_gas_below_minimum')).toMatch(
      /^priv_stark_chain_gas_below_minimum\{role="acceptor"\} 1$/m,
    );
    // Twin: topped up, the deposit is accepted at the next poll.
    await chain.test.setBalance({ address: p.f.acceptor.address, value: 10n ** 18n });
    await p.poll();
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Accepted);
    expect(p.watcher.status().keys[0]?.sufficient).toBe(true);
  });

  it('declines a commitment in the tree and a denied depositor, and shields the deposits after them', async () => {
    const list = join(scratchDir('priv-stark-deny-'), 'deny-list');
    writeFileSync(list, '# screened depositors\n');
    const p = await pool({ denyList: new DenyList(list) });
    const [ok, dup, blocked, later] = await tickets([1_000n, 2_000n, 3_000n, 4_000n]);
    const payer = await depositor(p.f, 100_000n);
    const denied = await depositor(p.f, 3_000n);
    // The list is read again once it changes: no restart.
    writeFileSync(list, `# screened depositors\n${denied.address.toLowerCase()}  # sanctioned\n`);
    // The tree holds dup's commitment already (as a note of its own would).
    expect((await p.ledger.deposit({ amount: '2000', pre: dup!.pre })).ok).toBe(true);
    await depositDirect(p.f, payer, ok!.amount, ok!.pre);
    await depositDirect(p.f, payer, dup!.amount, dup!.pre);
    await depositDirect(p.f, denied, blocked!.amount, blocked!.pre);
    await p.mine(N);
    await p.poll();
    // One batch: accepted, declined, declined.
    expect((await readDeposit(p.f, 0n)).state).toBe(STATE.Accepted);
    expect((await readDeposit(p.f, 1n)).state).toBe(STATE.Declined);
    expect((await readDeposit(p.f, 2n)).state).toBe(STATE.Declined);
    await p.poll();
    const declined = await p.watch.deposits(p.source, ['declined'], 10);
    expect(declined.map((d) => [d.index, d.reason])).toEqual([
      [1, 'duplicate_commitment'],
      [2, 'denied_depositor'],
    ]);
    // A declined deposit goes back at once.
    const before = await balanceOf(p.f, denied.address);
    await escrowCall(p.f, denied, 'reclaim', [2n]);
    expect(await balanceOf(p.f, denied.address)).toBe(before + blocked!.amount);
    // A later deposit is accepted and shielded like any other.
    await depositDirect(p.f, payer, later!.amount, later!.pre);
    await p.mine(N);
    await p.poll();
    await p.mine(N);
    await p.poll();
    expect(await p.indexes('shielded')).toEqual([0, 3]);
    expect(await p.indexes('reclaimed')).toEqual([2]);
    expect(await p.indexes('declined')).toEqual([1]);
    expect(await leaves(p)).toEqual([
      noteCommitment(p.core, 2000n, dup!.pre),
      noteCommitment(p.core, ok!.amount, ok!.pre),
      noteCommitment(p.core, later!.amount, later!.pre),
    ]);
  });
});
