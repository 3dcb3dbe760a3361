// Ready notes in the MCP server: `--ready-notes COUNTxVALUE` parsed (fast-check: whatever it
// accepts prints back as given, within the bounds; anything else is refused), `priv-stark mcp` with a
// malformed value (flag or PRIV_STARK_READY_NOTES) exits 2 before touching anything, and with a good
// one keeps the count over a funded wallet file and stops on SIGTERM with nothing in the spend
// ledger; over stdio, a count it cannot reach does not keep it alive once stdin closes. In process, against the real service and stock @x402/express merchants: an agent whose
// wallet a keeper (the server's own `keepReadyNotes`) keeps ready pays four merchants at once and
// more back to back, the ledger counting the payments only, never the splits; the twin without a
// keeper pays one of four. A reservation a crashed run left for the wallet's own address is never
// linked to a real split on restart.

import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { keepReadyNotes, parseReadyNotes } from '../../src/cli/mcp.js';
import {
  InsufficientFundsError,
  READY_NOTES_MAX,
  Wallet,
  WalletBehindError,
} from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { LedgerFile, PaymentAgent, type PaidView, PolicyFile } from '../../src/mcp/index.js';
import { TRANSFER_RESOURCE_ID } from '../../src/scheme/index.js';
import {
  expressMerchant,
  type Merchant,
  PRICE_ATOMIC,
  type Stack,
  startStack,
} from '../../testkit/stack.js';
import { CLI_MAIN } from '../../testkit/cli-main.js';

const MAIN = CLI_MAIN;
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-mcp-ready-'));
const MAX_AMOUNT = (1n << 62n) - 1n;

describe('--ready-notes COUNTxVALUE', () => {
  it('accepts COUNT in 1..64 and VALUE in 1..2^62-1, and gives them back as written', () => {
    expect(parseReadyNotes('8x100000')).toEqual({ count: 8, value: 100_000n });
    expect(parseReadyNotes(`${READY_NOTES_MAX}x${MAX_AMOUNT}`)).toEqual({
      count: READY_NOTES_MAX,
      value: MAX_AMOUNT,
    });
    expect(parseReadyNotes(undefined)).toBeNull();
    expect(parseReadyNotes('')).toBeNull();
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: READY_NOTES_MAX }),
        fc.bigInt({ min: 1n, max: MAX_AMOUNT }),
        (count, value) => {
          expect(parseReadyNotes(`${count}x${value}`)).toEqual({ count, value });
        },
      ),
    );
  });

  it('refuses everything else, naming the form', () => {
    for (const bad of [
      '8',
      'x100',
      '8x',
      '0x100',
      '65x100',
      '08x100',
      '8x0',
      '8x0100',
      '8x-1',
      '-8x100',
      '8X100',
      '8*100',
      ' 8x100',
      '8x100 ',
      '8x100x2',
      '1e1x5',
      `8x${MAX_AMOUNT + 1n}`,
      'on',
    ])
      expect(() => parseReadyNotes(bad), bad).toThrow(/--ready-notes expects COUNTxVALUE/);
    // Whatever else it accepts is a canonical COUNTxVALUE within the bounds.
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789x-+ eX.') }), (text) => {
        let target: ReturnType<typeof parseReadyNotes>;
        try {
          target = parseReadyNotes(text);
        } catch (error) {
          expect(error).toBeInstanceOf(RangeError);
          return;
        }
        if (target === null) {
          expect(text).toBe('');
          return;
        }
        expect(`${target.count}x${target.value}`).toBe(text);
        expect(target.count >= 1 && target.count <= READY_NOTES_MAX).toBe(true);
        expect(target.value >= 1n && target.value <= MAX_AMOUNT).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

/** `priv-stark mcp …` from the sources, in a child. */
function mcp(
  args: string[],
  env: NodeJS.ProcessEnv,
): {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [MAIN, 'mcp', ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

function writePolicy(name: string, recipients: string[] | '*'): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      maxPerPayment: '20000',
      maxPer24h: '200000',
      hosts: ['127.0.0.1'],
      recipients,
      networks: ['shielded:devnet'],
      assets: ['dUSD'],
    }),
  );
  chmodSync(path, 0o600);
  return path;
}

describe('priv-stark mcp --ready-notes', () => {
  it('a malformed value, by flag or by environment, exits 2 with the message and starts nothing', async () => {
    // No policy file and no pool: the value is refused before either is looked at.
    const missing = join(dir, 'no-such.policy.json');
    for (const [args, env] of [
      [['--ready-notes', '65x100'], {}],
      [['--ready-notes', '8x0'], {}],
      [[], { PRIV_STARK_READY_NOTES: 'eight' }],
    ] as [string[], NodeJS.ProcessEnv][]) {
      const run = mcp(['--http', '0', '--policy', missing, ...args], {
        ...env,
        POOL_URL: 'http://127.0.0.1:9',
      });
      expect(await run.exit, run.stderr()).toBe(2);
      expect(run.stderr()).toMatch(/^priv-stark mcp: --ready-notes expects COUNTxVALUE/);
      expect(run.stdout()).toBe('');
    }
    // The twin: a good value gets past the parse, to the missing policy file.
    const run = mcp(['--http', '0', '--policy', missing, '--ready-notes', '8x100'], {
      POOL_URL: 'http://127.0.0.1:9',
    });
    expect(await run.exit).toBe(1);
    expect(run.stderr()).not.toMatch(/--ready-notes/);
    expect(run.stderr()).toMatch(/no-such\.policy\.json/);
  });
});

describe('ready notes for an agent, on the whole stack', () => {
  let core: PrivStarkCore;
  let stack: Stack;
  let merchantWallet: Wallet;
  const merchants: Merchant[] = [];
  const ledgers: LedgerFile[] = [];
  let counter = 0;

  beforeAll(async () => {
    core = await loadCore();
    stack = await startStack(core);
    merchantWallet = await stack.wallet();
    for (let i = 0; i < 4; i++)
      merchants.push(await expressMerchant(stack.facilitatorUrl, merchantWallet.address));
  }, 120_000);
  afterAll(async () => {
    for (const ledger of ledgers) await ledger.close();
    for (const m of merchants) await m.close();
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function agentFor(amount: string) {
    const wallet = await stack.wallet();
    await stack.fund(wallet, amount);
    const ledger = await LedgerFile.open(join(dir, `ledger-${counter}.json`));
    ledgers.push(ledger);
    const policy = new PolicyFile(
      writePolicy(`policy-${counter++}.json`, [merchantWallet.address]),
    );
    const agent = new PaymentAgent({ wallet, policy, ledger, pollMs: 50 });
    await agent.start();
    return { wallet, agent, ledger };
  }

  it('priv-stark mcp keeps the count over the wallet file, logs it, and stops on SIGTERM; the splits are not in the spend ledger', async () => {
    const walletPath = join(dir, 'server.wallet');
    await stack.fund(await stack.wallet({ path: walletPath }), '100000');
    const ledgerPath = join(dir, 'server.spend.json');
    const run = mcp(
      [
        '--http',
        '0',
        '--wallet',
        walletPath,
        '--ledger',
        ledgerPath,
        '--policy',
        writePolicy('server.policy.json', '*'),
      ],
      { POOL_URL: stack.poolUrl, PRIV_STARK_READY_NOTES: '3x20000' },
    );
    try {
      await expect
        .poll(run.stderr, { timeout: 30_000, interval: 100 })
        .toMatch(/ready notes: 3 of 3 spendable/);
      expect(run.stderr()).toMatch(/ready notes: keeping 3 notes of at least 20000 atomic units/);
      expect(run.stdout()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exit).toBe(0);
    expect(run.stderr()).not.toMatch(/split failed/);
    const wallet = await Wallet.open({ core, pool: stack.poolUrl, path: walletPath });
    await stack.settle(wallet);
    expect(wallet.balance().total).toBe(100_000n);
    expect(wallet.notes().filter((n) => BigInt(n.value) >= 20_000n).length).toBeGreaterThanOrEqual(
      3,
    );
    // The keeper splits by the transition statement (issue 25: transparent splits only on
    // request): the notes grew in number with no transfer to the wallet's own address recorded.
    expect(wallet.notes().length).toBeGreaterThan(1);
    expect(wallet.payments().filter((p) => p.resourceId === TRANSFER_RESOURCE_ID)).toEqual([]);
    // The server's ledger (released by SIGTERM) holds nothing: splits are not spending.
    const ledger = await LedgerFile.open(ledgerPath);
    expect(ledger.ledger.entries()).toEqual([]);
    await ledger.close();
  }, 90_000);

  it('over stdio, a count the wallet cannot reach does not keep the server alive: closing stdin ends it, exit 0', async () => {
    const walletPath = join(dir, 'stdio.wallet');
    await stack.fund(await stack.wallet({ path: walletPath }), '100000');
    const run = mcp(['--wallet', walletPath, '--policy', writePolicy('stdio.policy.json', '*')], {
      POOL_URL: stack.poolUrl,
      PRIV_STARK_READY_NOTES: '8x1000000',
    });
    await expect.poll(run.stderr, { timeout: 30_000, interval: 100 }).toMatch(/serving on stdio/);
    expect(run.stderr()).toMatch(/ready notes: keeping 8 notes of at least 1000000 atomic units/);
    run.child.stdin!.end();
    expect(await run.exit).toBe(0);
    expect(run.stdout()).toBe('');
    expect(run.stderr()).not.toMatch(/spendable/);
  }, 60_000);

  it('with a keeper, an agent pays four merchants at once and three more back to back; only the payments count', async () => {
    const { wallet, agent, ledger } = await agentFor('200000');
    const logged: string[] = [];
    const kept = keepReadyNotes(wallet, { count: 4, value: 20_000n }, (l) => logged.push(l), {
      intervalMs: 50,
    });
    const { keeper } = kept;
    const paid: PaidView[] = [];
    try {
      // The keeper's rounds run on their own Poisson schedule, never paused for a payment (issue
      // 25: no payment triggers or delays a split), so a payment started beside a round may find
      // the note it wanted taken by a split and waits for the split's outputs, as an agent does.
      const payWhenFunded = async (url: string): Promise<PaidView> => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await agent.payAndFetch({ url });
          } catch (error) {
            const waiting =
              error instanceof InsufficientFundsError || error instanceof WalletBehindError;
            if (!waiting || attempt >= 400) throw error;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
      };
      await keeper.whenReady(30_000);
      paid.push(...(await Promise.all(merchants.map((m) => payWhenFunded(`${m.url}/weather`)))));
      for (let i = 0; i < 3; i++) paid.push(await payWhenFunded(`${merchants[i]!.url}/weather`));
    } finally {
      await kept.stop();
    }
    expect(paid).toHaveLength(7);
    for (const p of paid) {
      expect(p).toMatchObject({ status: 200, paid: true, payment: { status: 'settled' } });
      expect(JSON.parse(p.body)).toMatchObject({ weather: 'sunny' });
    }
    expect(logged).toContain('ready notes: keeping 4 notes of at least 20000 atomic units');
    expect(logged.filter((l) => l.includes('split failed'))).toEqual([]);

    await agent.sync();
    const records = wallet.payments();
    const splits = records.filter((p) => p.resourceId === TRANSFER_RESOURCE_ID);
    const payments = records.filter((p) => p.resourceId !== TRANSFER_RESOURCE_ID);
    // The keeper splits by the transition statement (issue 25: transparent splits only on
    // request): no transfer to the wallet's own address is recorded, only the seven payments.
    expect(splits).toEqual([]);
    expect(payments).toHaveLength(7);
    // The ledger holds the seven payments, each linked to its record, and no split. A back-to-back
    // attempt made before the keeper refilled was refused before anything left the wallet: its
    // reservation is released and counts nothing (how many there are depends on timing).
    const all = ledger.ledger.entries();
    const entries = all.filter((e) => e.status !== 'released');
    for (const e of all) if (e.status === 'released') expect(e.nullifier).toBeUndefined();
    expect(entries).toHaveLength(7);
    expect(entries.every((e) => e.status === 'settled' && e.payTo === merchantWallet.address)).toBe(
      true,
    );
    expect(new Set(entries.map((e) => e.nullifier))).toEqual(
      new Set(payments.map((p) => p.nullifier)),
    );
    expect(ledger.ledger.counted()).toBe(7n * PRICE_ATOMIC);
    expect((await agent.getPolicy()).usage).toEqual({
      counted_24h: (7n * PRICE_ATOMIC).toString(),
      remaining_24h: (200_000n - 7n * PRICE_ATOMIC).toString(),
      unresolved_payments: 0,
    });
    // list_payments lists the seven payments and none of the splits (they are not payments).
    const listed = await agent.listPayments(200);
    expect(listed).toHaveLength(7);
    for (const view of listed) expect(view.resource_id).not.toBe(TRANSFER_RESOURCE_ID);
    // The splits kept the value: the wallet lost exactly the seven prices.
    await stack.settle(wallet);
    expect(wallet.balance().total).toBe(200_000n - 7n * PRICE_ATOMIC);
  }, 120_000);

  it('the twin: without a keeper, one deposit pays one of four at once; the refused three are not counted', async () => {
    const { agent, ledger } = await agentFor('200000');
    const results = await Promise.allSettled(
      merchants.map((m) => agent.payAndFetch({ url: `${m.url}/weather` })),
    );
    const paid = results.filter((r) => r.status === 'fulfilled');
    expect(paid).toHaveLength(1);
    expect((paid[0] as PromiseFulfilledResult<PaidView>).value).toMatchObject({
      status: 200,
      payment: { status: 'settled' },
    });
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'insufficient_funds' });
    expect(ledger.ledger.counted()).toBe(PRICE_ATOMIC);
    expect(
      ledger.ledger
        .entries()
        .map((e) => e.status)
        .sort(),
    ).toEqual(['released', 'released', 'released', 'settled']);
  }, 60_000);

  it("after a crash, a reservation left for the wallet's own address is not linked to a real split", async () => {
    const { wallet, ledger } = await agentFor('100000');
    // A crashed run reserved 30000 for the wallet's own address and wrote nothing more.
    const reservation = ledger.ledger.reserve(
      {
        amount: 30_000n,
        network: wallet.network.network,
        asset: wallet.network.asset,
        payTo: wallet.address,
        host: '127.0.0.1',
        url: 'http://127.0.0.1/',
      },
      200_000n,
    );
    await ledger.save();
    // Then a split of exactly that amount to exactly that address, made after the reservation.
    const receipt = await wallet.splitNote(wallet.notes()[0]!.commitment, 30_000n);
    await stack.settle(wallet);
    const split = wallet.payments().find((p) => p.settlementId === receipt.transaction)!;
    expect(split).toMatchObject({ amount: '30000', payTo: wallet.address, status: 'settled' });
    expect(split.createdAt).toBeGreaterThanOrEqual(reservation.reservedAt);
    // The restart: the agent's start recovers the ledger.
    const restarted = new PaymentAgent({
      wallet,
      policy: new PolicyFile(writePolicy(`policy-${counter++}.json`, '*')),
      ledger,
      pollMs: 50,
    });
    await restarted.start();
    expect(ledger.ledger.entries()).toEqual([
      expect.objectContaining({ id: reservation.id, status: 'released' }),
    ]);
    expect(ledger.ledger.entries()[0]!.nullifier).toBeUndefined();
    expect(ledger.ledger.counted()).toBe(0n);
  }, 60_000);
});

describe('priv-stark mcp --transitions-per-minute', () => {
  it('a malformed value exits 2 and starts nothing; a good one gets past the parse', async () => {
    const missing = join(dir, 'no-such.policy.json');
    for (const [args, env] of [
      [['--transitions-per-minute=-1'], {}],
      [['--transitions-per-minute', 'six'], {}],
      [[], { PRIV_STARK_TRANSITIONS_PER_MINUTE: '1.5' }],
    ] as [string[], NodeJS.ProcessEnv][]) {
      const run = mcp(['--http', '0', '--policy', missing, ...args], {
        ...env,
        POOL_URL: 'http://127.0.0.1:9',
      });
      expect(await run.exit, run.stderr()).toBe(2);
      expect(run.stderr()).toMatch(/--transitions-per-minute expects a whole number/);
    }
    const run = mcp(['--http', '0', '--policy', missing, '--transitions-per-minute', '0'], {
      POOL_URL: 'http://127.0.0.1:9',
    });
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toMatch(/no-such\.policy\.json/);
  });
});
