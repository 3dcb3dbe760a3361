#!/usr/bin/env node
// The runtimes the tests run the package on, from the npm registry into directories of their own:
// `tools/runtimes/` (Bun, Deno, workerd and the maintained Node lines 22, 24 and 26, each pinned by
// its package-lock.json) and `tools/sqlite-node26/` (better-sqlite3, the project's version, built
// for Node 26's ABI so the TypeScript suites can run under Node 26). Installed once, when missing
// or when their package.json or lockfile changed (a stamp beside the install), with install
// scripts off: the binaries are in the platform packages, and better-sqlite3 is built here by
// node-gyp against the headers the Node 26 package ships (`--nodedir`), so nothing is downloaded
// but npm packages. That build is kept in the user's cache (keyed by better-sqlite3's version and
// the ABI), so a fresh clone on the same machine copies it instead of compiling SQLite again.
//
// `node scripts/runtimes.mjs [--quiet]` installs; `runtimes()` (imported) installs and returns
// the binaries' paths. Node built-ins only. Linux x64 (the platform packages named in the
// lockfiles); elsewhere `runtimes()` throws RuntimesUnavailableError.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
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

/** better-sqlite3 built for Node 26: from the cache, else compiled (and cached). */
function sqliteForNode26(node26, quiet) {
  const dir = installDirectory('sqlite-node26', quiet);
  const pkg = join(dir, 'node_modules', 'better-sqlite3');
  const built = join(pkg, 'build', 'Release', 'better_sqlite3.node');
  const abi = run(node26, ['-p', 'process.versions.modules']).stdout.trim();
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const cacheDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'priv-stark');
  const cached = join(cacheDir, `better-sqlite3-${version}-abi${abi}-linux-x64.node`);
  if (existsSync(built) && existsSync(`${built}.abi${abi}`)) return pkg;
  if (existsSync(cached)) {
    mkdirSync(dirname(built), { recursive: true });
    copyFileSync(cached, built);
  } else {
    log(quiet, `better-sqlite3 ${version}: compiling for Node 26 (ABI ${abi}), once per machine`);
    const started = Date.now();
    const nodeGyp = join(dir, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    const nodedir = dirname(dirname(node26));
    run(node26, [nodeGyp, 'rebuild', '--release', `--nodedir=${nodedir}`, '-j', '2'], {
      cwd: pkg,
      // node-gyp's `make` runs the Node 26 binary where it needs a node; no npm config (the
      // user's `nodedir` would point at the system Node's headers).
      env: {
        ...process.env,
        PATH: `${dirname(node26)}:${process.env.PATH}`,
        npm_config_nodedir: nodedir,
      },
    });
    mkdirSync(cacheDir, { recursive: true });
    copyFileSync(built, cached);
    log(quiet, `better-sqlite3: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  writeFileSync(`${built}.abi${abi}`, '');
  return pkg;
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
 * Installs what is missing and returns the paths: `bun`, `deno`, `workerd`, `node[22|24|26]`,
 * and `sqliteNode26`, the better-sqlite3 package directory built for Node 26.
 * @throws RuntimesUnavailableError off Linux x64, or when npm or the build fails
 */
export function runtimes({ quiet = false } = {}) {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new RuntimesUnavailableError(
      `the pinned runtimes are Linux x64 packages (this is ${process.platform}-${process.arch})`,
    );
  return locked(() => {
    installDirectory('runtimes', quiet);
    const paths = binaries();
    for (const path of [paths.bun, paths.deno, paths.workerd, ...Object.values(paths.node)])
      if (!existsSync(path)) throw new RuntimesUnavailableError(`not installed: ${path}`);
    return { ...paths, sqliteNode26: sqliteForNode26(paths.node[26], quiet) };
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const paths = runtimes({ quiet: process.argv.includes('--quiet') });
  process.stdout.write(`${JSON.stringify(paths, null, 2)}\n`);
}
