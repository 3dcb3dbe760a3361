/**
 * @module `priv-stark demo --chain`: the story with real transfers on a local chain, in one process
 * on loopback — anvil from the optional `@foundry-rs/anvil` (without it: exit 2 naming the
 * package), the escrow and the test token deployed from the committed bytecode (nothing compiled
 * now), the service as `priv-stark start --chain-rpc …` runs it (facilitator, pool node, deposit
 * watcher, payout sender, relayer). An agent whose EVM account holds test USDC and no ETH deposits
 * twice by signature through the relayer; the watcher accepts and shields the deposits; the agent
 * pays two stock x402 merchants privately; the first merchant exits what it received to its EVM
 * address, and the payout sender pays it there in USDC. Every step is printed with its timing; the
 * last line is one JSON line: `{"demo":"ok","rpc","token","escrow","merchantAddress","exitAmount"}`.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { x402ResourceServer } from '@x402/core/server';
import Fastify from 'fastify';
import type { Address, Hex } from 'viem';

import { payingFetch, settlementOf, Wallet } from '../client/index.js';
import { loadCore } from '../core/index.js';
import { NO_EPOCH_GRID, type NetworkProfile } from '../scheme/index.js';
import {
  PrivStarkFacilitatorClient,
  privStarkFastify,
  PrivStarkSchemeServer,
  privStarkRoutes,
} from '../server/index.js';
import { SERVICE_DEFAULTS, startService } from '../service/index.js';
import { createProgress, isLiveTerminal, type ProgressOutput } from './progress.js';

/** What the agent deposits, each time (0.10 USDC), what each merchant charges, the relayer's fee. */
const DEPOSIT = 100_000n;
const PRICE = '$0.01';
const RELAYER_FEE = 1_000n;

async function merchant(
  facilitatorUrl: string,
  apiKey: string,
  payTo: string,
  profile: NetworkProfile,
  name: string,
) {
  const app = Fastify({ logger: false });
  const server = new x402ResourceServer(
    new PrivStarkFacilitatorClient({ url: facilitatorUrl, apiKey }),
  ).register(
    profile.network as `${string}:${string}`,
    new PrivStarkSchemeServer({ networks: [profile] }),
  );
  await app.register(privStarkFastify, {
    routes: privStarkRoutes({
      'GET /weather': { payTo, price: PRICE, network: profile.network },
    }),
    server,
  });
  app.get('/weather', async () => ({ weather: 'sunny', from: name }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

/** Syncs `wallet` until it can spend `notes` notes of at least `value` (the pool shields and checkpoints them). */
async function spendable(wallet: Wallet, notes: number, value: bigint): Promise<void> {
  for (let i = 0; i < 600; i++) {
    await wallet.sync();
    const anchored = wallet.checkpoint?.size ?? 0;
    const ready = wallet.notes().filter((n) => n.index < anchored && BigInt(n.value) >= value);
    if (ready.length >= notes) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the wallet did not see ${notes} spendable notes`);
}

/**
 * The `demo --chain` command.
 * @returns the exit code: 0 done, 1 a step failed, 2 no local chain (the optional package missing)
 */
export async function chainDemo(
  output: ProgressOutput,
  env: Record<string, string | undefined>,
  errors: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  const { LocalNodeError, startLocalNode } = await import('../chain/local-node.js');
  const { step, note } = createProgress(output, isLiveTerminal(output, env));
  let node: Awaited<ReturnType<typeof startLocalNode>>;
  try {
    node = await step('local chain (anvil) listening', () => startLocalNode({ accounts: 1 }));
  } catch (error) {
    if (error instanceof LocalNodeError && error.code === 'anvil_missing') {
      errors(`priv-stark demo --chain: ${error.code}: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-chain-demo-'));
  const closers: (() => Promise<unknown>)[] = [() => node.stop()];
  try {
    return await story(node.url, dir, closers, { step, note, output });
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

type Steps = Pick<ReturnType<typeof createProgress>, 'step' | 'note'> & {
  readonly output: ProgressOutput;
};

/** The chain set up: keys, the escrow and the token, the agent's USDC. */
async function setUp(rpc: string, dir: string, { step, note }: Steps) {
  const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
  const { chainClients } = await import('../chain/rpc-client.js');
  const { deployEscrow, mintTestToken } = await import('../chain/deploy.js');
  const clients = chainClients(rpc);
  const fund = (address: Address) =>
    clients.public.request({
      method: 'anvil_setBalance',
      params: [address, '0x56bc75e2d63100000'],
    } as never);
  const deployer = privateKeyToAccount(generatePrivateKey());
  // One hot key per role, as docs/chain.md says to run them: a key shared by the relayer and the
  // watcher would have their sends race for one nonce sequence.
  const keys = {
    acceptor: generatePrivateKey() as Hex,
    payout: generatePrivateKey() as Hex,
    relayer: generatePrivateKey() as Hex,
  };
  const addressOf = {
    acceptor: privateKeyToAccount(keys.acceptor).address,
    payout: privateKeyToAccount(keys.payout).address,
    relayer: privateKeyToAccount(keys.relayer).address,
  };
  const agent = privateKeyToAccount(generatePrivateKey());
  const merchantAddress = privateKeyToAccount(generatePrivateKey()).address;
  await fund(deployer.address);
  for (const address of Object.values(addressOf)) await fund(address);
  const deployment = await step('escrow and test USDC deployed', () =>
    deployEscrow({
      clients,
      deployer,
      roles: { acceptor: addressOf.acceptor, payout: addressOf.payout },
      parameters: {
        adminDelay: 0,
        reclaimDelay: 86_400n,
        minDeposit: 10_000n,
        payoutCapPerDay: 10n ** 12n,
      },
    }),
  );
  note(`escrow ${deployment.escrow} · token ${deployment.token}`);
  await step('agent holds 1.00 USDC and no ETH', () =>
    mintTestToken({
      clients,
      token: deployment.token,
      to: agent.address,
      amount: 1_000_000n,
      minter: deployer,
    }),
  );
  const keyFiles = Object.entries(keys).map(([role, key]) => {
    const file = join(dir, `${role}.key`);
    writeFileSync(file, key, { mode: 0o600 });
    return `${role}=${file}`;
  });
  return { clients, deployment, agent, merchantAddress, keyFiles };
}

async function story(
  rpc: string,
  dir: string,
  closers: (() => Promise<unknown>)[],
  steps: Steps,
): Promise<number> {
  const { step, note, output } = steps;
  const chain = await setUp(rpc, dir, steps);
  const { deployment, agent, merchantAddress } = chain;
  const apiKey = randomBytes(24).toString('base64url');
  const core = await step('core loaded', () => loadCore());
  const service = await step('facilitator, pool node, watcher, payout sender, relayer', () =>
    startService(
      {
        ...SERVICE_DEFAULTS,
        // No epoch grid: the demo pays seconds after funding (a real pool anchors on 60 s epochs).
        epoch: NO_EPOCH_GRID,
        port: 0,
        poolPort: 0,
        dataDir: join(dir, 'pool'),
        logLevel: 'silent',
        checkpointIntervalMs: 250,
        apiKeys: apiKey,
        operatorToken: randomBytes(24).toString('base64url'),
        chain: {
          rpcUrl: rpc,
          escrow: deployment.escrow,
          keyFiles: chain.keyFiles,
          finality: { confirmations: 1 },
          pollIntervalMs: 250,
          relayerFee: RELAYER_FEE,
        },
      },
      () => undefined,
    ),
  );
  closers.push(() => service.close());
  const { chainNetworkProfile } = await import('../scheme/index.js');
  const profile = chainNetworkProfile(
    { chainId: deployment.chainId, escrow: deployment.escrow, token: deployment.token },
    6,
  );
  const pool = service.poolNodeUrl!;
  const wallet = () => Wallet.create({ core, pool, network: profile, minEpochMs: 1 });
  const [payer, shop, second] = [await wallet(), await wallet(), await wallet()];
  const { depositBySignature, waitForPayout } = await import('../client/chain.js');
  for (const n of [1, 2]) {
    const receipt = await step(`agent deposit ${n}: 0.10 USDC by signature, relayed`, () =>
      depositBySignature(payer, { account: agent, rpc, amount: DEPOSIT, maxFee: RELAYER_FEE }),
    );
    note(
      `escrow deposit #${receipt.depositIndex} · relayer's fee ${receipt.fee} · tx ${receipt.transaction?.slice(0, 18)}…`,
    );
  }
  await step('deposits accepted and shielded; the agent can spend them', () =>
    spendable(payer, 2, DEPOSIT),
  );
  const m1 = await merchant(service.facilitatorUrl!, apiKey, shop.address, profile, 'merchant');
  const m2 = await merchant(
    service.facilitatorUrl!,
    apiKey,
    second.address,
    profile,
    'second merchant',
  );
  closers.push(m1.close, m2.close);
  const pay = payingFetch(payer);
  for (const [name, url] of [
    ['merchant', m1.url],
    ['second merchant', m2.url],
  ] as const) {
    const response = await step(`agent pays the ${name}: GET ${url}/weather`, () =>
      pay(`${url}/weather`),
    );
    note(
      `HTTP ${response.status} ${await response.text()} · settlement ${settlementOf(response)?.transaction.slice(0, 18) ?? '-'}…`,
    );
    if (!response.ok) return 1;
  }
  await step('merchant sees the payment spendable', () => spendable(shop, 1, 1n));
  const exitAmount = shop.balance().total;
  const destination = `eip155:${deployment.chainId}:${merchantAddress}`;
  const fromBlock = await chain.clients.public.getBlockNumber();
  const exit = await step(`merchant exits ${exitAmount} atomic units to ${merchantAddress}`, () =>
    shop.exit(destination, exitAmount),
  );
  const paid = await step('payout sender pays the exit in USDC on chain', () =>
    waitForPayout({
      rpc,
      escrow: deployment.escrow,
      withdrawalId: exit.transaction,
      fromBlock,
      timeoutMs: 60_000,
      pollMs: 250,
    }),
  );
  const { testUsdcAbi } = await import('../chain/contract-artifacts.js');
  const received = await chain.clients.public.readContract({
    address: deployment.token,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [merchantAddress],
  });
  note(
    `payout tx ${paid?.transaction ?? '(none)'} · ${merchantAddress} holds ${received} atomic units of USDC`,
  );
  if (paid === null || received !== exitAmount) return 1;
  output.write(
    `${JSON.stringify({
      demo: 'ok',
      rpc,
      token: deployment.token,
      escrow: deployment.escrow,
      merchantAddress,
      exitAmount: exitAmount.toString(),
    })}\n`,
  );
  return 0;
}
