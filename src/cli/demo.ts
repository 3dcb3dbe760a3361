/**
 * @module `priv-stark demo`: the whole flow in one process on loopback — a facilitator and the
 * devnet pool node (as `priv-stark start` runs them, in a temporary data directory), a paywalled
 * merchant (Fastify with the priv-stark plugin, on Fastify's defaults: payments are compact), a
 * payer funded through the pool node, several paid requests through the stock `@x402/fetch`, then
 * the merchant spending what it received at a second merchant. Every step is printed with its timing; on a terminal each step
 * is shown live while it runs (see `./progress.ts`). `--chain`: the same story on a local chain with
 * real USDC transfers (`./demo-chain.ts`).
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { x402ResourceServer } from '@x402/core/server';
import Fastify from 'fastify';

import { DEPOSIT_GAP, payingFetch, settlementOf, Wallet } from '../client/index.js';
import { loadCore, type PrivStarkCore } from '../core/index.js';
import { PoolNodeClient } from '../pool-node/client.js';
import { DEVNET_NETWORK, NO_EPOCH_GRID } from '../scheme/index.js';
import {
  PrivStarkFacilitatorClient,
  privStarkFastify,
  PrivStarkSchemeServer,
  privStarkRoutes,
} from '../server/index.js';
import { SERVICE_DEFAULTS, startService } from '../service/index.js';
import { createProgress, isLiveTerminal, type ProgressOutput } from './progress.js';
import { formatUnits } from './wallet.js';

async function merchant(facilitatorUrl: string, apiKey: string, payTo: string, name: string) {
  const app = Fastify({ logger: false });
  const server = new x402ResourceServer(
    new PrivStarkFacilitatorClient({ url: facilitatorUrl, apiKey }),
  ).register(DEVNET_NETWORK.network as `${string}:${string}`, new PrivStarkSchemeServer());
  await app.register(privStarkFastify, {
    routes: privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01' } }),
    server,
  });
  app.get('/weather', async () => ({ weather: 'sunny', from: name }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

/**
 * The `demo` command.
 * @param output where the steps go (default stdout; drawn live when it is a terminal)
 * @returns the exit code
 */
export async function demoCommand(
  argv: string[],
  output: ProgressOutput = process.stdout,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { payments: { type: 'string' }, chain: { type: 'boolean' } },
    strict: true,
  });
  // On a local chain with real transfers (viem and the chain code load only then).
  if (values.chain) return (await import('./demo-chain.js')).chainDemo(output, env);
  const payments = Math.max(1, Math.min(50, Number(values.payments ?? 3)));
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-demo-'));
  const apiKey = randomBytes(24).toString('base64url');
  const operatorToken = randomBytes(24).toString('base64url');
  const { step, note } = createProgress(output, isLiveTerminal(output, env));
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const core: PrivStarkCore = await step('core loaded', () => loadCore());
    const service = await step('facilitator and pool node listening', () =>
      startService(
        {
          ...SERVICE_DEFAULTS,
          // No epoch grid: the demo pays seconds after funding (a real pool anchors on 60 s epochs).
          epoch: NO_EPOCH_GRID,
          port: 0,
          poolPort: 0,
          dataDir: dir,
          logLevel: 'silent',
          checkpointIntervalMs: 250,
          apiKeys: apiKey,
          operatorToken,
        },
        () => undefined,
      ),
    );
    closers.push(() => service.close());
    const poolUrl = service.poolNodeUrl!;
    const operator = new PoolNodeClient(poolUrl, { token: operatorToken });
    const confirm = async (...wallets: Wallet[]) => {
      // The ledger's own head: the pool node shows what a checkpoint published, no more.
      const size = (await service.ledger.state()).size;
      while (((await operator.state()).checkpoint?.size ?? 0) < size)
        await new Promise((r) => setTimeout(r, 50));
      for (const w of wallets) await w.sync();
    };
    const payer = await Wallet.create({ core, pool: poolUrl, minEpochMs: 1 });
    const shop = await Wallet.create({ core, pool: poolUrl, minEpochMs: 1 });
    const second = await Wallet.create({ core, pool: poolUrl, minEpochMs: 1 });
    const m1 = await step(`merchant on Fastify, paid to ${shop.address.slice(0, 24)}…`, () =>
      merchant(service.facilitatorUrl!, apiKey, shop.address, 'merchant'),
    );
    closers.push(m1.close);
    await step(`payer funded with ${payments + 1} notes of 0.1 dUSD`, async () => {
      for (let i = 0; i <= payments; i++) {
        // Seen shielded first: a wallet has at most DEPOSIT_GAP tickets open (docs/client.md,
        // "Recovery"), and the public log shows a deposit once a checkpoint covers it.
        if (payer.openTickets().length >= DEPOSIT_GAP) await confirm(payer);
        const ticket = await payer.depositTicket('100000');
        await operator.deposit(ticket.amount, ticket.pre);
      }
      await confirm(payer);
    });
    const pay = payingFetch(payer);
    for (let i = 1; i <= payments; i++) {
      const response = await step(`payment ${i}: GET ${m1.url}/weather`, () =>
        pay(`${m1.url}/weather`),
      );
      const settlement = settlementOf(response);
      note(
        `HTTP ${response.status} ${await response.text()} · transaction ${settlement?.transaction.slice(0, 18) ?? '-'}…`,
      );
    }
    await step('pool log read: payments settled', () => confirm(payer, shop));
    note(
      `payer ${formatUnits(payer.balance().total)} dUSD · merchant ${formatUnits(shop.balance().total)} dUSD`,
    );
    const m2 = await step('second merchant listening', () =>
      merchant(service.facilitatorUrl!, apiKey, second.address, 'second merchant'),
    );
    closers.push(m2.close);
    const onward = await step('merchant pays the second merchant with what it received', () =>
      payingFetch(shop)(`${m2.url}/weather`),
    );
    note(`HTTP ${onward.status} ${await onward.text()}`);
    await step('pool log read', () => confirm(shop, second));
    note(
      `merchant ${formatUnits(shop.balance().total)} dUSD · second merchant ${formatUnits(second.balance().total)} dUSD`,
    );
    return payer.payments().every((p) => p.status === 'settled') && onward.ok ? 0 : 1;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
