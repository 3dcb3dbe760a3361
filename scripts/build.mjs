#!/usr/bin/env node
// Brings a checkout up to date before `npm start` / `npm test`: npm dependencies, the native
// addon, the WebAssembly module, the contract artifacts and the compiled TypeScript. Each step
// runs only when its inputs changed since the last run (a content hash kept beside the output), so
// later runs are quick.
// On a fresh clone the WebAssembly compile starts at once, beside `npm install` (it needs nothing
// from node_modules until its optimizer), and the native addon follows the install. `--start`
// (what `npm start` runs) builds the WebAssembly module only when the native addon cannot be built
// — the service needs one backend — and compiles the addon's dependencies with plain cargo, exactly
// as napi's CLI will ask (same profile and target), while npm installs that CLI.
// Node built-ins only: this runs before `npm install`.

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  copyFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { supportedNode } from './runtimes.mjs';
import { hostTriple } from './rust-host.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const forStart = process.argv.includes('--start');

function log(message) {
  if (!quiet) process.stderr.write(`[build] ${message}\n`);
}

/**
 * Runs a command to its end. Alone, its output goes straight to the terminal; beside another
 * build (`buffered`) it is kept and printed whole when it ends, so two cargo logs never interleave.
 */
function run(command, args, { buffered = false, ...options } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: root,
      stdio: ['ignore', buffered ? 'pipe' : 'inherit', buffered ? 'pipe' : 'inherit'],
      ...options,
    });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => reject(new Error(`${command} could not start: ${error.message}`)));
    child.on('close', (status) => {
      if (output.length > 0) process.stderr.write(Buffer.concat(output));
      if (status === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} failed with status ${status}`));
    });
  });
}

function filesUnder(path, filter) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const child = join(path, entry.name);
    if (entry.isDirectory()) return filesUnder(child, filter);
    return filter(child) ? [child] : [];
  });
}

function fingerprint(paths, extra = '') {
  const hash = createHash('sha256').update(extra);
  for (const path of paths.sort()) hash.update(path).update(readFileSync(join(root, path)));
  return hash.digest('hex');
}

/**
 * Runs `build` (async) unless the stamp at `stampPath` matches the inputs' fingerprint and
 * `outputs` exist; resolves when the step is done or skipped.
 */
async function step(name, { inputs, outputs, stampPath, extra }, build) {
  if (only.length > 0 && !only.includes(name)) return;
  const print = fingerprint(inputs, extra);
  const stamp = join(root, stampPath);
  const fresh =
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8') === print &&
    outputs.every((o) => existsSync(join(root, o)));
  if (fresh) return;
  log(`${name}: building`);
  const started = Date.now();
  await build();
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, print);
  log(`${name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const rustInputs = () => [
  'Cargo.toml',
  'Cargo.lock',
  '.cargo/config.toml',
  ...filesUnder('crates', (p) => /\.(rs|toml)$/.test(p) && !p.includes(`${'tests'}/`)),
];

// 1. npm dependencies
const deps = step(
  'deps',
  {
    inputs: [
      'package.json',
      ...(existsSync(join(root, 'package-lock.json')) ? ['package-lock.json'] : []),
    ],
    outputs: ['node_modules'],
    stampPath: 'node_modules/.priv-stark-deps',
  },
  // `npm install` rather than `npm ci`: npm 11 rejects this lockfile's platform-specific optional
  // packages under `ci` although it installs from it faithfully.
  () => run('npm', ['install', '--no-audit', '--no-fund'], { buffered: true }),
);

// 2. native addon (napi-rs), typings regenerated into src/core/native-binding.d.ts
const nativeName = `priv-stark.${process.platform}-${process.arch}${process.platform === 'linux' ? '-gnu' : ''}.node`;
const native = step(
  'native',
  {
    inputs: rustInputs(),
    outputs: [`build/native/${nativeName}`],
    stampPath: 'build/native/.stamp',
    extra: 'release',
  },
  async () => {
    // For `npm start` (no WebAssembly build beside it) the dependencies compile while npm
    // installs; a failure here is napi's to report below. Beside the WebAssembly build too, three
    // jobs on two cores made the whole build slower (531 s against 452 in a fresh-clone CI).
    const host = !forStart ? undefined : hostTriple();
    const early = host
      ? run(
          'cargo',
          [
            'build',
            '--manifest-path',
            'crates/napi/Cargo.toml',
            '--release',
            '--target',
            host,
            '--quiet',
          ],
          { buffered: true },
        ).catch(() => undefined)
      : Promise.resolve();
    await deps;
    await early;
    await run(
      join(root, 'node_modules/.bin/napi'),
      [
        'build',
        '--platform',
        '--release',
        '--manifest-path',
        'crates/napi/Cargo.toml',
        '--package-json-path',
        'package.json',
        '--output-dir',
        'build/native',
        '--no-js',
        '--dts',
        '../../src/core/native-binding.d.ts',
        '--no-dts-header',
      ],
      { buffered: true },
    );
  },
);

// 3. WebAssembly module: rustup's wasm32 target or Debian's rustc-web with -Zbuild-std
const wasmStep = () =>
  step(
    'wasm',
    {
      inputs: [...rustInputs(), 'scripts/wasm-toolchain.sh'],
      outputs: ['build/wasm/priv_stark.wasm'],
      stampPath: 'build/wasm/.stamp',
      // The optimizer's level below: a change rebuilds.
      extra: 'wasm-opt -O1',
    },
    async () => {
      const probe = spawnSync('bash', [join(root, 'scripts/wasm-toolchain.sh')], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (probe.status !== 0) throw new Error('no WebAssembly toolchain (see the message above)');
      const env = {
        ...process.env,
        CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS: '-C target-feature=+simd128',
      };
      const cargo = 'cargo';
      for (const line of probe.stdout.split('\n')) {
        const match = /^([A-Z_0-9]+)='?(.*?)'?$/.exec(line.trim());
        if (!match) continue;
        if (match[1] === 'WASM_CARGO' || match[1] === 'WASM_ROUTE') continue;
        env[match[1]] = match[2];
      }
      const buildStd = probe.stdout.includes('WASM_ROUTE=rustc-web')
        ? ['-Zbuild-std=std,panic_abort']
        : [];
      await run(
        cargo,
        [
          'build',
          '-p',
          'priv-stark-wasm',
          '--target',
          'wasm32-unknown-unknown',
          '--profile',
          'wasm',
          '--target-dir',
          'target/wasm',
          ...buildStd,
        ],
        { env, buffered: true },
      );
      await deps; // the optimizer below is an npm package
      mkdirSync(join(root, 'build/wasm'), { recursive: true });
      const raw = 'target/wasm/wasm32-unknown-unknown/wasm/priv_stark_wasm.wasm';
      const out = 'build/wasm/priv_stark.wasm';
      const wasmOpt = join(root, 'node_modules/binaryen/bin/wasm-opt');
      if (existsSync(wasmOpt)) {
        await run(process.execPath, [
          wasmOpt,
          raw,
          // -O1: -O2 and above made this module 13 % slower to verify in Node 20's V8; -O1 is as
          // fast as no wasm-opt and 4 % smaller (docs/proof.md §7.2).
          '-O1',
          '--enable-bulk-memory',
          '--enable-bulk-memory-opt',
          '--enable-sign-ext',
          '--enable-mutable-globals',
          '--enable-nontrapping-float-to-int',
          '--enable-simd',
          '--enable-call-indirect-overlong',
          '-o',
          out,
        ]);
      } else {
        copyFileSync(join(root, raw), join(root, out));
      }
    },
  );

// On a Node older than the supported lines the CLI runs itself on the checkout's Node 24
// (src/cli/supported-node.ts; better-sqlite3 13 does not load on Node 20): `npm start` fetches it
// from npm beside the install. A failure is the CLI's to report when it needs it.
const ltsNode =
  forStart && !supportedNode(process.versions.node)
    ? new Promise((resolve) => {
        log(`node-lts: Node ${process.versions.node} is not a supported line; fetching Node 24`);
        const started = Date.now();
        spawn(process.execPath, [join(root, 'scripts/runtimes.mjs'), '--lts', '--quiet'], {
          cwd: root,
          stdio: 'ignore',
        }).on('close', (status) => {
          log(
            `node-lts: ${status === 0 ? 'done' : `failed (${status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          );
          resolve();
        });
      })
    : Promise.resolve();

// `npm start` needs one backend: the WebAssembly module only when the native addon failed.
const wasm = forStart ? Promise.resolve() : wasmStep();
const backend = forStart
  ? native.catch(async (error) => {
      log(`native: ${error.message}; building the WebAssembly module instead`);
      await wasmStep();
    })
  : native;

// 4. Solidity → the committed contract artifacts (contracts/artifacts/ and
// src/chain/contract-artifacts.ts with a module per contract under src/chain/artifacts/,
// scripts/compile-contracts.mjs), only when contracts/ or the
// pinned compiler changed: the stamp is committed beside the artifacts, so a clone whose
// artifacts match its sources compiles nothing (nothing is compiled at run time either).
const pins = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies;
const contracts = step(
  'contracts',
  {
    inputs: [
      'scripts/compile-contracts.mjs',
      ...filesUnder('contracts', (p) => p.endsWith('.sol')),
    ],
    outputs: [
      'src/chain/contract-artifacts.ts',
      'src/chain/artifacts/priv-stark-escrow.ts',
      'contracts/artifacts/escrow.input.json',
    ],
    stampPath: 'contracts/artifacts/sources.sha256',
    extra: `solc ${pins.solc}, @openzeppelin/contracts ${pins['@openzeppelin/contracts']}`,
  },
  async () => {
    await deps; // solc and OpenZeppelin are npm packages
    await run(process.execPath, [join(root, 'scripts/compile-contracts.mjs')]);
  },
);

// 5. TypeScript → dist/, once the addon's typings and the contract artifacts are regenerated
const built = await Promise.allSettled([deps, backend, wasm, contracts, ltsNode]);
const failures = new Set(built.filter((r) => r.status === 'rejected').map((r) => r.reason.message));
if (failures.size > 0) {
  for (const message of failures) process.stderr.write(`[build] ${message}\n`);
  process.exit(1);
}
await step(
  'ts',
  {
    inputs: ['tsconfig.json', 'tsconfig.build.json', ...filesUnder('src', (p) => /\.ts$/.test(p))],
    outputs: ['dist/index.js'],
    stampPath: 'dist/.stamp',
  },
  () =>
    run(process.execPath, [
      join(root, 'node_modules/typescript/bin/tsc'),
      '-p',
      'tsconfig.build.json',
    ]),
);

log(`up to date (${relative(process.cwd(), root) || '.'})`);
