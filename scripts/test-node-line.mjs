#!/usr/bin/env node
// The TypeScript suites on one maintained Node line from tools/runtimes: `node
// scripts/test-node-line.mjs 22|24|26 [vitest arguments]`. `npm test` runs every suite on Node 24
// (the active LTS line) and these on Node 26 (the newest); run it for 22 by hand. better-sqlite3's
// Node-API binary loads on every line, so nothing is rebuilt per line.
//
// The suites are those that exercise what differs between lines: the native addon (N-API),
// better-sqlite3, worker threads, the stores, the facilitator's HTTP surface, the wallet, the pool
// node, the MCP server: 56 files, about a sixth of the first run's time (about 80 s on two cores;
// a suite joins the list only for what a Node line can change). Left to the first run: the
// end-to-end suites (browser, CLI, examples), kill -9 and crash suites, the proof store's
// PostgreSQL-heavy suites, the runtime suites (they start other runtimes anyway), and the long
// flows listed in NODE_LINE_LEFT_OUT, which repeat on the line what the suites kept already
// exercise (the addon, SQLite, the pool node's routes, the wallet's sync and payments).

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { runtimes } from './runtimes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const NODE_LINE_SUITES = [
  'test/architecture.test.ts',
  'test/core/',
  'test/scheme/',
  'test/facilitator/',
  'test/client/',
  'test/pool-node/',
  'test/mcp/',
  'test/cli/node-lines.test.ts',
  'test/ledger/ledger.test.ts',
  'test/ledger/store.test.ts',
  'test/http/auth.test.ts',
  'test/http/client.test.ts',
  'test/http/health.test.ts',
  'test/http/json-body.test.ts',
  'test/http/reasons.test.ts',
  'test/http/unreadable.test.ts',
];

/**
 * Long flows inside the directories above that a Node line changes nothing of beyond what the
 * kept suites cover: together about half of this pass's file time in the last measured run
 * (recovery 70 s, exits 46 s, ready notes 41 s, transitions 32 s, transfers 27 s of 407 s).
 */
export const NODE_LINE_LEFT_OUT = [
  'test/client/recovery.test.ts',
  'test/pool-node/exits.test.ts',
  'test/pool-node/transitions.test.ts',
  'test/pool-node/transfer.test.ts',
  'test/mcp/ready-notes.test.ts',
];

/**
 * The test files of {@link NODE_LINE_SUITES} (a directory: its `*.test.ts` files, however deep)
 * less {@link NODE_LINE_LEFT_OUT}: vitest's `--exclude` does not reach into the config's projects.
 */
export function nodeLineFiles() {
  const files = [];
  for (const suite of NODE_LINE_SUITES) {
    if (!suite.endsWith('/')) files.push(suite);
    else
      for (const entry of readdirSync(join(root, suite), { recursive: true }))
        if (String(entry).endsWith('.test.ts')) files.push(`${suite}${entry}`);
  }
  return files.filter((file) => !NODE_LINE_LEFT_OUT.includes(file)).sort();
}

/**
 * The command that runs the suites on `line`: vitest under that line's node, that node first on
 * PATH (children started as `node` or by `process.execPath` run it too). `installed`: what
 * `runtimes()` returned; installed here when not given. `files`: the test files,
 * {@link nodeLineFiles} unless given; `[]` runs every suite (npm test's first pass, on the active
 * LTS line).
 */
export function nodeLineCommand(
  line,
  vitestArgs = [],
  installed = runtimes(),
  files = nodeLineFiles(),
) {
  const node = installed.node[line];
  if (!node) throw new Error(`no Node ${line} among the pinned runtimes`);
  return {
    command: node,
    args: [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...files, ...vitestArgs],
    env: {
      ...process.env,
      PATH: `${dirname(node)}:${process.env.PATH}`,
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [line, ...rest] = process.argv.slice(2);
  const { command, args, env } = nodeLineCommand(line ?? '26', rest);
  const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  process.exitCode = result.status ?? 1;
}
