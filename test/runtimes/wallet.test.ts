// The wallet on Bun and Deno (and, as the reference, the machine's Node), through the published
// entry points, on both backends: a pool node and a merchant on the stock `@x402/express`
// middleware run here in Node (testkit/stack.ts); the runtime creates a wallet file, gets a
// deposit ticket the devnet operator deposits, syncs, pays `GET /weather` with payingFetch and
// reopens the file; the must-fail twin: an unfunded wallet's payment is refused.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadCore } from '../../src/core/index.js';
import {
  expressMerchant,
  type Merchant,
  OPERATOR_TOKEN,
  type Stack,
  startStack,
} from '../../testkit/stack.js';
import { buildDist, installedRuntimes, lastJson, ROOT, runScript } from './helpers.js';

const rt = installedRuntimes();
const SCRIPT = `${ROOT}testkit/wallet-on-runtime.mjs`;

let stack: Stack | undefined;
let merchant: Merchant | undefined;
let dir = '';

beforeAll(async () => {
  if (!rt) return;
  buildDist();
  dir = mkdtempSync(join(tmpdir(), 'priv-stark-runtime-wallets-'));
  stack = await startStack(await loadCore());
  const payee = await stack.wallet();
  merchant = await expressMerchant(stack.facilitatorUrl, payee.address);
});

afterAll(async () => {
  await merchant?.close();
  await stack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface WalletRun {
  backend: string;
  before: { spendable: string };
  status: number;
  body: unknown;
  settlement: { success: boolean; network: string } | null;
  after: { spendable: string; pending: string; total: string };
  reopenedPayments: number;
  refused: { status?: number; error?: string; message?: string };
}

const cases = rt
  ? [
      { name: 'node (this machine)', command: process.execPath, args: [] as string[] },
      { name: 'bun', command: rt.bun, args: [] as string[] },
      { name: 'deno', command: rt.deno, args: ['run', '-A'] },
    ].flatMap((runtime) =>
      (['native', 'wasm'] as const).map((backend) => ({ ...runtime, backend })),
    )
  : [];

describe.skipIf(rt === null)('the wallet on each runtime', () => {
  it.each(cases)(
    '$name, $backend: create, deposit ticket, sync, pay a stock merchant; an unfunded wallet is refused',
    async ({ name, command, args, backend }) => {
      const path = join(dir, `${name.replace(/\W+/g, '-')}-${backend}.json`);
      const run = await runScript(
        command,
        [...args, SCRIPT, stack!.poolUrl, OPERATOR_TOKEN, merchant!.url, path],
        { env: { PRIV_STARK_BACKEND: backend, NO_COLOR: '1' }, guardMs: 240_000 },
      );
      const result = lastJson<WalletRun>(run);
      if (process.env.SHOW_RUNS)
        process.stderr.write(`${name} ${backend}: ${JSON.stringify(result)}\n`);
      expect(result.backend).toBe(backend);
      expect(result.before.spendable).toBe('50000');
      expect(result.status).toBe(200);
      expect(result.body).toHaveProperty('weather');
      expect(result.settlement).toEqual({ success: true, network: 'shielded:devnet' });
      // The note is spent; its change waits for the pool's next checkpoint.
      expect(BigInt(result.after.spendable)).toBeLessThan(50_000n);
      expect(result.reopenedPayments).toBe(1);
      expect(result.refused.message).toMatch(
        /insufficient funds: the payment needs 10000 atomic units, the wallet can spend 0/,
      );
      expect(run.status).toBe(0);
    },
  );
});
