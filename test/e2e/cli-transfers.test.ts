// `priv-stark wallet transfer | split | ready` as a user runs them (child processes of the built
// command) against the stack on loopback: a transfer between two wallet files (the recipient's
// balance reads it; the twin: more than the wallet holds → insufficient_funds, exit 1), a split of a
// note (two notes, same total; the twins: no note larger than the amount, a named note of exactly
// the amount, an unknown note), `ready` reaching its count (the twin: a wallet holding too little
// times out, exit 1). Refusals are one line with their stable code and exit 1 — wallet_behind on a
// pool whose next checkpoint is an hour away, pool_unreachable with no pool listening; bad flags
// exit 2 and leave the wallet file as it was (the many flag cases through `walletCommand` in this
// process, one per command through a child).

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { walletCommand } from '../../src/cli/wallet.js';
import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { PoolNodeClient } from '../../src/pool-node/index.js';
import { type RunningService, SERVICE_DEFAULTS, startService } from '../../src/service/index.js';
import { NO_EPOCH_GRID } from '../../src/scheme/index.js';
import { OPERATOR_TOKEN, type Stack, startStack } from '../../testkit/stack.js';
import { CLI_MAIN } from '../../testkit/cli-main.js';

const MAIN = CLI_MAIN;
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-cli-transfers-'));
let core: PrivStarkCore;
let stack: Stack;
const alice = join(dir, 'alice.wallet');
const bob = join(dir, 'bob.wallet');
let bobAddress: string;

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
        env: { ...process.env, POOL_URL: stack.poolUrl, ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The command in this process (the same `walletCommand` main.ts runs), for the many flag cases: a
 * child each would spend seconds starting; one case per command goes through a child too.
 */
async function inProcess(args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await walletCommand(
    args.slice(1),
    { out: (l) => out.push(l), err: (l) => err.push(l) },
    { POOL_URL: stack.poolUrl },
  );
  return { status, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** The wallet file's notes after a sync, once a checkpoint covers every leaf. */
async function notesOf(path: string) {
  const wallet = await Wallet.open({ core, pool: stack.poolUrl, path });
  await stack.settle(wallet);
  return {
    wallet,
    values: wallet
      .notes()
      .map((n) => BigInt(n.value))
      .sort((a, b) => (a < b ? -1 : 1)),
  };
}

beforeAll(async () => {
  core = await loadCore();
  stack = await startStack(core);
  const a = await stack.wallet({ path: alice });
  await stack.fund(a, '1000000');
  bobAddress = (await stack.wallet({ path: bob })).address;
}, 120_000);
afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('priv-stark wallet transfer', () => {
  it('moves value between two wallet files through the pool node and prints the transaction', async () => {
    const sent = await cli([
      'wallet',
      'transfer',
      '--to',
      bobAddress,
      '--amount',
      '150000',
      '--wallet',
      alice,
    ]);
    expect(sent.status, sent.stderr).toBe(0);
    expect(sent.stdout).toContain(`transferred 150000 atomic units (0.15 dUSD) to ${bobAddress}`);
    const tx = /^transaction (0x[0-9a-f]{64})$/m.exec(sent.stdout)?.[1];
    expect(tx).toBeDefined();
    expect(sent.stdout).toMatch(/^leaves: recipient #\d+, change #\d+/m);

    await stack.settle();
    // Two wallet files, two children at once (each starts in about a second of CPU).
    const [received, left] = await Promise.all([
      cli(['wallet', 'balance', '--json', '--wallet', bob]),
      cli(['wallet', 'balance', '--json', '--wallet', alice]),
    ]);
    expect(JSON.parse(received.stdout)).toMatchObject({ spendable: '150000', total: '150000' });
    expect(JSON.parse(left.stdout)).toMatchObject({ spendable: '850000', total: '850000' });
    // The sender's record is the settled transfer, with the pool's transaction.
    const payments = await cli(['wallet', 'payments', '--wallet', alice]);
    expect(payments.stdout).toMatch(
      new RegExp(`^settled\\s+150000 to pstark1.* priv-stark:pool-transfer .* tx ${tx}$`, 'm'),
    );
  });

  it('the twin: more than the wallet holds is refused with insufficient_funds, exit 1, nothing moved', async () => {
    const refused = await cli([
      'wallet',
      'transfer',
      '--to',
      bobAddress,
      '--amount',
      '150001',
      '--wallet',
      bob,
    ]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /^priv-stark wallet transfer: insufficient_funds: insufficient funds/,
    );
    expect(refused.stdout).toBe('');
    const balance = await cli(['wallet', 'balance', '--json', '--wallet', bob]);
    expect(JSON.parse(balance.stdout).total).toBe('150000');
    expect((await cli(['wallet', 'payments', '--wallet', bob])).stdout).toBe('');
  });

  it('a pool node that does not answer: pool_unreachable, exit 1', async () => {
    const refused = await cli(
      ['wallet', 'transfer', '--to', bobAddress, '--amount', '1000', '--wallet', bob],
      { POOL_URL: 'http://127.0.0.1:9' },
    );
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^priv-stark wallet transfer: pool_unreachable: /);
  });

  it('bad flags exit 2 and touch nothing', async () => {
    const before = readFileSync(bob, 'utf8');
    const cases: [string[], RegExp][] = [
      [['--amount', '1000'], /--to is required/],
      [['--to', 'pstark1nonsense', '--amount', '1000'], /--to expects a shielded address/],
      [['--to', bobAddress], /--amount is required/],
      [['--to', bobAddress, '--amount', '0'], /--amount expects decimal atomic units/],
      [['--to', bobAddress, '--amount', '01'], /--amount expects decimal atomic units/],
      [['--to', bobAddress, '--amount', '1.5'], /--amount expects decimal atomic units/],
      [['--to', bobAddress, '--amount', '4611686018427387904'], /below 2\^62/],
      [['--to', bobAddress, '--amount', '1000', '--note', '0x12'], /--note expects/],
      [['--to', bobAddress, '--amount', '1000', '--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [flags, message] of cases) {
      const run = await inProcess(['wallet', 'transfer', ...flags, '--wallet', bob]);
      expect(run.status, flags.join(' ')).toBe(2);
      expect(run.stderr, flags.join(' ')).toMatch(message);
    }
    // The flag refusal never opens the wallet file: its child runs beside the one that does.
    const [child, largest] = await Promise.all([
      cli(['wallet', 'transfer', ...cases[3]![0], '--wallet', bob]),
      // The largest amount there is passes the flag check (and is then refused by the wallet).
      cli([
        'wallet',
        'transfer',
        '--to',
        bobAddress,
        '--amount',
        '4611686018427387903',
        '--wallet',
        bob,
      ]),
    ]);
    expect(child.status).toBe(2);
    expect(child.stderr).toMatch(
      /^priv-stark wallet transfer: --amount expects decimal atomic units/,
    );
    expect(largest.status).toBe(1);
    expect(largest.stderr).toMatch(/insufficient_funds/);
    expect(readFileSync(bob, 'utf8')).toBe(before);
  });
});

describe('priv-stark wallet split', () => {
  it("splits the smallest note holding more than the amount into two of the wallet's own", async () => {
    const split = await cli([
      'wallet',
      'split',
      '--transparent',
      '--amount',
      '100000',
      '--wallet',
      alice,
    ]);
    expect(split.status, split.stderr).toBe(0);
    expect(split.stdout).toMatch(/^split note 0x[0-9a-f]{64} into 100000 \+ 750000 atomic units$/m);
    expect(split.stdout).toMatch(/^transaction 0x[0-9a-f]{64}$/m);
    const { values } = await notesOf(alice);
    expect(values).toEqual([100_000n, 750_000n]);
  });

  // The next two run side by side: one works on alice's file, the other on a pool and a file of
  // its own (a service start and two children that would otherwise wait their turn).
  it.concurrent('the twins: no note larger than the amount, a named note of exactly the amount, an unknown note', async ({
    expect,
  }) => {
    const { wallet } = await notesOf(alice);
    const small = wallet.notes().find((n) => n.value === '100000')!;
    const none = await cli([
      'wallet',
      'split',
      '--transparent',
      '--amount',
      '750000',
      '--wallet',
      alice,
    ]);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(
      /^priv-stark wallet split: insufficient_funds: a split of 750000 atomic units needs a spendable note holding more than that; the largest holds 750000$/m,
    );
    const exact = await cli([
      'wallet',
      'split',
      '--transparent',
      '--amount',
      '100000',
      '--note',
      small.commitment,
      '--wallet',
      alice,
    ]);
    expect(exact.status).toBe(1);
    expect(exact.stderr).toMatch(/insufficient_funds: the note holds 100000 atomic units/);
    const unknown = await cli([
      'wallet',
      'split',
      '--transparent',
      '--amount',
      '1000',
      '--note',
      `0x${'ab'.repeat(32)}`,
      '--wallet',
      alice,
    ]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(
      /^priv-stark wallet split: unpayable_requirements: no such unspent/,
    );
    // Nothing moved.
    expect((await notesOf(alice)).values).toEqual([100_000n, 750_000n]);
    // And the named note splits once the amount is below it.
    const named = await cli([
      'wallet',
      'split',
      '--transparent',
      '--amount',
      '40000',
      '--note',
      small.commitment,
      '--wallet',
      alice,
    ]);
    expect(named.status, named.stderr).toBe(0);
    expect(named.stdout).toContain(
      `split note ${small.commitment} into 40000 + 60000 atomic units`,
    );
    expect((await notesOf(alice)).values).toEqual([40_000n, 60_000n, 750_000n]);
  });

  it.concurrent('a note not in a checkpoint yet: wallet_behind, exit 1 (a pool whose next checkpoint is an hour away)', async ({
    expect,
  }) => {
    const data = mkdtempSync(join(dir, 'slow-'));
    const slow: RunningService = await startService(
      {
        ...SERVICE_DEFAULTS,
        epoch: NO_EPOCH_GRID,
        port: 0,
        poolPort: 0,
        dataDir: data,
        logLevel: 'silent',
        checkpointIntervalMs: 3_600_000,
        apiKeys: 'slow-api-key-0123456789abcdef',
        operatorToken: OPERATOR_TOKEN,
      },
      () => undefined,
    );
    try {
      const poolUrl = slow.poolNodeUrl!;
      const file = join(dir, 'slow.wallet');
      const wallet = await Wallet.create({ core, pool: poolUrl, path: file });
      const ticket = await wallet.depositTicket('500000');
      await new PoolNodeClient(poolUrl, { token: OPERATOR_TOKEN }).deposit(
        ticket.amount,
        ticket.pre,
      );
      for (const args of [
        ['split', '--transparent', '--amount', '1000'],
        ['transfer', '--to', bobAddress, '--amount', '1000'],
      ]) {
        const run = await cli(['wallet', ...args, '--wallet', file], { POOL_URL: poolUrl });
        expect(run.status, run.stderr).toBe(1);
        expect(run.stderr).toMatch(new RegExp(`^priv-stark wallet ${args[0]}: wallet_behind: `));
      }
    } finally {
      await slow.close();
      rmSync(data, { recursive: true, force: true });
    }
  });
});

// Side by side: `ready` on alice's file proves its splits while the twin on bob's waits out its
// timeout, and the flag cases never open a wallet file.
describe('priv-stark wallet ready', () => {
  it.concurrent('splits until the wallet holds the count of ready notes, printing progress, then exits 0', async ({
    expect,
  }) => {
    const run = await cli([
      'wallet',
      'ready',
      '--count',
      '8',
      '--value',
      '50000',
      '--wallet',
      alice,
    ]);
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ready \d+ of 8, \d+ more waiting for a checkpoint/);
    expect(lines.filter((l) => l.startsWith('ready ')).length).toBeGreaterThan(1);
    const final = /^(\d+) ready notes of at least 50000 atomic units \(wanted 8\)$/.exec(
      lines.at(-1)!,
    );
    expect(Number(final?.[1])).toBeGreaterThanOrEqual(8);
    // The splits kept the value in the wallet: same total, at least eight notes of 50000 or more.
    const { wallet, values } = await notesOf(alice);
    expect(values.reduce((a, b) => a + b, 0n)).toBe(850_000n);
    expect(values.filter((v) => v >= 50_000n).length).toBeGreaterThanOrEqual(8);
    expect(wallet.payments().filter((p) => p.status === 'pending')).toEqual([]);
    // Already there: a second run splits nothing.
    const again = await cli([
      'wallet',
      'ready',
      '--count',
      '8',
      '--value',
      '50000',
      '--wallet',
      alice,
    ]);
    expect(again.status, again.stderr).toBe(0);
    expect((await notesOf(alice)).values).toEqual(values);
  });

  it.concurrent('the twin: a wallet holding too little for the count times out, exit 1 with the message', async ({
    expect,
  }) => {
    const run = await cli([
      'wallet',
      'ready',
      '--count',
      '4',
      '--value',
      '100000',
      '--timeout-ms',
      '3000',
      '--wallet',
      bob,
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^priv-stark wallet ready: 1 of 4 ready notes after 3000 ms: the wallet holds too little, or the pool does not answer$/m,
    );
    expect(run.stdout).not.toMatch(/ready notes of at least/);
  });

  it.concurrent('bad flags of split and ready exit 2', async ({ expect }) => {
    for (const [flags, message] of [
      [[], /--amount is required/],
      [['--amount', '99999999999999999999'], /--amount expects decimal atomic units/],
      [['--amount', '1000', '--note', `0x${'AB'.repeat(32)}`], /--note expects/],
    ] as [string[], RegExp][]) {
      const run = await inProcess(['wallet', 'split', '--transparent', ...flags, '--wallet', bob]);
      expect(run.status, flags.join(' ')).toBe(2);
      expect(run.stderr, flags.join(' ')).toMatch(message);
    }
    const cases: [string[], RegExp][] = [
      [['--value', '1000'], /--count is required/],
      [['--count', '8'], /--value is required/],
      [['--count', '0', '--value', '1000'], /--count expects a positive integer at most 64/],
      [['--count', '65', '--value', '1000'], /at most 64/],
      [['--count', 'eight', '--value', '1000'], /--count expects/],
      [['--count', '8', '--value=-5'], /--value expects decimal atomic units/],
      [
        ['--count', '8', '--value', '1000', '--timeout-ms', '1.5'],
        /--timeout-ms expects a positive integer/,
      ],
      [
        ['--count', '8', '--value', '1000', '--timeout-ms', '0'],
        /--timeout-ms expects a positive integer/,
      ],
    ];
    for (const [flags, message] of cases) {
      const run = await inProcess(['wallet', 'ready', ...flags, '--wallet', bob]);
      expect(run.status, flags.join(' ')).toBe(2);
      expect(run.stderr, flags.join(' ')).toMatch(message);
    }
    const child = await cli(['wallet', 'ready', ...cases[3]![0], '--wallet', bob]);
    expect(child.status).toBe(2);
    expect(child.stderr).toMatch(
      /^priv-stark wallet ready: --count expects a positive integer at most 64/,
    );
  });
});
