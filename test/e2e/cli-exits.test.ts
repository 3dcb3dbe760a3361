// `priv-stark wallet merge | split --private | exit` and the operator's `priv-stark pool
// withdrawals | payout`, as a user runs them (child processes of the built command) against
// the stack on loopback: a private split and a merge keep the wallet's total; an exit to a
// checksummed account leaves the change, the operator lists it and pays it out once (a second
// `paid` answers the same, `failed` after it is refused, exit 1); another exit fails its payout and
// the refund comes back to the wallet. Twins: an unchecksummed address (exit 2, nothing leaves), a
// split part below the minimum (exit 1), a payout without the operator token (exit 2).

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { walletCommand } from '../../src/cli/wallet.js';
import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { OPERATOR_TOKEN, type Stack, startStack } from '../../testkit/stack.js';
import { CLI_MAIN } from '../../testkit/cli-main.js';

const MAIN = CLI_MAIN;
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-cli-exits-'));
const ALICE = 'eip155:8453:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let core: PrivStarkCore;
let stack: Stack;
const carol = join(dir, 'carol.wallet');

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      {
        encoding: 'utf8',
        env: {
          ...process.env,
          POOL_URL: stack.poolUrl,
          POOL_OPERATOR_TOKEN: '',
          DATA_DIR: dir,
          ...env,
        },
        timeout: 90_000,
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The wallet file's balance after a checkpoint (in this process: `walletCommand`, as main.ts runs it). */
async function balance(): Promise<{ spendable: string; total: string }> {
  await stack.settle();
  const out: string[] = [];
  const status = await walletCommand(
    ['balance', '--json', '--wallet', carol],
    { out: (l) => out.push(l), err: () => undefined },
    { POOL_URL: stack.poolUrl },
  );
  expect(status).toBe(0);
  return JSON.parse(out.join('\n'));
}

beforeAll(async () => {
  core = await loadCore();
  stack = await startStack(core);
  const w = await stack.wallet({ path: carol });
  await stack.fund(w, '1000000');
}, 120_000);
afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('priv-stark wallet merge | split --private', () => {
  it('splits privately and merges back, the total unchanged; a part below the minimum is refused', async () => {
    const small = await cli(['wallet', 'split', '--private', '--amount', '999', '--wallet', carol]);
    expect(small.status, small.stderr).toBe(1);
    expect(small.stderr).toMatch(/unpayable_requirements|at least 1000/);
    const split = await cli([
      'wallet',
      'split',
      '--private',
      '--amount',
      '300000',
      '--wallet',
      carol,
    ]);
    expect(split.status, split.stderr).toBe(0);
    expect(split.stdout).toMatch(/^transaction 0x[0-9a-f]{64}$/m);
    await stack.settle();
    const wallet = await Wallet.open({ core, pool: stack.poolUrl, path: carol });
    await stack.settle(wallet);
    expect(
      wallet
        .notes()
        .filter((n) => !n.spent)
        .map((n) => n.value)
        .sort(),
    ).toEqual(['300000', '700000']);
    const merged = await cli(['wallet', 'merge', '--wallet', carol]);
    expect(merged.status, merged.stderr).toBe(0);
    expect(await balance()).toMatchObject({ total: '1000000' });
  }, 180_000);
});

describe('priv-stark wallet exit and pool withdrawals | payout', () => {
  it('exits to an account, the operator pays it once; a failed payout refunds the wallet', async () => {
    const bad = await cli([
      'wallet',
      'exit',
      '--to',
      ALICE.toLowerCase(),
      '--amount',
      '1000',
      '--wallet',
      carol,
    ]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('EIP-55');
    expect(await balance()).toMatchObject({ total: '1000000' });

    const exited = await cli([
      'wallet',
      'exit',
      '--to',
      ALICE,
      '--amount',
      '250000',
      '--wallet',
      carol,
    ]);
    expect(exited.status, exited.stderr).toBe(0);
    const id = /^withdrawal (0x[0-9a-f]{64})/m.exec(exited.stdout)?.[1];
    expect(id).toBeDefined();
    expect(await balance()).toMatchObject({ total: '750000' });

    const op = { POOL_OPERATOR_TOKEN: OPERATOR_TOKEN };
    const noToken = await cli(['pool', 'payout', id!, 'paying']);
    expect(noToken.status).toBe(2);
    const listed = await cli(['pool', 'withdrawals'], op);
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).withdrawals).toEqual([
      expect.objectContaining({
        withdrawalId: id,
        amount: '250000',
        destination: ALICE,
        status: null,
      }),
    ]);
    for (const step of ['paying', 'paid', 'paid']) {
      const run = await cli(['pool', 'payout', id!, step], op);
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: step });
    }
    const late = await cli(['pool', 'payout', id!, 'failed'], op);
    expect(late.status).toBe(1);
    expect(late.stderr).toContain('payout_conflict');

    const second = await cli([
      'wallet',
      'exit',
      '--to',
      ALICE,
      '--amount',
      '50000',
      '--wallet',
      carol,
    ]);
    const id2 = /^withdrawal (0x[0-9a-f]{64})/m.exec(second.stdout)?.[1];
    expect(await balance()).toMatchObject({ total: '700000' });
    await cli(['pool', 'payout', id2!, 'paying'], op);
    const failed = await cli(['pool', 'payout', id2!, 'failed'], op);
    expect(failed.status, failed.stderr).toBe(0);
    expect(JSON.parse(failed.stdout).refundIndex).toBeGreaterThan(0);
    expect(await balance()).toMatchObject({ total: '750000' });
    const state = await cli(['pool', 'state']);
    expect(JSON.parse(state.stdout)).toMatchObject({
      withdrawnTotal: '300000',
      paidOutTotal: '250000',
      refundedTotal: '50000',
    });
  }, 300_000);
});
