#!/usr/bin/env node
// The runtimes the tests run the package on, from the npm registry into directories of their own:
// `tools/runtimes/` (Bun, Deno, workerd and the maintained Node lines 22, 24 and 26, each pinned by
// its package-lock.json) and `tools/node-lts/` (Node 24 alone, for `npm start` on a machine whose
// Node is older than the supported lines). Installed once, when missing or when their package.json
// or lockfile changed (a stamp beside the install), with install scripts off: the binaries are in
// the platform packages, so nothing is downloaded but npm packages. better-sqlite3 needs no build
// per line: its Node-API binary loads on each of them.
//
// `node scripts/runtimes.mjs [--quiet] [--lts]` installs; `runtimes()` (imported) installs and returns the
// binaries' paths, `ltsNode()` the Node 24 binary alone. Node built-ins only. Linux x64 (the
// platform packages named in the lockfiles); elsewhere both throw RuntimesUnavailableError.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOOLS = join(root, 'tools');

/** The runtimes cannot be installed on this machine (platform, or npm failed). */
export class RuntimesUnavailableError extends Error {
  constructor(message) {
    super(message);
    this.name = 'RuntimesUnavailableError';
  }
}

function log(quiet, message) {
  if (!quiet) process.stderr.write(`[runtimes] ${message}\n`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
  if (result.error)
    throw new RuntimesUnavailableError(`${command} could not start: ${result.error.message}`);
  if (result.status !== 0)
    throw new RuntimesUnavailableError(
      `${command} ${args.join(' ')} failed with status ${result.status}:\n${(result.stderr ?? '').slice(-4000)}`,
    );
  return result;
}

/** `npm install` of one tools directory when its manifest or lockfile changed since the last. */
function installDirectory(name, quiet) {
  const dir = join(TOOLS, name);
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json'])
    hash.update(file).update(readFileSync(join(dir, file)));
  const print = hash.digest('hex');
  const stamp = join(dir, 'node_modules', '.priv-stark-stamp');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === print) return dir;
  log(quiet, `${name}: installing from its lockfile`);
  const started = Date.now();
  // `install`, not `ci`: npm 11 rejects a lockfile that records only some platforms' optional
  // packages under `ci`, although `install` follows it exactly.
  run('npm', ['install', '--prefix', dir, '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: dir,
  });
  writeFileSync(stamp, print);
  log(quiet, `${name}: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

/** Where the lockfile's platform packages put each binary (Linux x64). */
function binaries() {
  const modules = join(TOOLS, 'runtimes', 'node_modules');
  return {
    bun: join(modules, '@oven', 'bun-linux-x64', 'bin', 'bun'),
    deno: join(modules, '@deno', 'linux-x64-glibc', 'deno'),
    workerd: join(modules, '@cloudflare', 'workerd-linux-64', 'bin', 'workerd'),
    node: {
      22: join(modules, 'node22', 'bin', 'node'),
      24: join(modules, 'node24', 'bin', 'node'),
      26: join(modules, 'node26', 'bin', 'node'),
    },
  };
}

/**
 * Runs `work` holding `tools/.install-lock` (a directory: its creation is atomic), so test files
 * started together do not install into the same directory at once. A lock older than 30 minutes
 * is taken to be a dead process's.
 */
function locked(work) {
  const lock = join(TOOLS, '.install-lock');
  const wait = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const age = Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (age > 30 * 60_000) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(wait, 0, 0, 500);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Installs what is missing and returns the paths: `bun`, `deno`, `workerd`, `node[22|24|26]`. A
 * no-op but for a stamp check when all of it is present.
 * @throws RuntimesUnavailableError off Linux x64, or when npm fails
 */
export function runtimes({ quiet = false } = {}) {
  onLinuxX64();
  return locked(() => {
    installDirectory('runtimes', quiet);
    const paths = binaries();
    for (const path of [paths.bun, paths.deno, paths.workerd, ...Object.values(paths.node)])
      if (!existsSync(path)) throw new RuntimesUnavailableError(`not installed: ${path}`);
    return paths;
  });
}

/**
 * The pinned Node 24 (the active LTS line) alone, installed when missing into `tools/node-lts/`:
 * what `npm start` runs the service on when the machine's Node is not a supported line.
 * @throws RuntimesUnavailableError off Linux x64, or when npm fails
 */
export function ltsNode({ quiet = false } = {}) {
  onLinuxX64();
  return locked(() => {
    const dir = installDirectory('node-lts', quiet);
    const node = join(dir, 'node_modules', 'node24', 'bin', 'node');
    if (!existsSync(node)) throw new RuntimesUnavailableError(`not installed: ${node}`);
    return node;
  });
}

/**
 * Whether `version` (e.g. `process.versions.node`) is of a line the package supports: 22, 24, or
 * 26 and later (`engines.node` in package.json names the minors; src/cli/node-lines.ts reads them).
 * better-sqlite3 13 does not load on Node 20.
 */
export function supportedNode(version) {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  return major === 22 || major === 24 || major >= 26;
}

function onLinuxX64() {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new RuntimesUnavailableError(
      `the pinned runtimes are Linux x64 packages (this is ${process.platform}-${process.arch})`,
    );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // `--lts`: Node 24 alone (npm start's, beside its install on an older Node).
  const quiet = process.argv.includes('--quiet');
  const paths = process.argv.includes('--lts') ? ltsNode({ quiet }) : runtimes({ quiet });
  process.stdout.write(`${JSON.stringify(paths, null, 2)}\n`);
}
