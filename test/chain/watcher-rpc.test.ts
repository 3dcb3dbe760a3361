// The deposit watcher behind a hostile RPC (test/chain/rpc-proxy.ts in front of the shared node):
// an RPC that is down, answers garbage, rewrites logs or claims another chain gives a clear error
// code in the status — lagging, never a crash, nothing recorded from a bad answer — and once the
// RPC answers truthfully again, what was paid meanwhile is shielded, nothing skipped. In the
// service, /health stays 200 with the chain lagging, the lag gauges rise, and payments go on.

import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { checkChain } from '../../src/chain/chain-binding.js';
import { chainClients } from '../../src/chain/rpc-client.js';
import { type PaymentContext, spendWitness } from '../../src/core/index.js';
import { registerChainGauges } from '../../src/http/chain-metrics.js';
import { noteCommitment } from '../../src/ledger/index.js';
import { chainAssetId, chainNetworkId, NO_EPOCH_GRID } from '../../src/scheme/index.js';
import { SERVICE_DEFAULTS, startService } from '../../src/service/index.js';
import { fixturePayment, fixtures } from '../../testkit/fixtures.js';
import type { Chain } from '../../testkit/chain.js';
import { type RpcProxy, startRpcProxy } from './rpc-proxy.js';
import { depositDirect, depositor, escrowFixture, sharedChain, tickets } from './shared.js';
import { acceptorKey, leaves, type WatchedPool, watchedPool } from './watcher-harness.js';
import { scratchDir } from '../scratch-dir.js';

const N = 10;

describe('the deposit watcher behind a hostile RPC', () => {
  let chain: Chain;
  let proxy: RpcProxy;
  const pools: WatchedPool[] = [];

  beforeAll(async () => {
    chain = sharedChain();
    proxy = await startRpcProxy(chain.url);
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    await proxy.close();
  });
  const honest = () => {
    proxy.mode = 'pass';
    proxy.rewrite = null;
  };

  async function pool() {
    honest();
    const created = await watchedPool(chain, { rpcUrl: proxy.url });
    pools.push(created);
    return created;
  }

  async function deposit(p: WatchedPool, amount: bigint) {
    const [ticket] = await tickets([amount]);
    await depositDirect(p.f, await depositor(p.f, amount), amount, ticket!.pre);
    return noteCommitment(p.core, amount, ticket!.pre);
  }

  it('RPC down: lagging with rpc_unreachable, the lag rising with time; back up, nothing skipped', async () => {
    const p = await pool();
    await p.poll();
    expect(p.watcher.status().status).toBe('ok');
    const registry = new Registry();
    registerChainGauges(registry, () => p.watcher.status());
    proxy.mode = 'down';
    const paidMeanwhile = await deposit(p, 21_000n);
    await p.mine(N);
    await p.poll(true);
    p.now += 90_000;
    expect(p.watcher.status()).toMatchObject({
      status: 'lagging',
      error: 'rpc_unreachable',
      lagSeconds: 90,
    });
    expect(await registry.getSingleMetricAsString('priv_stark_chain_lag_seconds')).toMatch(
      /^priv_stark_chain_lag_seconds 90$/m,
    );
    p.now += 60_000;
    expect(await registry.getSingleMetricAsString('priv_stark_chain_lag_seconds')).toMatch(
      /^priv_stark_chain_lag_seconds 150$/m,
    );
    honest();
    await p.poll();
    await p.mine(N);
    await p.poll();
    expect(p.watcher.status()).toMatchObject({ status: 'ok', error: null, lagSeconds: 0 });
    expect(await leaves(p)).toEqual([paidMeanwhile]);
  });

  it('an RPC behind (its head older than allowed): lagging, the head’s age as the lag', async () => {
    honest();
    const p = await watchedPool(chain, {
      rpcUrl: proxy.url,
      watcher: { lag: { staleHeadMs: 60_000 } },
    });
    pools.push(p);
    await p.mine(1);
    p.now = Date.now();
    await p.poll();
    expect(p.watcher.status()).toMatchObject({ status: 'ok', error: null });
    // The RPC keeps answering with the head the watcher saw while time goes on.
    const seen = await chain.public.getBlock({ blockNumber: BigInt(p.watcher.status().head!) });
    p.now = Number(seen.timestamp) * 1000 + 200_000;
    expect(p.watcher.status()).toMatchObject({ status: 'lagging', error: null, lagSeconds: 200 });
  });

  it('garbage, malformed logs and another chain id: a clear code, nothing recorded, then recovery', async () => {
    const p = await pool();
    const commitment = await deposit(p, 22_000n);
    const before = await p.watch.cursor(p.source);
    const cases: [() => void, string][] = [
      [() => (proxy.mode = 'garbage'), 'rpc_malformed'],
      [
        () =>
          (proxy.rewrite = {
            method: 'eth_getLogs',
            result: (logs) => (logs as { data: string }[]).map((l) => ({ ...l, data: '0x1234' })),
          }),
        'rpc_malformed',
      ],
      [
        () =>
          (proxy.rewrite = {
            method: 'eth_getLogs',
            result: (logs) =>
              (logs as object[]).map((l) => ({ ...l, address: `0x${'ab'.repeat(20)}` })),
          }),
        'rpc_malformed',
      ],
      [
        () =>
          (proxy.rewrite = {
            method: 'eth_getLogs',
            result: (logs) => (logs as object[]).map((l) => ({ ...l, blockNumber: '0x1' })),
          }),
        'rpc_malformed',
      ],
      [() => (proxy.rewrite = { method: 'eth_getLogs', result: () => 'no logs' }), 'rpc_malformed'],
      [() => (proxy.rewrite = { method: 'eth_chainId', result: () => '0x1' }), 'chain_id_mismatch'],
    ];
    for (const [lie, code] of cases) {
      honest();
      lie();
      await p.poll(true);
      expect(p.watcher.status(), code).toMatchObject({ status: 'lagging', error: code });
      expect(await p.watch.cursor(p.source)).toEqual(before);
      expect(await p.indexes('pending')).toEqual([]);
    }
    honest();
    await p.mine(N);
    await p.poll();
    await p.mine(N);
    await p.poll();
    expect(await leaves(p)).toEqual([commitment]);
  });

  it('at start, an RPC claiming another chain than the bound one is refused', async () => {
    const f = await escrowFixture(chain);
    honest();
    proxy.rewrite = { method: 'eth_chainId', result: () => '0x2105' };
    try {
      await expect(
        checkChain(
          chainClients(proxy.url).public,
          { escrow: f.escrow },
          {
            source: 'x',
            chainId: 31337,
            escrow: f.escrow,
            token: f.token,
            network: 'x',
            deployBlock: 0,
          },
        ),
      ).rejects.toMatchObject({ code: 'chain_id_mismatch' });
    } finally {
      honest();
    }
  });

  it('in the service: /health stays 200 with the chain lagging, and payments go on', async () => {
    honest();
    const f = await escrowFixture(chain);
    const acceptor = await acceptorKey(f);
    const service = await startService(
      {
        ...SERVICE_DEFAULTS,
        epoch: NO_EPOCH_GRID,
        port: 0,
        poolPort: 0,
        dataDir: scratchDir('priv-stark-rpc-'),
        logLevel: 'silent',
        insecureNoAuth: true,
        verifyThreads: 0,
        operatorToken: 'rpc-down-operator-token-0123456',
        chain: {
          rpcUrl: proxy.url,
          escrow: f.escrow,
          keyFiles: [`acceptor=${acceptor.file}`],
          finality: { confirmations: N },
          pollIntervalMs: 0,
        },
      },
      () => undefined,
    );
    try {
      // A fixture note deposited on chain and shielded: its commitment is the tree's leaf 0.
      const core = service.core;
      const fx = await fixtures(core, { seed: 'chain-rpc-down', notes: 1 });
      const note = fx.notes[0]!;
      await depositDirect(
        f,
        await depositor(f, BigInt(note.value)),
        BigInt(note.value),
        note.precommitment,
      );
      const watcher = service.depositWatcher!;
      await chain.test.mine({ blocks: N });
      await watcher.poll();
      await chain.test.mine({ blocks: N });
      await watcher.poll();
      expect(watcher.status().error).toBeNull();
      expect(await service.ledger.leaves(0, 10)).toEqual([note.commitment]);
      await service.ledger.checkpoint();
      // A payment of this pool, proved now.
      const payment: PaymentContext = {
        ...fixturePayment(core, fx.spec, fx.recipientOwner, 0),
        network: chainNetworkId(31337, f.escrow),
        asset: chainAssetId(31337, f.token),
      };
      const witness = await spendWitness(core, {
        note,
        leaves: [note.commitment],
        index: 0,
        amount: payment.amount,
        ctx: core.contextDigest(payment),
      });
      const { proof, publicInputs } = await core.proveSpend(witness);

      proxy.mode = 'down';
      await watcher.poll();
      const health = await fetch(`${service.facilitatorUrl}/health`);
      expect(health.status).toBe(200);
      const body = (await health.json()) as { status: string; chain: Record<string, unknown> };
      expect(body.status).toBe('ok');
      expect(body.chain).toMatchObject({ status: 'lagging', error: 'rpc_unreachable' });
      expect(body.chain).toHaveProperty('lagBlocks');
      expect(body.chain).toHaveProperty('lagSeconds');
      // The payment settles while the chain is out of reach.
      expect(await service.ledger.settle({ proof, publicInputs, payment })).toMatchObject({
        ok: true,
      });
    } finally {
      honest();
      await service.close();
    }
  });
});
