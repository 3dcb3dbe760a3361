#!/usr/bin/env node
// `npm test`: every check of the project, in order, continuing past a failure so one run shows
// everything; exits non-zero if any step failed. Ends with one summary line of test counts.
// The two installs that mostly wait on the registry (the pinned runtimes, the Next.js example)
// run beside the Rust checks, each into its own log under build/, printed whole when it ends.

import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { runtimes, supportedNode } from './runtimes.mjs';
import { hostTriple } from './rust-host.mjs';
import { nodeLineCommand } from './test-node-line.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitestReport = join(root, 'build', 'vitest-report.json');
const vitestNode26Report = join(root, 'build', 'vitest-node26-report.json');
let passed = 0;
let failed = 0;
const failedSteps = [];

function step(name, command, args, { count, env } = {}) {
  process.stderr.write(`\n[test] ${name}: ${command} ${args.join(' ')}\n`);
  const started = Date.now();
  const result = spawnSync(command, args, {
    cwd: root,
    env: env ?? process.env,
    encoding: 'utf8',
    stdio: ['ignore', count === 'cargo' ? 'pipe' : 'inherit', 'inherit'],
    maxBuffer: 256 * 1024 * 1024,
  });
  if (count === 'cargo' && result.stdout) {
    process.stdout.write(result.stdout);
    for (const match of result.stdout.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
      passed += Number(match[1]);
      failed += Number(match[2]);
    }
  }
  const ok = result.status === 0;
  if (!ok) failedSteps.push(name);
  process.stderr.write(
    `[test] ${name}: ${ok ? 'ok' : `FAILED (status ${result.status ?? result.signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

/** Starts a step beside the others; `settle(pending)` waits for it and reports it like `step`. */
function besideStep(name, command, args) {
  const log = join(root, 'build', `${name.replaceAll(' ', '-')}.log`);
  mkdirSync(dirname(log), { recursive: true });
  const fd = openSync(log, 'w');
  process.stderr.write(`\n[test] ${name} (beside the next steps): ${command} ${args.join(' ')}\n`);
  const started = Date.now();
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ name, log, started, status: error.message }));
    child.on('close', (status, signal) =>
      resolve({ name, log, started, status: status ?? signal }),
    );
  });
}

async function settle(pending) {
  const { name, log, started, status } = await pending;
  process.stderr.write(`\n[test] ${name}: output\n`);
  if (existsSync(log)) process.stderr.write(readFileSync(log));
  const ok = status === 0;
  if (!ok) failedSteps.push(name);
  process.stderr.write(
    `[test] ${name}: ${ok ? 'ok' : `FAILED (status ${status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s (beside)\n`,
  );
}

const bin = (name) => join(root, 'node_modules', '.bin', name);

step('system packages', 'bash', [join(root, 'scripts', 'system-deps.sh')]);
// The pinned runtimes (Bun, Deno, workerd, Node 22/24/26) for the suites under test/runtimes and
// the two vitest passes (Node 24, Node 26); the Next.js merchant example's own dependencies
// and build (a no-op when nothing changed), so its test does not spend its time installing.
const runtimesInstalled = besideStep('runtimes', process.execPath, [
  join(root, 'scripts', 'runtimes.mjs'),
]);
const nextMerchantBuilt = besideStep('next merchant', process.execPath, [
  join(root, 'scripts', 'next-merchant.mjs'),
]);
step('rustfmt', 'cargo', ['fmt', '--all', '--', '--check']);
// Clippy's lints and the Rust tests in one build, in the native addon's profile and target
// (release, the host triple) so that the dependencies `npm run build` compiled for the addon serve
// the tests too (Cargo.toml, crates/napi/Cargo.toml; docs/build.md, "Profiles"): only the
// workspace's crates compile here. clippy-driver wraps those crates alone
// (RUSTC_WORKSPACE_WRAPPER) and takes `-D warnings` from CLIPPY_ARGS, as `cargo clippy` hands it
// over; a `-D warnings` in rustflags would reach every dependency's fingerprint and rebuild them.
// The test build covers every target the workspace has (libraries, tests, examples; no benches).
const host = hostTriple();
step(
  'clippy and cargo test',
  'cargo',
  ['test', '--workspace', '--release', ...(host ? ['--target', host] : [])],
  {
    count: 'cargo',
    env: {
      ...process.env,
      RUSTC_WORKSPACE_WRAPPER: 'clippy-driver',
      CLIPPY_ARGS: '-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__',
    },
  },
);
step('typecheck', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']);
step('biome', bin('biome'), ['ci', '--error-on-warnings', '.']);
// The installs started beside the checks above; the paths come from a stamp check once the
// install is done (a failure to install is a failure).
await settle(runtimesInstalled);
let installed = null;
try {
  installed = runtimes({ quiet: true });
} catch (error) {
  if (!failedSteps.includes('runtimes')) failedSteps.push('runtimes');
  process.stderr.write(`[test] runtimes: FAILED (${error.message})\n`);
}
await settle(nextMerchantBuilt);

function countReport(path, name) {
  if (!existsSync(path)) {
    failedSteps.push(`${name} report`);
    return;
  }
  const report = JSON.parse(readFileSync(path, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
}

// Every TypeScript suite on the active LTS line (Node 24, from tools/runtimes), whatever Node runs
// `npm test`: users run the supported lines, and this machine's Node 20 is past its end of life
// (better-sqlite3 13 does not load on it). Without the runtimes (their install failed, already a
// failed step, or this is not Linux x64) the suites run on this Node when it is a supported line.
rmSync(vitestReport, { force: true });
const reporters = ['--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`];
if (installed) {
  const { command, args, env } = nodeLineCommand('24', reporters, installed, []);
  step('vitest (node 24)', command, args, { env });
} else if (supportedNode(process.versions.node)) {
  step(`vitest (node ${process.versions.node})`, bin('vitest'), ['run', ...reporters]);
} else {
  process.stderr.write(
    `[test] vitest: no supported Node to run it on (this is ${process.version})\n`,
  );
  failedSteps.push('vitest (no supported Node)');
}
countReport(vitestReport, 'vitest');

// The TypeScript suites again on the newest maintained Node line (scripts/test-node-line.mjs says
// which and why).
if (installed) {
  rmSync(vitestNode26Report, { force: true });
  const { command, args, env } = nodeLineCommand(
    '26',
    ['--reporter=default', '--reporter=json', `--outputFile.json=${vitestNode26Report}`],
    installed,
  );
  step('vitest (node 26)', command, args, { env });
  countReport(vitestNode26Report, 'vitest (node 26)');
}

// CI runs on a fresh clone: whatever the build and the suites wrote must be ignored output, never a
// tracked file rewritten or a stray file left (a lockfile npm completed, a fixture a test rewrote).
// Outside CI a developer's own edits are expected, so only CI checks.
if (process.env.CI === 'true') {
  const status = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
  if (status.status === 0) {
    const left = status.stdout.trim();
    process.stderr.write(
      `\n[test] work tree as cloned: ${left === '' ? 'ok' : `FAILED, changed or left:\n${left}`}\n`,
    );
    if (left !== '') failedSteps.push('work tree as cloned');
  }
}

process.stdout.write(`\n${failedSteps.length ? `failed steps: ${failedSteps.join(', ')}\n` : ''}`);
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exitCode = failedSteps.length || failed ? 1 : 0;
