// Runs a TypeScript entry (through tsx) on a Node line the package supports: this Node when it is
// one, else the pinned Node 24 in tools/node-lts (fetched from npm on first use, as the CLI's own
// rerun does). The benches go through it: better-sqlite3 13's Node-API build crashes on Node 20
// (this image's Node) at its first statement, and the benches open the store themselves.
//
//   node scripts/on-supported-node.mjs bench/flow.bench.ts [args…]

import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ltsNode, supportedNode } from './runtimes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node scripts/on-supported-node.mjs <entry.ts> [args…]\n');
  process.exit(2);
}
const node = supportedNode(process.versions.node) ? process.execPath : ltsNode();
if (node !== process.execPath)
  process.stderr.write(
    `[on-supported-node] Node ${process.version} is not supported: ${entry} runs on ${node}\n`,
  );
const child = spawn(node, [join(root, 'node_modules/tsx/dist/cli.mjs'), entry, ...args], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) =>
  process.exit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)),
);
