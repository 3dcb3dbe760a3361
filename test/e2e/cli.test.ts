// The wallet and pay commands as a user runs them (child processes of the built command)
// against the stack on loopback: `wallet new`, `wallet deposit` + the operator's `deposit`,
// `wallet balance`, `pay <url>` against a stock @x402/express merchant, `wallet payments`,
// `wallet new --sk` restoring the same balance, and `wallet tickets` / `deposit --reissue` at the
// recovery bound.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { loadCore } from '../../src/core/index.js';
import {
  expressMerchant,
  type Merchant,
  OPERATOR_TOKEN,
  type Stack,
  startStack,
} from '../../testkit/stack.js';
import { CLI_MAIN } from '../../testkit/cli-main.js';

const MAIN = CLI_MAIN;
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-cli-wallet-'));
let stack: Stack;
let merchant: Merchant;

function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      {
        encoding: 'utf8',
        env: { ...process.env, POOL_URL: stack.poolUrl, ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  const core = await loadCore();
  stack = await startStack(core);
  const merchantWallet = await Wallet.create({ core, pool: stack.poolUrl });
  merchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address);
});
afterAll(async () => {
  await merchant?.close();
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

// The four cases share nothing but the stack (each its own wallet file; the demo its own stack in
// its own process), so they run side by side: most of each is children starting and waiting.
describe.concurrent('priv-stark wallet and pay', () => {
  it('creates, funds, pays and restores a wallet from the command line', async ({ expect }) => {
    const file = join(dir, 'payer.wallet');
    const created = await cli(['wallet', 'new', '--wallet', file]);
    expect(created.status, created.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const address = (await cli(['wallet', 'address', '--wallet', file])).stdout.trim();
    expect(address).toMatch(/^pstark1/);
    expect(created.stdout).toContain(address);

    const ticket = await cli(['wallet', 'deposit', '--amount', '250000', '--wallet', file]);
    const pre = /pre (0x[0-9a-f]{64})/.exec(ticket.stdout)?.[1];
    expect(pre).toBeDefined();
    const deposit = await cli([
      'deposit',
      '--amount',
      '250000',
      '--pre',
      pre!,
      '--url',
      stack.poolUrl,
      '--token',
      OPERATOR_TOKEN,
    ]);
    expect(deposit.status, deposit.stderr).toBe(0);
    await stack.settle();

    const balance = await cli(['wallet', 'balance', '--json', '--wallet', file]);
    expect(JSON.parse(balance.stdout)).toEqual({
      spendable: '250000',
      pending: '0',
      unconfirmed: '0',
      total: '250000',
    });

    const paid = await cli(['pay', `${merchant.url}/weather`, '--wallet', file]);
    expect(paid.status, paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(/HTTP 200/);
    expect(paid.stdout).toContain('"weather":"sunny"');
    expect(paid.stdout).toMatch(/settlement \(merchant's claim\): .*"success":true/);
    expect(paid.stdout).toMatch(/pool: payment settled \(transaction 0x[0-9a-f]{64}\)/);

    await stack.settle();
    const after = JSON.parse((await cli(['wallet', 'balance', '--json', '--wallet', file])).stdout);
    expect(after.total).toBe('240000');
    expect((await cli(['wallet', 'payments', '--wallet', file])).stdout).toMatch(
      /^settled\s+10000 to pstark1/m,
    );

    // Restore from the spending key alone.
    const { spendingKey } = await Wallet.open({
      core: await loadCore(),
      pool: stack.poolUrl,
      path: file,
    });
    const restoredFile = join(dir, 'restored.wallet');
    expect(
      (await cli(['wallet', 'new', '--sk', spendingKey, '--wallet', restoredFile])).status,
    ).toBe(0);
    expect(
      JSON.parse((await cli(['wallet', 'balance', '--json', '--wallet', restoredFile])).stdout),
    ).toEqual(after);
  });

  it('lists open deposit tickets, re-issues one unchanged, and syncs once at the bound', async ({
    expect,
  }) => {
    const file = join(dir, 'tickets.wallet');
    const core = await loadCore();
    const wallet = await Wallet.create({ core, pool: stack.poolUrl, path: file });
    const tickets = [];
    for (let i = 0; i < 8; i++) tickets.push(await wallet.depositTicket(String(1000 + i)));

    const listed = await cli(['wallet', 'tickets', '--no-sync', '--wallet', file]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(8);
    expect(listed.stdout).toContain(`#3 1003 atomic units, pre ${tickets[3]!.pre}`);
    const again = await cli(['wallet', 'deposit', '--reissue', '3', '--wallet', file]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain(`pre ${tickets[3]!.pre}`);

    // Eight open, none shielded: even after a sync the ninth is refused, saying why.
    const refused = await cli(['wallet', 'deposit', '--amount', '5000', '--wallet', file]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/8 deposit tickets are issued and not yet seen shielded/);
    // The operator shields one: the command syncs, sees it, and hands out the next counter.
    await stack.operator.deposit(tickets[5]!.amount, tickets[5]!.pre);
    const next = await cli(['wallet', 'deposit', '--amount', '5000', '--wallet', file]);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/^deposit #8 of 5000 atomic units/m);
  });

  it('reports insufficient funds clearly and exits non-zero', async ({ expect }) => {
    const file = join(dir, 'empty.wallet');
    await cli(['wallet', 'new', '--wallet', file]);
    await cli(['wallet', 'sync', '--wallet', file]);
    const paid = await cli(['pay', `${merchant.url}/weather`, '--wallet', file]);
    expect(paid.status).not.toBe(0);
    expect(paid.stderr).toMatch(/no checkpoint|insufficient funds/);
  });

  it('priv-stark demo runs the whole flow in one process and exits 0', async ({ expect }) => {
    const run = await cli(['demo', '--payments', '2']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.match(/HTTP 200 \{"weather":"sunny","from":"merchant"\}/g)).toHaveLength(2);
    expect(run.stdout).toMatch(/payer 0\.28 dUSD · merchant 0\.02 dUSD/);
    expect(run.stdout).toMatch(/HTTP 200 \{"weather":"sunny","from":"second merchant"\}/);
    expect(run.stdout).toMatch(/merchant 0\.01 dUSD · second merchant 0\.01 dUSD/);
  });
});
