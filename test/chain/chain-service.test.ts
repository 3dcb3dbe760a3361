// A chain pool as the service runs it (in-process, the shared node): its network id and asset
// are the chain's and /health names the chain, escrow and token; the watcher shields a real
// deposit; POST /deposit is refused with chain_deposits_only; the metrics export the lag and the
// hot keys' gas. It refuses to start — a ServiceConfigError the command turns into exit 2 — on an
// RPC of another chain, an escrow with no code, another token, a store bound to another escrow or
// holding the devnet's ledger, an exposed key file, no acceptor key; and a facilitator alone
// starts with no key present and reads none.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { OPERATOR_KEY_ENV } from '../../src/chain/keys.js';
import { noteCommitment } from '../../src/ledger/index.js';
import { chainAssetId, chainNetworkId, NO_EPOCH_GRID } from '../../src/scheme/index.js';
import {
  type RunningService,
  SERVICE_DEFAULTS,
  type ServiceConfig,
  ServiceConfigError,
  startService,
} from '../../src/service/index.js';
import type { Chain } from '../../testkit/chain.js';
import {
  depositDirect,
  depositor,
  type EscrowFixture,
  escrowFixture,
  sharedChain,
  tickets,
} from './shared.js';
import { acceptorKey, keyFileOf } from './watcher-harness.js';

const TOKEN = 'chain-service-operator-token-0123';
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-chain-service-'));
  dirs.push(dir);
  return dir;
}

function config(
  f: EscrowFixture,
  overrides: Partial<ServiceConfig> = {},
  chain: Partial<NonNullable<ServiceConfig['chain']>> = {},
): ServiceConfig {
  return {
    ...SERVICE_DEFAULTS,
    epoch: NO_EPOCH_GRID,
    port: 0,
    poolPort: 0,
    dataDir: tempDir(),
    logLevel: 'silent',
    insecureNoAuth: true,
    verifyThreads: 0,
    operatorToken: TOKEN,
    ...overrides,
    chain: {
      rpcUrl: f.chain.url,
      escrow: f.escrow,
      keyFiles: [],
      finality: { confirmations: 10 },
      pollIntervalMs: 0,
      ...chain,
    },
  };
}

async function refusal(promise: Promise<RunningService>): Promise<string> {
  try {
    const service = await promise;
    await service.close();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the service to refuse to start');
}

describe('a chain pool in the service', () => {
  let chain: Chain;
  let f: EscrowFixture;
  let acceptor: { file: string; address: Hex };

  beforeAll(async () => {
    chain = sharedChain();
    f = await escrowFixture(chain);
    acceptor = await acceptorKey(f);
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the chain’s network, names what backs it, shields a deposit, refuses POST /deposit', async () => {
    const service = await startService(
      config(f, { metricsPort: 0 }, { keyFiles: [`acceptor=${acceptor.file}`] }),
      () => undefined,
    );
    try {
      const network = chainNetworkId(31337, f.escrow);
      const health = (await (await fetch(`${service.facilitatorUrl}/health`)).json()) as Record<
        string,
        unknown
      >;
      expect(health.networks).toEqual([
        {
          network,
          asset: chainAssetId(31337, f.token),
          decimals: 6,
          chain: { chainId: 31337, escrow: f.escrow, token: f.token },
        },
      ]);
      expect(health.chain).toMatchObject({
        status: 'starting',
        chainId: 31337,
        escrow: f.escrow,
        token: f.token,
        finality: '10 confirmations',
      });
      const refused = await fetch(`${service.poolNodeUrl}/deposit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '1000', pre: `0x${'00'.repeat(32)}` }),
      });
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ error: 'chain_deposits_only' });
      // Twin: without the token it is the usual 401, before anything else.
      const anonymous = await fetch(`${service.poolNodeUrl}/deposit`, { method: 'POST' });
      expect(anonymous.status).toBe(401);

      const [ticket] = await tickets([7_000n]);
      const payer = await depositor(f, 7_000n);
      await depositDirect(f, payer, ticket!.amount, ticket!.pre);
      const watcher = service.depositWatcher!;
      await chain.test.mine({ blocks: 10 });
      await watcher.poll();
      await chain.test.mine({ blocks: 10 });
      await watcher.poll();
      expect(await service.ledger.leaves(0, 10)).toEqual([
        noteCommitment(service.core, ticket!.amount, ticket!.pre),
      ]);
      const state = (await (await fetch(`${service.poolNodeUrl}/state`)).json()) as {
        network: string;
      };
      expect(state.network).toBe(network);
      const after = (await (await fetch(`${service.facilitatorUrl}/health`)).json()) as {
        chain: { status: string; keys: unknown[]; deposits: Record<string, number> };
      };
      expect(after.chain.status).toBe('ok');
      // The pool node's own /health says the same (for a pool node run alone).
      const nodeHealth = (await (await fetch(`${service.poolNodeUrl}/health`)).json()) as {
        status: string;
        chain: unknown;
      };
      expect(nodeHealth).toMatchObject({
        status: 'ok',
        chain: { status: 'ok', escrow: f.escrow, deposits: { shielded: 1 } },
      });
      expect(after.chain.deposits.shielded).toBe(1);
      expect(after.chain.keys).toEqual([
        expect.objectContaining({ role: 'acceptor', address: acceptor.address, sufficient: true }),
      ]);
      const metrics = await (await fetch(service.metricsUrl!)).text();
      expect(metrics).toMatch(/^priv_stark_chain_lag_blocks 0$/m);
      expect(metrics).toMatch(/^priv_stark_chain_status\{status="ok"\} 1$/m);
      expect(metrics).toMatch(/^priv_stark_chain_deposits\{state="shielded"\} 1$/m);
      expect(metrics).toMatch(/^priv_stark_chain_gas_below_minimum\{role="acceptor"\} 0$/m);
      expect(metrics).toMatch(/^priv_stark_chain_gas_balance_wei\{role="acceptor"\} [1-9]/m);
      // The key's address is on /health only.
      expect(metrics).not.toContain(acceptor.address);
    } finally {
      await service.close();
    }
  });

  it('refuses an RPC of another chain, an escrow with no code, another token', async () => {
    const keyFiles = [`acceptor=${acceptor.file}`];
    expect(await refusal(startService(config(f, {}, { keyFiles, chainId: 8453 })))).toMatch(
      /^chain_id_mismatch: the RPC serves chain 31337, not chain 8453/,
    );
    const nowhere = privateKeyToAccount(generatePrivateKey()).address;
    expect(await refusal(startService(config(f, {}, { keyFiles, escrow: nowhere })))).toMatch(
      /^escrow_missing: no contract at/,
    );
    // A contract that is not an escrow (the token itself).
    expect(await refusal(startService(config(f, {}, { keyFiles, escrow: f.token })))).toMatch(
      /^escrow_missing: .* is not an escrow/,
    );
    expect(await refusal(startService(config(f, {}, { keyFiles, token: nowhere })))).toMatch(
      /^token_mismatch: the escrow .* holds/,
    );
  });

  it('refuses a store bound to another escrow, the devnet on a chain store, a chain on the devnet’s', async () => {
    const keyFiles = [`acceptor=${acceptor.file}`];
    const dataDir = tempDir();
    const first = await startService(config(f, { dataDir }, { keyFiles }), () => undefined);
    await first.close();
    const other = await escrowFixture(chain);
    expect(
      await refusal(startService(config(other, { dataDir }, { keyFiles }), () => undefined)),
    ).toMatch(/^binding_mismatch: the store backs the pool of escrow/);
    const devnet = { ...config(f, { dataDir }), chain: undefined };
    expect(await refusal(startService(devnet, () => undefined))).toMatch(
      /^binding_mismatch: .*start it with --chain-rpc/,
    );
    // A devnet store that has a deposit.
    const devnetDir = tempDir();
    const running = await startService({ ...devnet, dataDir: devnetDir }, () => undefined);
    // Twin: the devnet pool node's /health has no chain.
    expect(await (await fetch(`${running.poolNodeUrl}/health`)).json()).not.toHaveProperty('chain');
    const [ticket] = await tickets([1_000n]);
    expect((await running.ledger.deposit({ amount: '1000', pre: ticket!.pre })).ok).toBe(true);
    await running.close();
    expect(
      await refusal(startService(config(f, { dataDir: devnetDir }, { keyFiles }), () => undefined)),
    ).toMatch(/^binding_mismatch: the store holds a devnet pool/);
  });

  it('refuses an exposed key file and a pool node without the acceptor key', async () => {
    const exposed = keyFileOf(generatePrivateKey(), 0o644);
    expect(
      await refusal(startService(config(f, {}, { keyFiles: [exposed] }), () => undefined)),
    ).toMatch(/^key_file_exposed: key file .* may be read by group or others \(mode 0644\)/);
    expect(
      await refusal(
        startService(config(f, {}, { keyFiles: [`payout=${acceptor.file}`] }), () => undefined),
      ),
    ).toMatch(/needs the acceptor key/);
  });

  it('a facilitator alone starts with no key present and reads none', async () => {
    const key = generatePrivateKey();
    process.env[OPERATOR_KEY_ENV] = key;
    try {
      // Key files that do not exist and a key in the environment: none of them is read.
      const service = await startService(
        config(f, { poolNode: false }, { keyFiles: [join(tempDir(), 'no-such-key')] }),
        () => undefined,
      );
      try {
        expect(service.poolNodeUrl).toBeNull();
        expect(service.depositWatcher).toBeNull();
        const health = (await (await fetch(`${service.facilitatorUrl}/health`)).json()) as {
          networks: { network: string }[];
          chain?: unknown;
        };
        expect(health.networks[0]?.network).toBe(chainNetworkId(31337, f.escrow));
        expect(health.chain).toBeUndefined();
        expect(process.env[OPERATOR_KEY_ENV]).toBe(key);
      } finally {
        await service.close();
      }
      // Twin: the pool node's instance takes the key out of the environment.
      const node = await startService(config(f, { facilitator: false }), () => undefined);
      await node.close();
      expect(process.env[OPERATOR_KEY_ENV]).toBeUndefined();
    } finally {
      delete process.env[OPERATOR_KEY_ENV];
    }
  });
});
