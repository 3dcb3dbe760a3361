// `priv-stark demo` as a user runs it (a child process under tsx, from the sources): piped, its
// output is plain timed lines to parse; on a terminal (a real pseudo-terminal through util-linux's
// `script`), each step is drawn live and resolves to the same lines.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
const STEP = /^\[\d+\.\d\d s\] +\S.* \(\d+ ms\)$/;
const NOTE = /^ {12}\S/;
const LABELS = [
  /^core loaded$/,
  /^facilitator and pool node listening$/,
  /^merchant on Fastify, paid to pstark1/,
  /^payer funded with 3 notes of 0\.1 dUSD$/,
  /^payment 1: GET http:\/\/127\.0\.0\.1:\d+\/weather$/,
  /^payment 2: GET http:\/\/127\.0\.0\.1:\d+\/weather$/,
  /^pool log read: payments settled$/,
  /^second merchant listening$/,
  /^merchant pays the second merchant with what it received$/,
  /^pool log read$/,
];

function run(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { encoding: 'utf8', env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The labels of the step lines, in order. */
function labelsOf(lines: string[]): string[] {
  return lines
    .filter((l) => STEP.test(l))
    .map((l) => l.replace(/^\[[^\]]+\] +/, '').replace(/ \(\d+ ms\)$/, ''));
}

function expectSteps(lines: string[]): void {
  const labels = labelsOf(lines);
  expect(labels).toHaveLength(LABELS.length);
  for (const [i, label] of labels.entries()) expect(label).toMatch(LABELS[i]!);
  expect(lines.filter((l) => NOTE.test(l))).toEqual([
    expect.stringMatching(/^ {12}HTTP 200 \{"weather":"sunny","from":"merchant"\} · transaction /),
    expect.stringMatching(/^ {12}HTTP 200 \{"weather":"sunny","from":"merchant"\} · transaction /),
    `${' '.repeat(12)}payer 0.28 dUSD · merchant 0.02 dUSD`,
    `${' '.repeat(12)}HTTP 200 {"weather":"sunny","from":"second merchant"}`,
    `${' '.repeat(12)}merchant 0.01 dUSD · second merchant 0.01 dUSD`,
  ]);
}

const env = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const { CI: _ci, ...rest } = process.env;
  return { ...rest, ...extra };
};

describe('priv-stark demo', () => {
  it('piped: plain timed lines only, one per step, then the details', async () => {
    const result = await run(
      process.execPath,
      ['--import', 'tsx', MAIN, 'demo', '--payments', '2'],
      env({ TERM: 'xterm-256color' }),
    );
    expect(result.status, result.stderr).toBe(0);
    // No escape sequence and no carriage return: nothing is redrawn when the output is not a terminal.
    expect([result.stdout.includes('\u001b'), result.stdout.includes('\r')]).toEqual([
      false,
      false,
    ]);
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line).toMatch(new RegExp(`${STEP.source}|${NOTE.source}`));
    expectSteps(lines);
  }, 150_000);

  it.skipIf(!SCRIPT)(
    'on a terminal: each step drawn live, resolving to the same lines',
    async () => {
      const command = [process.execPath, '--import', 'tsx', MAIN, 'demo', '--payments', '2']
        .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
        .join(' ');
      const result = await run(
        SCRIPT!,
        ['-qefc', command, '/dev/null'],
        env({ TERM: 'xterm-256color', COLUMNS: '200' }),
      );
      expect(result.status, result.stderr).toBe(0);
      const text = result.stdout.replace(/\r\n/g, '\n');
      // Every step starts with a spinner frame on a cleared line.
      for (const label of ['core loaded', 'facilitator and pool node listening', 'pool log read'])
        expect(text).toContain(`\r\x1b[2K⠋ ${label} `);
      // What stays on the screen: the last redraw of each line.
      const screen = text.split('\n').map((line) => line.split('\r\x1b[2K').at(-1)!);
      expectSteps(screen.filter((l) => l.length > 0));
    },
    150_000,
  );
});
