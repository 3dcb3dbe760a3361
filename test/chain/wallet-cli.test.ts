// `priv-stark wallet` in a chain pool, in this process as main.ts runs it, against the service
// on the shared node (test/chain/chain-stack.ts), balances read on chain before and after:
// deposit by signature (whole tokens, the relayer's fee shown and paid) and --direct; a fee above
// --max-fee and an amount with more fractional digits than the token has refused (exit 1, exit 2)
// with nothing signed, moved or issued; an exposed key file refused; the deposits shielded and
// spendable; an exit that links back to a deposit (its amount, the funding account) refused without
// --yes and made with it; exit --wait printing the payout's transaction once the USDC arrived, and
// saying so (exit 1) once the refund note is back when the payout failed (a blacklisted account);
// reclaim of a declined deposit by signature through the relayer; verify-backing before and after the
// pool's first attestation; and on the devnet, deposit still
// prints the ticket (whole tokens accepted).

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Address, type Hex, parseEventLogs } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { walletCommand } from '../../src/cli/wallet.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { Ledger, openStore } from '../../src/ledger/index.js';
import { buildPoolNode, PoolNodeClient } from '../../src/pool-node/index.js';
import { paidEvents } from '../../testkit/payouts.js';
import { type ChainStack, chainStack } from './chain-stack.js';
import { balances } from './relay-harness.js';
import { escrowCall, tokenCall } from './shared.js';

const FEE = 1_000n;
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-wallet-cli-'));
let core: PrivStarkCore;
let stack: ChainStack;

beforeAll(async () => {
  core = await loadCore();
  stack = await chainStack({ fee: FEE, attester: true });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `priv-stark wallet …` with the chain stack's pool and RPC. */
async function wallet(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const [sub, ...rest] = argv;
  const status = await walletCommand(
    [sub!, ...rest],
    { out: (l) => out.push(l), err: (l) => err.push(l) },
    { POOL_URL: stack.poolUrl, CHAIN_RPC_URL: stack.f.chain.url, ...env },
  );
  return { status, out, err: err.join('\n') };
}

/** A key file (mode 0600) of a fresh EVM account holding `usdc` of the token and `eth` wei. */
async function evmAccount(
  usdc: bigint,
  eth = 0n,
): Promise<{ account: PrivateKeyAccount; file: string }> {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const file = join(dir, `${account.address}.key`);
  writeFileSync(file, key, { mode: 0o600 });
  await stack.f.chain.test.setBalance({ address: account.address, value: eth });
  if (usdc > 0n) await tokenCall(stack.f, stack.f.admin, 'mint', [account.address, usdc]);
  return { account, file };
}

const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

describe('wallet deposit in a chain pool', () => {
  const path = () => join(dir, 'agent.wallet');
  let payer: { account: PrivateKeyAccount; file: string };
  let direct: { account: PrivateKeyAccount; file: string };

  beforeAll(async () => {
    expect((await wallet(['new', '--wallet', path()])).status).toBe(0);
    payer = await evmAccount(5_000_000n);
    direct = await evmAccount(5_000_000n, 10n ** 18n);
  });

  it('by signature: whole tokens, the relayer’s fee shown and paid, one JSON line', async () => {
    const before = await balances(stack.f, payer.account.address, stack.f.escrow, stack.operator);
    const run = await wallet([
      'deposit',
      '--wallet',
      path(),
      '--amount',
      '1.50',
      '--evm-key-file',
      payer.file,
      '--max-fee',
      '0.001',
      '--json',
    ]);
    expect(run.err).toBe('');
    expect(run.status).toBe(0);
    expect(run.out).toHaveLength(1);
    const line = JSON.parse(run.out[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      amount: '1500000',
      fee: '1000',
      depositor: payer.account.address,
      path: 'relayed',
      mined: true,
      already: false,
    });
    expect(await balances(stack.f, payer.account.address, stack.f.escrow, stack.operator)).toEqual([
      before[0]! - 1_501_000n,
      before[1]! + 1_500_000n,
      before[2]! + FEE,
    ]);
    // The transaction is the escrow's deposit of that index.
    const receipt = await stack.f.chain.public.getTransactionReceipt({
      hash: line.transaction as `0x${string}`,
    });
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Deposited',
    });
    expect(Number(event!.args.index)).toBe(line.deposit);
  });

  it('refuses a fee above --max-fee (exit 1) and an amount finer than the token (exit 2): nothing signed, moved or issued', async () => {
    const before = await balances(stack.f, payer.account.address, stack.f.escrow);
    const tickets = (await wallet(['tickets', '--wallet', path(), '--no-sync'])).out;
    const high = await wallet([
      'deposit',
      '--wallet',
      path(),
      '--amount',
      '1',
      '--evm-key-file',
      payer.file,
      '--max-fee',
      '999',
    ]);
    expect(high.status).toBe(1);
    expect(high.err).toMatch(
      /fee_above_max: the relayer's fee is 1000 atomic units, above the 999 accepted/,
    );
    const noMax = await wallet([
      'deposit',
      '--wallet',
      path(),
      '--amount',
      '1',
      '--evm-key-file',
      payer.file,
    ]);
    expect(noMax.status).toBe(1);
    expect(noMax.err).toMatch(/fee_above_max/);
    const zero = await wallet([
      'deposit',
      '--wallet',
      path(),
      '--amount',
      '1',
      '--evm-key-file',
      payer.file,
      '--max-fee',
      '0.00',
    ]);
    expect(zero.err).toMatch(
      /fee_above_max: the relayer's fee is 1000 atomic units, above the 0 accepted/,
    );
    for (const amount of ['1.0000001', '0.1234567', '1.5.5', 'abc', '-1', '0', '0.000000']) {
      const bad = await wallet([
        'deposit',
        '--wallet',
        path(),
        '--amount',
        amount,
        '--evm-key-file',
        payer.file,
        '--max-fee',
        '1',
      ]);
      expect(bad.status, `${amount}: ${bad.err}`).toBe(2);
      expect(bad.err, amount).not.toMatch(/\n\s+at .*:\d+:\d+\)?$/m);
    }
    expect(
      (
        await wallet([
          'deposit',
          '--wallet',
          path(),
          '--amount',
          '1.0000001',
          '--evm-key-file',
          payer.file,
        ])
      ).err,
    ).toMatch(/has 7 digits after the point; the token has 6 decimals/);
    expect(await balances(stack.f, payer.account.address, stack.f.escrow)).toEqual(before);
    expect((await wallet(['tickets', '--wallet', path(), '--no-sync'])).out).toEqual(tickets);
  });

  it('refuses a key file others may read, a missing --evm-key-file, a missing --chain-rpc', async () => {
    const exposed = join(dir, 'exposed.key');
    writeFileSync(exposed, generatePrivateKey());
    chmodSync(exposed, 0o644);
    const run = await wallet([
      'deposit',
      '--wallet',
      path(),
      '--amount',
      '1',
      '--evm-key-file',
      exposed,
    ]);
    expect(run.status).toBe(1);
    expect(run.err).toMatch(/key_file_exposed/);
    expect((await wallet(['deposit', '--wallet', path(), '--amount', '1'])).status).toBe(2);
    const noRpc = await walletCommand(
      ['deposit', '--wallet', path(), '--amount', '1', '--evm-key-file', payer.file],
      { out: () => undefined, err: () => undefined },
      { POOL_URL: stack.poolUrl },
    );
    expect(noRpc).toBe(2);
    // The key file from the environment.
    const env = await wallet(['deposit', '--wallet', path(), '--amount', '1', '--max-fee', '999'], {
      PRIV_STARK_EVM_KEY_FILE: payer.file,
    });
    expect(env.err).toMatch(/fee_above_max/);
  });

  it('--direct: the account’s own approve and deposit, no fee', async () => {
    const before = await balances(stack.f, direct.account.address, stack.f.escrow, stack.operator);
    const run = await wallet([
      'deposit',
      '--wallet',
      path(),
      '--amount',
      '2.00',
      '--evm-key-file',
      direct.file,
      '--direct',
    ]);
    expect(run.status, run.err).toBe(0);
    expect(run.out.join('\n')).toMatch(
      /deposited 2000000 atomic units \(2\) from 0x[0-9a-fA-F]{40} directly/,
    );
    expect(await balances(stack.f, direct.account.address, stack.f.escrow, stack.operator)).toEqual(
      [before[0]! - 2_000_000n, before[1]! + 2_000_000n, before[2]!],
    );
  });

  it('verify-backing: exit 1 before the first attestation, then 0 with the attested root in the wallet’s tree', async () => {
    await stack.shieldAll();
    const before = await wallet(['verify-backing', '--wallet', path(), '--json']);
    expect(before.status).toBe(1);
    expect(JSON.parse(before.out[0]!)).toMatchObject({ ok: false, problems: ['not_attested'] });
    const posted = await new PoolNodeClient(stack.poolUrl, {
      token: 'chain-stack-operator-token-0123456789',
    }).attest();
    const after = await wallet(['verify-backing', '--wallet', path()]);
    expect(after.status).toBe(0);
    expect(after.out[0]).toBe(
      `backed: checkpoint ${posted.seq} attested on chain with root ${posted.root}, which the wallet's own tree gives at size ${(await stack.service.ledger.publishedState()).checkpoint!.size}`,
    );
    expect(after.out.some((l) => l.startsWith('cannot show: '))).toBe(true);
  });

  it('the deposits are shielded; an exit linking back to them needs --yes; exit --wait prints the payout once the USDC arrived', async () => {
    await stack.shieldAll();
    const balance = await wallet(['balance', '--wallet', path(), '--json']);
    expect(JSON.parse(balance.out[0]!)).toMatchObject({ total: '3500000' });
    // To the account that funded a deposit, and of a deposit's amount: refused, nothing spent.
    const home = await wallet([
      'exit',
      '--wallet',
      path(),
      '--to',
      `eip155:31337:${payer.account.address}`,
      '--amount',
      '0.25',
    ]);
    expect(home.status).toBe(1);
    expect(home.err).toMatch(/warning: funding_address: the destination 0x/);
    expect(home.err).toMatch(/exit_linkable: .*--yes/);
    const same = await wallet([
      'exit',
      '--wallet',
      path(),
      '--to',
      `eip155:31337:${fresh()}`,
      '--amount',
      '1.5',
    ]);
    expect(same.status).toBe(1);
    expect(same.err).toMatch(
      /warning: same_amount_as_deposit: the exit's amount, 1500000 atomic units/,
    );
    expect(
      JSON.parse((await wallet(['balance', '--wallet', path(), '--json'])).out[0]!),
    ).toMatchObject({
      total: '3500000',
    });
    // Another amount to another account: no warning, and --wait sees the payout on chain.
    const to = fresh();
    const waiting = wallet([
      'exit',
      '--wallet',
      path(),
      '--to',
      `eip155:31337:${to}`,
      '--amount',
      '0.25',
      '--wait',
      '--json',
      '--timeout-ms',
      '120000',
    ]);
    let done = false;
    void waiting.finally(() => {
      done = true;
    });
    while (!done) {
      await stack.payoutPass();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const exited = await waiting;
    expect(exited.err).toBe('');
    expect(exited.status).toBe(0);
    const line = JSON.parse(exited.out.at(-1)!) as Record<string, string>;
    expect(line).toMatchObject({ to, amount: '250000' });
    expect((await balances(stack.f, to as Address))[0]).toBe(250_000n);
    const receipt = await stack.f.chain.public.getTransactionReceipt({
      hash: line.payout as `0x${string}`,
    });
    const [paid] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Paid',
    });
    expect(paid!.args).toMatchObject({ withdrawalId: line.withdrawal, to, amount: 250_000n });
    // With --yes the linked exit goes ahead (its warning still said).
    const yes = await wallet([
      'exit',
      '--wallet',
      path(),
      '--to',
      `eip155:31337:${payer.account.address}`,
      '--amount',
      '0.5',
      '--yes',
    ]);
    expect(yes.status, yes.err).toBe(0);
    expect(yes.err).toMatch(/warning: funding_address/);
  });

  it('exit --wait says the payout failed once the refund note is back (exit 1), not at its timeout', async () => {
    // The token refuses this destination: the payout sender fails the exit and refunds it.
    const to = fresh();
    await tokenCall(stack.f, stack.f.admin, 'blacklist', [to]);
    const total = async () =>
      (
        JSON.parse((await wallet(['balance', '--wallet', path(), '--json'])).out[0]!) as {
          total: string;
        }
      ).total;
    // Every earlier exit in a checkpoint first, so the balance read now already counts them.
    await stack.service.ledger.checkpoint();
    const before = await total();
    const waiting = wallet([
      'exit',
      '--wallet',
      path(),
      '--to',
      `eip155:31337:${to}`,
      '--amount',
      '0.3',
      '--wait',
      '--json',
      '--timeout-ms',
      '120000',
    ]);
    let done = false;
    void waiting.finally(() => {
      done = true;
    });
    while (!done) {
      await stack.payoutPass();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const exited = await waiting;
    expect(exited.status).toBe(1);
    expect(exited.err).toMatch(
      /payout_failed: withdrawal 0x[0-9a-f]{64} was not paid; its 300000 atomic units are back in the wallet as refund note #\d+/,
    );
    const line = JSON.parse(exited.out.at(-1)!) as Record<string, unknown>;
    expect(line).toMatchObject({ refunded: '300000', refundIndex: expect.any(Number) });
    expect(await paidEvents(stack.f.chain, stack.f.escrow, line.withdrawal as Hex)).toEqual([]);
    expect((await balances(stack.f, to))[0]).toBe(0n);
    // The wallet holds what it held before the exit: the refund note replaced the exit's value.
    expect(await total()).toBe(before);
  });
});

describe('wallet reclaim in a chain pool', () => {
  it('takes a declined deposit back by signature through the relayer (the account holds no ETH)', async () => {
    const path = join(dir, 'reclaimer.wallet');
    expect((await wallet(['new', '--wallet', path])).status).toBe(0);
    const owner = await evmAccount(1_000_000n);
    const deposited = await wallet([
      'deposit',
      '--wallet',
      path,
      '--amount',
      '400000',
      '--evm-key-file',
      owner.file,
      '--max-fee',
      '1000',
      '--json',
    ]);
    expect(deposited.status, deposited.err).toBe(0);
    const index = (JSON.parse(deposited.out[0]!) as { deposit: number }).deposit;
    // Pending: not yet.
    const early = await wallet([
      'reclaim',
      '--wallet',
      path,
      '--deposit',
      String(index),
      '--evm-key-file',
      owner.file,
    ]);
    expect(early.status).toBe(1);
    expect(early.err).toMatch(/reclaim_too_early/);
    await escrowCall(stack.f, stack.f.acceptor, 'acceptDeposits', [[], [BigInt(index)]]);
    const before = await balances(stack.f, owner.account.address, stack.f.escrow);
    const run = await wallet([
      'reclaim',
      '--wallet',
      path,
      '--deposit',
      String(index),
      '--evm-key-file',
      owner.file,
      '--json',
    ]);
    expect(run.status, run.err).toBe(0);
    expect(JSON.parse(run.out[0]!)).toMatchObject({
      deposit: index,
      amount: '400000',
      via: 'relayed',
    });
    expect(await balances(stack.f, owner.account.address, stack.f.escrow)).toEqual([
      before[0]! + 400_000n,
      before[1]! - 400_000n,
    ]);
    const bad = await wallet([
      'reclaim',
      '--wallet',
      path,
      '--deposit',
      'x',
      '--evm-key-file',
      owner.file,
    ]);
    expect(bad.status).toBe(2);
  });
});

describe('wallet deposit on the devnet', () => {
  it('still prints the ticket for the operator, whole tokens accepted', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-devnet-'));
    const store = await openStore(core, { dataDir });
    const node = await buildPoolNode({
      ledger: new Ledger({ core, store }),
      operatorToken: 'devnet-operator-token-0123456789',
      logger: false,
    });
    try {
      const url = await node.listen({ port: 0, host: '127.0.0.1' });
      const path = join(dir, 'devnet.wallet');
      const env = { POOL_URL: url };
      expect((await wallet(['new', '--wallet', path], env)).status).toBe(0);
      const run = await wallet(['deposit', '--wallet', path, '--amount', '10.00'], env);
      expect(run.status, run.err).toBe(0);
      expect(run.out.join('\n')).toMatch(/operator: priv-stark deposit --amount 10000000 --pre 0x/);
      expect(
        (await wallet(['deposit', '--wallet', path, '--amount', '1.0000001'], env)).status,
      ).toBe(2);
    } finally {
      await node.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
