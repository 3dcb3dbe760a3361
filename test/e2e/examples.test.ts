// The examples as a user runs them, each a real process on loopback: the three merchant examples
// (stock @x402/express, stock @x402/hono, the Fastify plugin) started with `tsx`, each paid by the
// payer example (stock @x402/fetch), which ends with the pool's own answer; the Express merchant
// also by the axios payer example (stock @x402/axios 2.11). They import the package by name
// (`priv-stark/server`, `priv-stark/client`), i.e. the built `dist/` through package.json exports.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { loadCore } from '../../src/core/index.js';
import { API_KEY, type Stack, startStack } from '../../testkit/stack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-examples-'));
let stack: Stack;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/server/index.js')))
    throw new Error('dist/ is not built: run node scripts/build.mjs');
  stack = await startStack(await loadCore());
});
afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

function startMerchant(example: string, payTo: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', example)], {
    cwd: ROOT,
    env: {
      ...process.env,
      FACILITATOR_URL: stack.facilitatorUrl,
      API_KEY,
      PAY_TO: payTo,
      PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /merchant listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`${example} exited ${code}: ${err}`)));
  });
}

function runPayer(
  url: string,
  wallet: string,
  payer = 'pay.ts',
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'examples', payer), url],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, POOL_URL: stack.poolUrl, WALLET: wallet },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe.each(['merchant-express.ts', 'merchant-hono.ts', 'merchant-fastify.ts'])(
  'examples/%s paid by examples/pay.ts',
  (example) => {
    it('serves the weather for $0.01 and the pool settles it', async () => {
      const core = await loadCore();
      const merchantWallet = await stack.wallet();
      const url = await startMerchant(example, merchantWallet.address);
      const walletFile = join(dir, `${example}.wallet`);
      const payer = await Wallet.create({ core, pool: stack.poolUrl, path: walletFile });
      await stack.fund(payer, '50000');
      const run = await runPayer(`${url}/weather`, walletFile);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/HTTP 200: \{"weather":"sunny","temperature":21\}/);
      expect(run.stdout).toMatch(/"success":true/);
      expect(run.stdout).toMatch(/pool: settled; balance 40000/);
      await stack.settle(merchantWallet);
      expect(merchantWallet.balance().total).toBe(10000n);
    });
  },
);

describe('examples/merchant-express.ts paid by examples/pay-axios.ts', () => {
  it('serves the weather for $0.01 through stock @x402/axios and the pool settles it', async () => {
    const core = await loadCore();
    const merchantWallet = await stack.wallet();
    const url = await startMerchant('merchant-express.ts', merchantWallet.address);
    const walletFile = join(dir, 'axios.wallet');
    const payer = await Wallet.create({ core, pool: stack.poolUrl, path: walletFile });
    await stack.fund(payer, '50000');
    const run = await runPayer(`${url}/weather`, walletFile, 'pay-axios.ts');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/HTTP 200: \{"weather":"sunny","temperature":21\}/);
    expect(run.stdout).toMatch(/"success":true/);
    expect(run.stdout).toMatch(/pool: settled; balance 40000/);
    await stack.settle(merchantWallet);
    expect(merchantWallet.balance().total).toBe(10000n);
  });
});
