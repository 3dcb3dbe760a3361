/**
 * @module On a Node older than the supported lines (this repository's build machines have Debian's
 * Node 20, past its end of life), `priv-stark` runs itself again on the pinned Node 24 of a
 * checkout: `tools/node-lts/`, installed from npm on first use by `scripts/runtimes.mjs`.
 * better-sqlite3 13 (a Node-API build, no compile at install) does not load on Node 20. Outside a
 * checkout, or off Linux x64, the command runs on as before and `doctor` names the lines.
 */

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

import { satisfiesEngines } from './node-lines.js';

/** Set in the second run: never a third. */
const RERUN = 'PRIV_STARK_RERUN';

const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function engines(): string | null {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    engines?: { node?: string };
  };
  return pkg.engines?.node ?? null;
}

/** The checkout's Node 24, installed when missing; `null` outside a checkout or off Linux x64. */
async function checkoutNode(): Promise<string | null> {
  const script = new URL('../../scripts/runtimes.mjs', import.meta.url);
  if (!existsSync(fileURLToPath(script))) return null;
  const { ltsNode } = (await import(script.href)) as {
    ltsNode(options: { quiet: boolean }): string;
  };
  try {
    return ltsNode({ quiet: false });
  } catch (error) {
    process.stderr.write(
      `priv-stark: no Node 24 to run on (${error instanceof Error ? error.message : String(error)})\n`,
    );
    return null;
  }
}

/**
 * Runs this command again on a supported Node when this one is not and a checkout has one: the
 * second run's exit status, or `null` to run here (a supported Node, a second run already, or
 * none to hand over to). Signals that stop a service are passed on, so Ctrl-C and SIGTERM reach
 * the second run's graceful shutdown, and a first run killed outright stops the second
 * ({@link stopWithFirstRun}).
 */
export async function rerunOnSupportedNode(argv: readonly string[]): Promise<number | null> {
  const range = engines();
  if (process.env[RERUN] === '1' || range === null) return null;
  if (satisfiesEngines(process.version, range) !== false) return null;
  const node = await checkoutNode();
  if (node === null) return null;
  process.stderr.write(
    `priv-stark: Node ${process.version} is not a supported line (${range}); running on ${node}\n`,
  );
  // An IPC channel beside the inherited stdio, only so that the second run learns when this one
  // is gone — a SIGKILL forwards no signal (`stopWithFirstRun`).
  const child = spawn(node, [...process.execArgv, process.argv[1]!, ...argv], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [RERUN]: '1' },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED) process.on(signal, forward);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`priv-stark: ${node} could not start: ${error.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      for (const s of FORWARDED) process.off(s, forward);
      // Killed by a signal: 128 + its number, as a shell reports it.
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

/**
 * In the second run: when the first run is gone without a word — killed with SIGKILL, which it
 * cannot forward — stop as SIGTERM would stop this command (a service shuts down gracefully)
 * instead of running on, orphaned, with its ports bound. The channel is never used for messages
 * and does not keep this process alive.
 */
export function stopWithFirstRun(): void {
  const channel = (process as { channel?: { unref(): void } }).channel;
  if (process.env[RERUN] !== '1' || channel === undefined) return;
  channel.unref();
  process.once('disconnect', () => {
    process.stderr.write('priv-stark: the first run (the older Node) is gone: stopping\n');
    process.kill(process.pid, 'SIGTERM');
  });
}
