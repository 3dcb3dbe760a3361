// `priv-stark pool serve` with a chain on a node of its own on chain 84532 (Base Sepolia's id),
// since the development keys are refused on any chain but 31337: the real command exits 2 with a
// clear message for one of anvil's published keys (and never prints the key); with a fresh key
// the pool node starts.

import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Address, createPublicClient, createWalletClient, type Hex, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  privStarkEscrowAbi,
  privStarkEscrowBytecode,
  testUsdcAbi,
  testUsdcBytecode,
} from '../../src/chain/contract-artifacts.js';
import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';
import { chainOf } from '../../src/chain/rpc-client.js';
import { SERVICE_DEFAULTS, startService } from '../../src/service/index.js';
import { NO_EPOCH_GRID } from '../../src/scheme/index.js';
import { TEST_ESCROW_PARAMETERS, USDC_DOMAIN } from '../../testkit/chain.js';
import { CLI_MAIN } from '../../testkit/cli-main.js';

const MAIN = CLI_MAIN;
const CHAIN_ID = 84532;
/** anvil's account 0: its key is published with the development mnemonic. */
const DEVELOPMENT_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

let node: LocalNode;
let escrow: Address;
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-chain-start-'));

function keyFile(name: string, key: Hex): string {
  const path = join(dir, name);
  writeFileSync(path, key, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** Deploys the test token and an escrow on the node, as anvil's funded account 0. */
async function deployEscrow(url: string): Promise<Address> {
  const chain = chainOf(CHAIN_ID, url);
  const account = privateKeyToAccount(DEVELOPMENT_KEY);
  const wallet = createWalletClient({ account, chain, transport: http(url) });
  const client = createPublicClient({ chain, transport: http(url) });
  const deployed = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return receipt.contractAddress!;
  };
  const token = await deployed(
    await wallet.deployContract({
      abi: testUsdcAbi,
      bytecode: testUsdcBytecode,
      args: [USDC_DOMAIN.name, 'USDC', USDC_DOMAIN.version, account.address],
    }),
  );
  const p = TEST_ESCROW_PARAMETERS;
  return deployed(
    await wallet.deployContract({
      abi: privStarkEscrowAbi,
      bytecode: privStarkEscrowBytecode,
      args: [
        token,
        account.address,
        p.adminDelay,
        p.reclaimDelay,
        p.minDeposit,
        p.payoutCapPerDay,
        false,
      ],
    }),
  );
}

/** Runs the command; resolves with its exit and output. */
function run(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, VERIFY_THREADS: '0', OPERATOR_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => resolve({ code, out }));
  });
}

function serve(extra: readonly string[]): string[] {
  return [
    'pool',
    'serve',
    '--port',
    '0',
    '--data-dir',
    mkdtempSync(join(dir, 'data-')),
    '--chain-rpc',
    node.url,
    ...extra,
  ];
}

describe('pool serve with a chain', () => {
  beforeAll(async () => {
    node = await startLocalNode({ chainId: CHAIN_ID, accounts: 1 });
    escrow = await deployEscrow(node.url);
  });
  afterAll(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 2 on one of anvil’s development keys on chain 84532', async () => {
    const { code, out } = await run(
      serve(['--escrow', escrow, '--operator-key-file', keyFile('dev.key', DEVELOPMENT_KEY)]),
    );
    expect(code).toBe(2);
    expect(out).toContain(
      "key_development: the acceptor key (0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266) is one of anvil's published development keys: refused on chain 84532",
    );
    expect(out).not.toContain(DEVELOPMENT_KEY.slice(2));
  });

  it('twin: with a fresh key the pool node starts on chain 84532', async () => {
    const service = await startService(
      {
        ...SERVICE_DEFAULTS,
        epoch: NO_EPOCH_GRID,
        facilitator: false,
        poolPort: 0,
        dataDir: mkdtempSync(join(dir, 'data-')),
        logLevel: 'silent',
        verifyThreads: 0,
        operatorToken: 'chain-start-operator-token-0123',
        chain: {
          rpcUrl: node.url,
          escrow,
          keyFiles: [keyFile('fresh.key', generatePrivateKey())],
          finality: { confirmations: 10 },
          pollIntervalMs: 0,
        },
      },
      () => undefined,
    );
    expect(service.depositWatcher?.backing.chainId).toBe(CHAIN_ID);
    await service.close();
  });
});
