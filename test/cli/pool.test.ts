// The commands end to end: `priv-stark pool serve` on a real port with a generated operator token,
// `priv-stark deposit` finding the token in the data directory, `priv-stark pool state`.

import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { commitmentOf, loadCore, randomDigest } from '../../src/core/index.js';
import { freePort } from '../../testkit/free-port.js';
import { CLI_MAIN } from '../../testkit/cli-main.js';

const MAIN = CLI_MAIN;
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the built command; resolves with its status and output. */
function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  const { POOL_OPERATOR_TOKEN: _t, DATABASE_URL: _d, ...base } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { encoding: 'utf8', env: { ...base, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('priv-stark pool serve / deposit / pool state', () => {
  it('serves, generates the token once, deposits through the CLI and stops on SIGTERM', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const dataDir = join(dir, 'data');
    const { POOL_OPERATOR_TOKEN: _t, DATABASE_URL: _d, ...env } = process.env;
    const server = spawn(
      process.execPath,
      [
        MAIN,
        'pool',
        'serve',
        '--port',
        String(port),
        '--data-dir',
        dataDir,
        '--checkpoint-interval-ms',
        '100',
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    server.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      server.on('exit', (code) => resolve(code)),
    );
    try {
      for (let i = 0; i < 300 && !stdout.includes('pool node ready'); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(stdout, stderr).toContain('pool node ready');
      const tokenFile = join(dataDir, 'operator-token');
      expect(existsSync(tokenFile)).toBe(true);
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      const token = readFileSync(tokenFile, 'utf8').trim();
      expect(stderr).toContain(token); // printed once, at generation
      expect(stdout).not.toContain(token); // never logged

      const pre = randomDigest();
      const [deposit, wrong] = await Promise.all([
        cli(['deposit', '--amount', '1500', '--pre', pre, '--url', url, '--data-dir', dataDir]),
        cli([
          'deposit',
          '--amount',
          '1',
          '--pre',
          randomDigest(),
          '--url',
          url,
          '--token',
          'not-the-operator-token',
        ]),
      ]);
      expect(deposit.status, deposit.stderr).toBe(0);
      const core = await loadCore();
      expect(JSON.parse(deposit.stdout)).toEqual({
        commitment: commitmentOf(core, '1500', pre),
        index: 0,
        eventId: 1,
      });
      expect(wrong.status).toBe(1);
      expect(wrong.stderr).toContain('unauthorized');

      await new Promise((r) => setTimeout(r, 400)); // the checkpoint timer runs
      const state = await cli(['pool', 'state', '--url', url]);
      expect(state.status, state.stderr).toBe(0);
      expect(JSON.parse(state.stdout)).toMatchObject({
        network: 'shielded:devnet',
        size: 1,
        depositTotal: '1500',
        checkpoint: { seq: 1, size: 1 },
      });
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 120_000);
});
