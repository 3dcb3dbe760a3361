// `priv-stark` with options and no command runs `start` with them, so `npm start -- --port 5000`
// passes its options on; `--help` alone, and a word that is no command, keep their own answers.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { buildDist } from '../runtimes/helpers.js';

const CLI = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', 'cli', 'main.js');

function cli(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

describe('options without a command', () => {
  it("are start's: its usage for --help after them, its refusal of an option it lacks", () => {
    buildDist();
    const help = cli('--port', '5000', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: priv-stark start \[options\]/);
    const unknown = cli('--no-such-flag');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("priv-stark start: Unknown option '--no-such-flag'");
  });

  it('twins: --help alone is the top-level usage, and a word that is no command is refused', () => {
    buildDist();
    expect(cli('--help').stdout).toMatch(/^usage: priv-stark <command>/);
    const word = cli('nope');
    expect(word.status).toBe(2);
    expect(word.stderr).toMatch(/^unknown command: nope/);
  });
});
