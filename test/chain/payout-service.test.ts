// The payout sender in the service (in-process, the shared node): a chain pool started with the
// payout key pays an exit through the escrow — passes driven by the test (PAYOUT_POLL_INTERVAL_MS=0)
// — and its metrics and /health show the sender and the payout key; the operator's payout steps by
// hand are refused there (chain_payouts_only), while the devnet's pool node, the twin, takes them;
// without the payout key there is no sender (exits wait for an instance that holds it); an exit
// the rail could never pay (another chain or namespace, the escrow, the token) refused at POST
// /transitions before anything is spent, beside an exit to this chain that passes that check; a
// payout setting out of range refuses to start (ServiceConfigError: exit 2).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { loadCore, randomDigest } from '../../src/core/index.js';
import { Ledger, openStore } from '../../src/ledger/index.js';
import { buildPoolNode } from '../../src/pool-node/index.js';
import { messageOf, SCHEME, NO_EPOCH_GRID } from '../../src/scheme/index.js';
import {
  SERVICE_DEFAULTS,
  type ServiceConfig,
  ServiceConfigError,
  startService,
} from '../../src/service/index.js';
import { minedFrom, send } from '../../testkit/chain.js';
import { caip10, fundCustody, seedWithdrawal, tokenBalance } from '../../testkit/payouts.js';
import { CUSTODY, freshAddress } from './payout-harness.js';
import { type EscrowFixture, escrowFixture, sharedChain } from './shared.js';
import { acceptorKey, keyFileOf } from './watcher-harness.js';

const OPERATOR_TOKEN = 'payout-service-operator-token-01';
const dirs: string[] = [];
let f: EscrowFixture;
let acceptor: { file: string };
let payout: { file: string; address: Address };

beforeAll(async () => {
  const chain = sharedChain();
  f = await escrowFixture(chain);
  await fundCustody(chain, f, CUSTODY);
  acceptor = await acceptorKey(f);
  const key = generatePrivateKey();
  const { address } = privateKeyToAccount(key);
  await chain.test.setBalance({ address, value: 10n ** 19n });
  const escrow = { address: f.escrow, abi: privStarkEscrowAbi };
  const role = await chain.public.readContract({ ...escrow, functionName: 'PAYOUT_ROLE' });
  await send(chain, f.admin, { ...escrow, functionName: 'grantRole', args: [role, address] });
  payout = { file: keyFileOf(key), address };
  process.env.PAYOUT_POLL_INTERVAL_MS = '0';
});
afterEach(() => {
  delete process.env.PAYOUT_DEADLINE_SECONDS;
});
afterAll(() => {
  delete process.env.PAYOUT_POLL_INTERVAL_MS;
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `POST /withdrawals/<id>/<status>` with `token`: the reply's status and body. */
async function stepByHand(url: string, id: string, status: string, token: string) {
  const reply = await fetch(`${url}/withdrawals/${id}/${status}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
}

function config(keyFiles: string[]): ServiceConfig {
  const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-payout-service-'));
  dirs.push(dataDir);
  return {
    ...SERVICE_DEFAULTS,
    epoch: NO_EPOCH_GRID,
    port: 0,
    poolPort: 0,
    metricsPort: 0,
    dataDir,
    logLevel: 'silent',
    insecureNoAuth: true,
    verifyThreads: 0,
    operatorToken: OPERATOR_TOKEN,
    chain: {
      rpcUrl: f.chain.url,
      escrow: f.escrow,
      keyFiles,
      finality: { confirmations: 1 },
      pollIntervalMs: 0,
    },
  };
}

describe('the payout sender in the service', () => {
  it('pays an exit through the escrow; the metrics and /health show it', async () => {
    const chain = sharedChain();
    const settings = config([`acceptor=${acceptor.file}`, `payout=${payout.file}`]);
    const service = await startService(settings, () => undefined);
    const store = await openStore(await loadCore(), { dataDir: settings.dataDir });
    try {
      expect(service.payoutSender?.rail.name).toBe(`eip155:31337:${payout.address}`);
      const to = freshAddress();
      const id = await seedWithdrawal(store, caip10(chain, to), 42_000n);
      // The operator cannot record a step by hand: a `failed` for an exit the escrow pays would
      // pay it twice (the USDC and a refund note). The list still answers.
      const step = (status: string, token = OPERATOR_TOKEN) =>
        stepByHand(service.poolNodeUrl!, id, status, token);
      for (const status of ['paying', 'paid', 'failed'])
        expect(await step(status)).toEqual({
          status: 409,
          body: { error: 'chain_payouts_only', message: messageOf('chain_payouts_only') },
        });
      expect((await step('failed', 'not-the-operator-token-0123456789')).status).toBe(401);
      const listed = await fetch(`${service.poolNodeUrl!}/withdrawals`, {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      expect(listed.status).toBe(200);
      await service.payoutSender!.pass();
      await minedFrom(chain, payout.address);
      const report = await service.payoutSender!.pass();
      expect(report.decided).toEqual([{ withdrawalId: id, status: 'paid' }]);
      expect(await tokenBalance(chain, f.token, to)).toBe(42_000n);
      expect(await service.ledger.state()).toMatchObject({
        paidOutTotal: '42000',
        refundedTotal: '0',
      });
      const metrics = await (await fetch(service.metricsUrl!)).text();
      expect(metrics).toContain('priv_stark_payout_sender_active 1');
      expect(metrics).toContain('priv_stark_payouts_total{status="paid"} 1');
      const health = (await (await fetch(`${service.facilitatorUrl}/health`)).json()) as {
        chain: { keys: { role: string; address: string }[] };
      };
      expect(health.chain.keys).toContainEqual(
        expect.objectContaining({ role: 'payout', address: payout.address }),
      );
    } finally {
      await store.close();
      await service.close();
    }
  });

  it('refuses an exit it could never pay before anything is spent: unpayable_destination', async () => {
    const chain = sharedChain();
    const service = await startService(
      config([`acceptor=${acceptor.file}`, `payout=${payout.file}`]),
      () => undefined,
    );
    try {
      const someone = freshAddress();
      const exitTo = (destination: string) =>
        fetch(`${service.poolNodeUrl}/transitions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            scheme: SCHEME,
            network: service.ledger.network,
            root: randomDigest(),
            nullifiers: [randomDigest(), randomDigest()],
            outputs: [randomDigest(), randomDigest()],
            memo: ['1', '2'],
            refund: randomDigest(),
            exit: '1000',
            destination,
            expiry: Math.floor(Date.now() / 1000) + 60,
            proof: Buffer.from('not a proof').toString('base64'),
          }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error: string } }));
      for (const destination of [
        `eip155:8453:${someone}`,
        caip10(chain, f.escrow),
        caip10(chain, f.token),
        'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
      ])
        expect(await exitTo(destination)).toEqual({
          status: 400,
          body: {
            error: 'unpayable_destination',
            message:
              'the pool pays exits only to accounts on its own chain (eip155:<chain id>:<address>)',
          },
        });
      // The twin: an account on this chain passes that check (and meets the next one).
      const payable = await exitTo(caip10(chain, someone));
      expect(payable.body.error).not.toBe('unpayable_destination');
      expect(payable.status).toBeGreaterThanOrEqual(400);
      expect(payable.status).toBeLessThan(500);
      expect((await service.ledger.state()).withdrawnTotal).toBe('0');
    } finally {
      await service.close();
    }
  });

  it('twin: the devnet pool node still takes the payout steps by hand', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-payout-devnet-'));
    dirs.push(dataDir);
    const core = await loadCore();
    const store = await openStore(core, { dataDir });
    const node = await buildPoolNode({
      ledger: new Ledger({ core, store }),
      operatorToken: OPERATOR_TOKEN,
      logger: false,
    });
    try {
      await node.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(node.server.address() as { port: number }).port}`;
      const id = await seedWithdrawal(store, caip10(sharedChain(), freshAddress()), 5_000n);
      expect(await stepByHand(url, id, 'paying', OPERATOR_TOKEN)).toMatchObject({
        status: 200,
        body: { withdrawalId: id, status: 'paying' },
      });
      const failed = await stepByHand(url, id, 'failed', OPERATOR_TOKEN);
      expect(failed).toMatchObject({ status: 200, body: { status: 'failed' } });
      expect(failed.body.refundIndex).toEqual(expect.any(Number));
      expect((await store.state()).refundedTotal).toBe('5000');
    } finally {
      await node.close();
      await store.close();
    }
  });

  it('runs no sender without the payout key', async () => {
    const service = await startService(config([`acceptor=${acceptor.file}`]), () => undefined);
    try {
      expect(service.payoutSender).toBeNull();
    } finally {
      await service.close();
    }
  });

  it('refuses to start with a payout setting out of its range', async () => {
    process.env.PAYOUT_DEADLINE_SECONDS = '5';
    const start = startService(
      config([`acceptor=${acceptor.file}`, `payout=${payout.file}`]),
      () => undefined,
    );
    await expect(start).rejects.toBeInstanceOf(ServiceConfigError);
    await expect(start).rejects.toThrow('PAYOUT_DEADLINE_SECONDS');
  });
});
