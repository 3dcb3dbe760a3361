// The command line held still through the wave-3 restructure (issue 22): what each command prints
// for help or usage — standard output, standard error and the exit status — equals the snapshot
// the landed main wrote before the first move (test/fixtures/surface/help.json). `priv-stark help`
// holds every command's flags (start, doctor, pool, deposit, wallet, pay, mcp, chain, demo); the others
// are each command's own usage. Commands that would start something (`mcp`, `demo`) are covered by
// `help`. Run as built (`node scripts/build.mjs ts` first: quick when src/ did not change, so a
// stale build cannot hide a change). `UPDATE_SURFACE=1` rewrites the snapshot: only for a
// deliberate change of the command line.

import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SNAPSHOT = join(ROOT, 'test/fixtures/surface/help.json');

/** The invocations whose output is pinned. */
const INVOCATIONS = [
  ['help'],
  ['--help'],
  ['start', '--help'],
  ['pool'],
  ['pool', 'payout'],
  ['deposit'],
  ['wallet'],
  ['pay'],
  ['chain'],
  ['no-such-command'],
];

interface Printed {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(args: readonly string[]): Promise<Printed> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(ROOT, 'dist/cli/main.js'), ...args],
      // No configuration from the environment may change what is printed.
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
      (_error, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }),
    );
  });
}

describe('the command line', () => {
  it('prints the help and usage texts of the snapshot', async () => {
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), 'ts', '--quiet'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(built.status, built.stderr).toBe(0);
    const printed = await Promise.all(INVOCATIONS.map((args) => run(args)));
    const now = Object.fromEntries(INVOCATIONS.map((args, i) => [args.join(' '), printed[i]!]));
    if (process.env.UPDATE_SURFACE === '1')
      writeFileSync(SNAPSHOT, `${JSON.stringify(now, null, 2)}\n`);
    const snapshot = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, Printed>;
    expect(Object.keys(now)).toEqual(Object.keys(snapshot));
    for (const [invocation, printed] of Object.entries(snapshot))
      expect(now[invocation], invocation).toEqual(printed);
    // Not vacuous: the full help names every command, and an unknown one exits 2.
    for (const command of ['start', 'doctor', 'pool', 'wallet', 'mcp', 'chain', 'demo'])
      expect(snapshot.help?.stdout).toContain(`  ${command}`);
    expect(snapshot['no-such-command']?.status).toBe(2);
  }, 120_000);
});
