#!/usr/bin/env node
// The runtimes the tests run the package on, from the npm registry into directories of their own:
// `tools/runtimes/` (Bun, Deno, workerd and the maintained Node lines 22, 24 and 26, each pinned by
// its package-lock.json) and `tools/sqlite-lines/` (better-sqlite3, the project's version, with
// node-gyp, to build it for a Node line's ABI so the TypeScript suites can run on that line).
// Installed once, when missing or when their package.json or lockfile changed (a stamp beside the
// install), with install scripts off: the binaries are in the platform packages, and better-sqlite3
// is built here by node-gyp against the headers the line's Node package ships (`--nodedir`), so
// nothing is downloaded but npm packages. Each build is kept in the user's cache (keyed by
// better-sqlite3's version and the ABI), so a fresh clone on the same machine copies it instead of
// compiling SQLite again.
//
// `node scripts/runtimes.mjs [--quiet] [--sqlite-lines 22,24,26]` installs; `runtimes()`
// (imported) installs and returns the binaries' paths. Node built-ins only. Linux x64 (the
// platform packages named in the lockfiles); elsewhere `runtimes()` throws
// RuntimesUnavailableError.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
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

/** The Node lines whose better-sqlite3 build this script can provide. */
export const NODE_LINES = ['22', '24', '26'];

/**
 * better-sqlite3 for one Node line: `tools/sqlite-lines/node<line>/better-sqlite3`, the package's
 * JavaScript with the native module built for that line's ABI — from the user's cache, else
 * compiled by node-gyp in the installed source against the headers of tools/runtimes' Node
 * package of that line (`--nodedir`), then cached. Returns that package directory.
 */
function sqliteFor(line, node, quiet) {
  const dir = installDirectory('sqlite-lines', quiet);
  const source = join(dir, 'node_modules', 'better-sqlite3');
  const target = join(dir, `node${line}`, 'better-sqlite3');
  const abi = run(node, ['-p', 'process.versions.modules']).stdout.trim();
  const { version } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
  const native = join(target, 'build', 'Release', 'better_sqlite3.node');
  const stamp = `${native}.${version}-abi${abi}`;
  if (existsSync(native) && existsSync(stamp)) return target;
  const cacheDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'priv-stark');
  const cached = join(cacheDir, `better-sqlite3-${version}-abi${abi}-linux-x64.node`);
  if (!existsSync(cached)) {
    log(
      quiet,
      `better-sqlite3 ${version}: compiling for Node ${line} (ABI ${abi}), once per machine`,
    );
    const started = Date.now();
    const nodeGyp = join(dir, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    const nodedir = dirname(dirname(node));
    run(node, [nodeGyp, 'rebuild', '--release', `--nodedir=${nodedir}`, '-j', '2'], {
      cwd: source,
      // node-gyp's `make` runs this line's node where it needs one; the headers are its package's
      // (the user's npm `nodedir` would point at the system Node's).
      env: {
        ...process.env,
        PATH: `${dirname(node)}:${process.env.PATH}`,
        npm_config_nodedir: nodedir,
      },
    });
    mkdirSync(cacheDir, { recursive: true });
    copyFileSync(join(source, 'build', 'Release', 'better_sqlite3.node'), cached);
    log(quiet, `better-sqlite3: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  rmSync(target, { recursive: true, force: true });
  cpSync(join(source, 'lib'), join(target, 'lib'), { recursive: true });
  copyFileSync(join(source, 'package.json'), join(target, 'package.json'));
  mkdirSync(dirname(native), { recursive: true });
  copyFileSync(cached, native);
  writeFileSync(stamp, '');
  return target;
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
 * Installs what is missing and returns the paths: `bun`, `deno`, `workerd`, `node[22|24|26]`, and
 * `sqlite[line]`, the better-sqlite3 package built for each line of `sqliteLines` (none unless
 * asked: only a run of the TypeScript suites on another line needs one). A no-op but for a stamp
 * check when all of it is present.
 * @throws RuntimesUnavailableError off Linux x64, or when npm or the build fails
 */
export function runtimes({ quiet = false, sqliteLines = [] } = {}) {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new RuntimesUnavailableError(
      `the pinned runtimes are Linux x64 packages (this is ${process.platform}-${process.arch})`,
    );
  return locked(() => {
    installDirectory('runtimes', quiet);
    const paths = binaries();
    for (const path of [paths.bun, paths.deno, paths.workerd, ...Object.values(paths.node)])
      if (!existsSync(path)) throw new RuntimesUnavailableError(`not installed: ${path}`);
    const sqlite = {};
    for (const line of sqliteLines) {
      if (!NODE_LINES.includes(String(line)))
        throw new RuntimesUnavailableError(
          `no Node ${line} here (lines: ${NODE_LINES.join(', ')})`,
        );
      sqlite[line] = sqliteFor(String(line), paths.node[line], quiet);
    }
    return { ...paths, sqlite };
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // `--sqlite-lines 22,24,26`: also build better-sqlite3 for those lines.
  const at = process.argv.indexOf('--sqlite-lines');
  const sqliteLines = at > 0 ? process.argv[at + 1].split(',') : undefined;
  const paths = runtimes({ quiet: process.argv.includes('--quiet'), sqliteLines });
  process.stdout.write(`${JSON.stringify(paths, null, 2)}\n`);
}
