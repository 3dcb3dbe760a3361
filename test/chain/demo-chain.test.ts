// `priv-stark demo --chain` as a user runs it after the build (node dist/cli/main.js, nothing
// compiled at run time): it starts its own local chain, deploys, and tells the story with real
// transfers, ending with one JSON line — demo ok, the RPC, token and escrow, the merchant's
// EIP-55 address and the exit's amount (the demo itself checks the merchant's USDC balance on
// chain before it prints it). Without the optional @foundry-rs/anvil (a copy of the build whose
// node_modules lacks it) it exits 2 naming the package. The run's time is printed, not asserted.

import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];

function run(
  main: string,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [main, ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        timeout: 170_000,
      },
      (_error, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }),
    );
  });
}

beforeAll(() => {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), 'ts', '--quiet'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(built.status, built.stderr).toBe(0);
}, 180_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('priv-stark demo --chain', () => {
  it('deposits by signature, pays two merchants, exits to the merchant’s address, and ends with one JSON line', async () => {
    const started = performance.now();
    const { status, stdout, stderr } = await run(join(ROOT, 'dist/cli/main.js'), [
      'demo',
      '--chain',
    ]);
    const seconds = (performance.now() - started) / 1000;
    expect(status, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(Object.keys(last)).toEqual([
      'demo',
      'rpc',
      'token',
      'escrow',
      'merchantAddress',
      'exitAmount',
    ]);
    expect(last.demo).toBe('ok');
    expect(last.rpc).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const key of ['token', 'escrow', 'merchantAddress'] as const)
      expect(getAddress(last[key] as string), key).toBe(last[key]);
    expect(last.exitAmount).toMatch(/^[1-9][0-9]*$/);
    // The story's steps were told, in order.
    const told = lines.slice(0, -1).join('\n');
    for (const step of [
      'local chain (anvil) listening',
      'escrow and test USDC deployed',
      'agent deposit 1: 0.10 USDC by signature, relayed',
      'agent deposit 2',
      'deposits accepted and shielded',
      'agent pays the merchant',
      'agent pays the second merchant',
      `merchant exits ${last.exitAmount as string} atomic units to ${last.merchantAddress as string}`,
      'payout sender pays the exit in USDC on chain',
      `${last.merchantAddress as string} holds ${last.exitAmount as string} atomic units of USDC`,
    ])
      expect(told).toContain(step);
    console.log(`demo --chain: ${seconds.toFixed(1)} s after the build`);
  }, 180_000);

  it('without @foundry-rs/anvil exits 2 naming the package', async () => {
    // The build beside a node_modules holding every package but @foundry-rs's.
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-no-anvil-'));
    dirs.push(dir);
    cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    mkdirSync(join(dir, 'node_modules'));
    for (const name of readdirSync(join(ROOT, 'node_modules')))
      if (name !== '@foundry-rs' && name !== '.bin')
        symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
    const { status, stdout, stderr } = await run(join(dir, 'dist/cli/main.js'), [
      'demo',
      '--chain',
    ]);
    expect(status, stdout).toBe(2);
    expect(stderr).toMatch(/^priv-stark demo --chain: anvil_missing: .*@foundry-rs\/anvil/m);
    expect(stderr).not.toMatch(/\n\s+at .*:\d+:\d+\)?$/m);
  }, 60_000);
});
