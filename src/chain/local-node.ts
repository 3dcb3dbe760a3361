/**
 * @module A local EVM node on loopback: anvil, from the optional npm package `@foundry-rs/anvil`
 * (its binary ships in the platform package beside it, e.g. `@foundry-rs/anvil-linux-amd64`;
 * npm may skip the wrapper's postinstall, so the binary is found here, never downloaded). Started
 * on 127.0.0.1 on a port the system picks, with the hardfork the contracts are compiled for
 * (Cancun, which Base runs), and stopped with its process. For the tests, the benches and the
 * demo; nothing here is used against a real chain.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The npm package that carries anvil (an optional dependency of priv-stark). */
export const ANVIL_PACKAGE = '@foundry-rs/anvil';

/** The hardfork anvil runs: the contracts' `evmVersion` (scripts/compile-contracts.mjs). */
export const LOCAL_HARDFORK = 'cancun';

/** The chain id of a local node unless told otherwise. */
export const LOCAL_CHAIN_ID = 31337;

/** Why a local node could not be had: `anvil_missing` (the package is not installed for this platform) or `anvil_failed`. */
export class LocalNodeError extends Error {
  override readonly name = 'LocalNodeError';
  constructor(
    readonly code: 'anvil_missing' | 'anvil_failed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** How to start a local node. */
export interface LocalNodeOptions {
  /** The chain id (default {@link LOCAL_CHAIN_ID}). */
  readonly chainId?: number;
  /** Development accounts anvil funds from its well-known mnemonic (default 10). */
  readonly accounts?: number;
  /** Mine a block every this many seconds instead of one per transaction. */
  readonly blockTime?: number;
  /** Mine only on `evm_mine` (no automining). */
  readonly noMining?: boolean;
  /** How long to wait for the node to answer (default 30 s). */
  readonly startTimeoutMs?: number;
}

/** A running local node. */
export interface LocalNode {
  /** Its JSON-RPC endpoint, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  readonly chainId: number;
  /** Stops the node (SIGTERM, then SIGKILL after 2 s); resolves once the process has exited. */
  stop(): Promise<void>;
}

/** The platform packages `@foundry-rs/anvil` names, by Node's platform and architecture. */
const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
};

/**
 * The path of the anvil binary inside the installed npm package, resolved as a module at `from`
 * (a file URL or path; this module by default) would resolve it.
 * @throws LocalNodeError `anvil_missing` when `@foundry-rs/anvil` or its platform package is not
 *   installed (an optional dependency: `npm install` may have skipped it)
 */
export function anvilBinary(from: string = import.meta.url): string {
  const platform = `${process.platform}-${process.arch}`;
  const platformPackage = PLATFORM_PACKAGES[platform];
  if (platformPackage === undefined)
    throw new LocalNodeError(
      'anvil_missing',
      `${ANVIL_PACKAGE} has no binary for ${platform}: a local chain needs one of ${Object.keys(PLATFORM_PACKAGES).join(', ')}`,
    );
  const require = createRequire(from);
  let wrapper: string;
  let binary: string;
  try {
    wrapper = require.resolve(`${ANVIL_PACKAGE}/package.json`);
    const fromWrapper = createRequire(wrapper);
    const packageDir = dirname(fromWrapper.resolve(`${platformPackage}/package.json`));
    binary = join(packageDir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  } catch (cause) {
    throw new LocalNodeError(
      'anvil_missing',
      `a local chain needs the optional npm package ${ANVIL_PACKAGE} (with ${platformPackage}): install it with \`npm install ${ANVIL_PACKAGE}\``,
      { cause },
    );
  }
  if (!existsSync(binary))
    throw new LocalNodeError(
      'anvil_missing',
      `${platformPackage} is installed but has no binary at ${binary}: reinstall ${ANVIL_PACKAGE}`,
    );
  return binary;
}

/**
 * Starts anvil on 127.0.0.1 (a free port the system picks) with the Cancun hardfork and waits
 * until it answers `eth_chainId` with the chain id asked for.
 * @throws LocalNodeError `anvil_missing` without the package, `anvil_failed` when it does not start
 */
export async function startLocalNode(options: LocalNodeOptions = {}): Promise<LocalNode> {
  const chainId = options.chainId ?? LOCAL_CHAIN_ID;
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--chain-id',
    String(chainId),
    '--hardfork',
    LOCAL_HARDFORK,
    '--accounts',
    String(options.accounts ?? 10),
  ];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  if (options.noMining) args.push('--no-mining');
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // 'error' without 'exit' when the binary could not be run at all.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  try {
    const port = await listeningPort(child, options.startTimeoutMs ?? 30_000);
    const url = `http://127.0.0.1:${port}`;
    await expectChainId(url, chainId);
    return { url, port, chainId, stop: () => stopProcess(child, exited) };
  } catch (error) {
    await stopProcess(child, exited);
    throw error instanceof LocalNodeError
      ? error
      : new LocalNodeError('anvil_failed', `anvil did not start: ${String(error)}`, {
          cause: error,
        });
  }
}

/**
 * The port anvil reports once it listens ("Listening on 127.0.0.1:<port>"). Its output is read
 * until then and discarded after (anvil logs every request; an unread pipe would stall it).
 */
function listeningPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => fail(`anvil did not listen within ${timeoutMs} ms`), timeoutMs);
    const onData = (chunk: Buffer) => {
      if (seen.length < 64 * 1024) seen += chunk.toString('utf8');
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(seen);
      if (match) {
        done();
        resolve(Number(match[1]));
      }
    };
    const onExit = (code: number | null, signal: string | null) =>
      fail(`anvil exited (${code ?? signal}) before listening: ${seen.slice(-2000).trim()}`);
    const onError = (error: Error) => fail(`anvil could not start: ${error.message}`);
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      child.stdout?.resume();
      child.stderr?.resume();
    };
    const fail = (message: string) => {
      done();
      reject(new LocalNodeError('anvil_failed', message));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/** Asks the node its chain id, a few times while it finishes starting. */
async function expectChainId(url: string, chainId: number): Promise<void> {
  let last: unknown;
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      const body = (await response.json()) as { result?: string };
      if (body.result !== undefined && Number(body.result) === chainId) return;
      last = new Error(`eth_chainId answered ${JSON.stringify(body)}`);
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new LocalNodeError('anvil_failed', `anvil at ${url} did not answer: ${String(last)}`, {
    cause: last,
  });
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(timer);
}
