// `priv-stark chain deploy` and `chain mint` on real nodes (the shared anvil, and a node of its own
// serving chain 8453 for the refusals off a local chain), in this process as main.ts runs them:
// deploy prints one JSON line whose escrow holds the token it names, with the parameters and roles
// asked, on chain; mint moves the test token, in atomic units or whole tokens; every bad flag
// exits 2 with one line and no stack trace, every refusal exits 1 — minting or deploying without
// a token off a local chain, a development key off it, a key file others may read.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chainCommand } from '../../src/cli/chain.js';
import { privStarkEscrowAbi, testUsdcAbi } from '../../src/chain/contract-artifacts.js';
import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';
import { connect } from '../../testkit/chain.js';
import { sharedChain } from './shared.js';

const chain = sharedChain();
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-chain-cli-'));
const key = generatePrivateKey();
const deployer = privateKeyToAccount(key);
const keyFile = join(dir, 'deployer.key');
let base: LocalNode;

beforeAll(async () => {
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  await chain.test.setBalance({ address: deployer.address, value: 10n ** 20n });
  base = await startLocalNode({ chainId: 8453, accounts: 1 });
}, 60_000);

afterAll(async () => {
  await base?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await chainCommand(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

const read = <T>(
  address: Address,
  abi: readonly unknown[],
  functionName: string,
  args: unknown[] = [],
) => chain.public.readContract({ address, abi, functionName, args } as never) as Promise<T>;

describe('chain deploy', () => {
  it('--two-key-payouts: the escrow requires proofs, for good (read back from the contract)', async () => {
    const { code, out } = await run(
      'deploy',
      '--rpc',
      chain.url,
      '--key-file',
      keyFile,
      '--two-key-payouts',
      '--json',
    );
    expect(code).toBe(0);
    const line = JSON.parse(out[0]!) as { escrow: Address; twoKeyPayouts: boolean };
    expect(line.twoKeyPayouts).toBe(true);
    expect(await read(line.escrow, privStarkEscrowAbi, 'twoKeyPayouts')).toBe(true);
  });

  it('deploys the test token and the escrow on chain 31337, with the parameters and roles asked, and prints one JSON line', async () => {
    const acceptor = privateKeyToAccount(generatePrivateKey()).address;
    const attester = privateKeyToAccount(generatePrivateKey()).address;
    const { code, out, err } = await run(
      'deploy',
      '--rpc',
      chain.url,
      '--key-file',
      keyFile,
      '--min-deposit',
      '0.05',
      '--payout-cap-per-day',
      '2500',
      '--reclaim-delay',
      '172800',
      '--acceptor',
      acceptor,
      '--attester',
      attester,
      '--json',
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const line = JSON.parse(out[0]!) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual([
      'chainId',
      'escrow',
      'token',
      'deployBlock',
      'twoKeyPayouts',
    ]);
    expect(line.chainId).toBe(31337);
    expect(line.twoKeyPayouts).toBe(false);
    const escrow = line.escrow as Address;
    expect(escrow).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await read(escrow, privStarkEscrowAbi, 'token')).toBe(line.token);
    expect(await read(escrow, privStarkEscrowAbi, 'minDeposit')).toBe(50_000n);
    expect(await read(escrow, privStarkEscrowAbi, 'payoutCapPerDay')).toBe(2500n);
    expect(await read(escrow, privStarkEscrowAbi, 'reclaimDelay')).toBe(172_800n);
    const role = await read(escrow, privStarkEscrowAbi, 'ACCEPTOR_ROLE');
    expect(await read(escrow, privStarkEscrowAbi, 'hasRole', [role, acceptor])).toBe(true);
    const attesting = await read(escrow, privStarkEscrowAbi, 'ATTESTER_ROLE');
    expect(await read(escrow, privStarkEscrowAbi, 'hasRole', [attesting, attester])).toBe(true);
    // Each address holds the role it was given, no other.
    expect(await read(escrow, privStarkEscrowAbi, 'hasRole', [attesting, acceptor])).toBe(false);
    expect(await read(escrow, privStarkEscrowAbi, 'defaultAdmin')).toBe(deployer.address);
    expect(await read(line.token as Address, testUsdcAbi, 'name')).toBe('USD Coin');
    const deployedCode = await chain.public.getCode({
      address: escrow,
      blockNumber: BigInt(line.deployBlock as number),
    });
    expect(deployedCode).not.toBe('0x');
    // Must-fail twin: a block before the deployment holds no escrow.
    expect(
      await chain.public.getCode({
        address: escrow,
        blockNumber: BigInt(line.deployBlock as number) - 1n,
      }),
    ).toBeUndefined();
  });

  it('deploys over a token named with --token (no test token), and refuses one without code', async () => {
    const first = await run('deploy', '--rpc', chain.url, '--key-file', keyFile, '--json');
    const token = (JSON.parse(first.out[0]!) as { token: Address }).token;
    const second = await run(
      'deploy',
      '--rpc',
      chain.url,
      '--key-file',
      keyFile,
      '--token',
      token,
      '--json',
    );
    expect(second.code).toBe(0);
    expect((JSON.parse(second.out[0]!) as { token: string }).token).toBe(token);
    const none = await run(
      'deploy',
      '--rpc',
      chain.url,
      '--key-file',
      keyFile,
      '--token',
      `0x${'12'.repeat(20)}`,
    );
    expect(none.code).toBe(1);
    expect(none.err.join('\n')).toMatch(
      /^priv-stark chain deploy: token_not_contract: no contract at 0x1212/,
    );
  });

  it('refuses off a local chain: no --token, a published development key', async () => {
    const other = connect(base.url);
    await other.test.setBalance({ address: deployer.address, value: 10n ** 20n });
    const noToken = await run('deploy', '--rpc', base.url, '--key-file', keyFile);
    expect(noToken.code).toBe(1);
    expect(noToken.err.join()).toMatch(/token_required: chain 8453 is not a local chain/);
    const devFile = join(dir, 'dev.key');
    writeFileSync(devFile, '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', {
      mode: 0o600,
    });
    const dev = await run(
      'deploy',
      '--rpc',
      base.url,
      '--key-file',
      devFile,
      '--token',
      `0x${'12'.repeat(20)}`,
    );
    expect(dev.code).toBe(1);
    expect(dev.err.join()).toMatch(/key_development/);
    // Twin: on chain 31337 the development key deploys.
    await chain.test.setBalance({
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      value: 10n ** 20n,
    });
    expect((await run('deploy', '--rpc', chain.url, '--key-file', devFile)).code).toBe(0);
  });
});

describe('chain mint', () => {
  it('mints atomic units or whole tokens (6 decimals read from the token) to an address', async () => {
    const deployed = await run('deploy', '--rpc', chain.url, '--key-file', keyFile, '--json');
    const token = (JSON.parse(deployed.out[0]!) as { token: Address }).token;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const whole = await run(
      'mint',
      '--rpc',
      chain.url,
      '--token',
      token,
      '--to',
      to,
      '--amount',
      '10.00',
      '--json',
    );
    expect(whole.err).toEqual([]);
    expect(JSON.parse(whole.out[0]!)).toMatchObject({ to, amount: '10000000' });
    expect(await read(token, testUsdcAbi, 'balanceOf', [to])).toBe(10_000_000n);
    const atomic = await run(
      'mint',
      '--rpc',
      chain.url,
      '--token',
      token,
      '--to',
      to,
      '--amount',
      '5',
      '--key-file',
      keyFile,
    );
    expect(atomic.code).toBe(0);
    expect(await read(token, testUsdcAbi, 'balanceOf', [to])).toBe(10_000_005n);
    // More fractional digits than the token has: exit 2, nothing minted.
    const fine = await run(
      'mint',
      '--rpc',
      chain.url,
      '--token',
      token,
      '--to',
      to,
      '--amount',
      '1.0000001',
    );
    expect(fine.code).toBe(2);
    expect(fine.err.join()).toMatch(/has 7 digits after the point; the token has 6 decimals/);
    expect(await read(token, testUsdcAbi, 'balanceOf', [to])).toBe(10_000_005n);
  });

  it('is refused (exit 1) on any chain but 31337', async () => {
    const refused = await run(
      'mint',
      '--rpc',
      base.url,
      '--token',
      `0x${'12'.repeat(20)}`,
      '--to',
      deployer.address,
      '--amount',
      '1',
    );
    expect(refused.code).toBe(1);
    expect(refused.err.join()).toMatch(/local_chain_only: .*chain 8453/);
  });
});

describe('hostile flags', () => {
  it('exit 2 with one line and no stack trace; an exposed key file exits 1', async () => {
    const exposed = join(dir, 'exposed.key');
    writeFileSync(exposed, key);
    chmodSync(exposed, 0o644);
    const cases: [string[], number, RegExp][] = [
      [['deploy', '--key-file', keyFile], 2, /--rpc is required/],
      [['deploy', '--rpc', chain.url], 2, /--key-file is required/],
      [
        ['deploy', '--rpc', 'file:///etc/passwd', '--key-file', keyFile],
        2,
        /--rpc expects an http\(s\) URL/,
      ],
      [
        ['deploy', '--rpc', 'not a url', '--key-file', keyFile],
        2,
        /--rpc expects an http\(s\) URL/,
      ],
      [
        ['deploy', '--rpc', chain.url, '--key-file', keyFile, '--token', '0xabc'],
        2,
        /--token expects an address/,
      ],
      [
        ['deploy', '--rpc', chain.url, '--key-file', keyFile, '--min-deposit', '1,5'],
        2,
        /--min-deposit expects atomic units/,
      ],
      [
        ['deploy', '--rpc', chain.url, '--key-file', keyFile, '--min-deposit', '0'],
        2,
        /more than zero/,
      ],
      [
        ['deploy', '--rpc', chain.url, '--key-file', keyFile, '--confirmations', 'x'],
        2,
        /--confirmations expects/,
      ],
      [
        ['deploy', '--rpc', chain.url, '--key-file', keyFile, '--reclaim-delay', '99999999999'],
        2,
        /--reclaim-delay expects/,
      ],
      [
        ['deploy', '--rpc', chain.url, '--key-file', keyFile, '--bogus'],
        2,
        /Unknown option '--bogus'/,
      ],
      [['deploy', '--rpc', 'http://127.0.0.1:9', '--key-file', keyFile], 2, /rpc_unreachable/],
      [
        ['deploy', '--rpc', chain.url, '--key-file', join(dir, 'missing.key')],
        1,
        /key_file_unreadable/,
      ],
      [['deploy', '--rpc', chain.url, '--key-file', exposed], 1, /key_file_exposed/],
      [
        ['mint', '--rpc', chain.url, '--token', deployer.address, '--to', 'x', '--amount', '1'],
        2,
        /--to expects an address/,
      ],
      [
        [
          'mint',
          '--rpc',
          chain.url,
          '--token',
          deployer.address,
          '--to',
          deployer.address,
          '--amount',
          '1e6',
        ],
        2,
        /--amount expects/,
      ],
      [
        ['mint', '--rpc', chain.url, '--token', deployer.address, '--to', deployer.address],
        2,
        /--amount is required/,
      ],
      [['nothing'], 2, /usage/],
    ];
    for (const [argv, status, message] of cases) {
      const { code, out, err } = await run(...argv);
      const text = err.join('\n');
      expect(code, `${argv.join(' ')}: ${text}`).toBe(status);
      expect(text, argv.join(' ')).toMatch(message);
      expect(text, argv.join(' ')).not.toMatch(/\n\s+at /);
      expect(out, argv.join(' ')).toEqual([]);
    }
  });
});
