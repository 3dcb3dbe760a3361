#!/usr/bin/env node
// Makes the Next.js merchant example (examples/next-merchant/) ready to start: its own npm
// dependencies installed from its own lockfile (in that directory only), `priv-stark` (this repository, built dist/) linked
// into its node_modules, and `next build` run. Each step runs only when its inputs changed (a
// content hash kept beside the output), so a CI run installs and builds it once and every later
// call is a no-op. Never touches the repository's own node_modules. Node built-ins only.
//
//   node scripts/next-merchant.mjs   (scripts/test.mjs runs it before the tests; the Next test too)

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const app = join(root, 'examples', 'next-merchant');

function log(message) {
  process.stderr.write(`[next-merchant] ${message}\n`);
}

function run(command, args) {
  const result = spawnSync(command, args, {
    cwd: app,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (result.error) throw new Error(`${command} could not start: ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed with status ${result.status}`);
}

function filesUnder(dir, filter = () => true) {
  if (!existsSync(dir)) return [];
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, filter);
    return filter(path) ? [path] : [];
  });
}

function fingerprint(paths) {
  const hash = createHash('sha256');
  for (const path of paths.sort()) hash.update(relative(root, path)).update(readFileSync(path));
  return hash.digest('hex');
}

/** Runs `build` unless the stamp matches the inputs' fingerprint and `output` exists. */
function step(name, { inputs, output, stamp }, build) {
  const print = fingerprint(inputs);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === print && existsSync(output)) return;
  log(`${name}: running`);
  const started = Date.now();
  build();
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, print);
  log(`${name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** `node_modules/priv-stark` → the repository, as an installed package would sit there. */
function linkPrivStark() {
  const link = join(app, 'node_modules', 'priv-stark');
  const exists = (() => {
    try {
      return lstatSync(link).isSymbolicLink();
    } catch {
      return false;
    }
  })();
  if (exists) return;
  rmSync(link, { recursive: true, force: true });
  symlinkSync(relative(dirname(link), root), link, 'dir');
}

export function prepareNextMerchant() {
  if (!existsSync(join(root, 'dist', 'server', 'index.js')))
    throw new Error('dist/ is not built: run node scripts/build.mjs first');
  step(
    'npm install',
    {
      inputs: [join(app, 'package.json'), join(app, 'package-lock.json')],
      output: join(app, 'node_modules', 'next', 'package.json'),
      stamp: join(app, 'node_modules', '.priv-stark-deps'),
    },
    // `npm install` from the lockfile rather than `npm ci`: npm 11 rejects the lockfile's
    // platform-specific optional packages (@next/swc-*) under `ci` (as the repository's own).
    () => run('npm', ['install', '--no-audit', '--no-fund']),
  );
  linkPrivStark();
  step(
    'next build',
    {
      inputs: [
        join(app, 'package.json'),
        join(app, 'package-lock.json'),
        join(app, 'next.config.mjs'),
        join(app, 'tsconfig.json'),
        ...filesUnder(join(app, 'app')),
        // The bundle holds the parts of priv-stark the app imports, with their @x402/core.
        ...filesUnder(join(root, 'dist', 'server')),
        ...filesUnder(join(root, 'dist', 'scheme')),
        join(root, 'package.json'),
        join(root, 'node_modules', '@x402', 'core', 'package.json'),
      ],
      output: join(app, '.next', 'BUILD_ID'),
      stamp: join(app, '.next', 'priv-stark-build.stamp'),
    },
    () =>
      run(process.execPath, [
        join(app, 'node_modules', 'next', 'dist', 'bin', 'next'),
        'build',
        '--webpack',
      ]),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) prepareNextMerchant();
