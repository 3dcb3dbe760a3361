#!/usr/bin/env node
// `npm test`: every check of the project, in order, continuing past a failure so one run shows
// everything; exits non-zero if any step failed. Ends with one summary line of test counts.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitestReport = join(root, 'build', 'vitest-report.json');
let passed = 0;
let failed = 0;
const failedSteps = [];

function step(name, command, args, { count } = {}) {
  process.stderr.write(`\n[test] ${name}: ${command} ${args.join(' ')}\n`);
  const started = Date.now();
  const result = spawnSync(command, args, {
    cwd: root,
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

const bin = (name) => join(root, 'node_modules', '.bin', name);

step('system packages', 'bash', [join(root, 'scripts', 'system-deps.sh')]);
step('rustfmt', 'cargo', ['fmt', '--all', '--', '--check']);
step('clippy', 'cargo', ['clippy', '--workspace', '--all-targets', '--', '-D', 'warnings']);
step('cargo test', 'cargo', ['test', '--workspace'], { count: 'cargo' });
step('typecheck', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']);
step('biome', bin('biome'), ['ci', '--error-on-warnings', '.']);
// The Next.js merchant example's own dependencies and build (once; a no-op when nothing changed),
// before vitest so its test does not spend its time installing.
step('next merchant', process.execPath, [join(root, 'scripts', 'next-merchant.mjs')]);
rmSync(vitestReport, { force: true });
step('vitest', bin('vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestReport}`,
]);
if (existsSync(vitestReport)) {
  const report = JSON.parse(readFileSync(vitestReport, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
} else {
  failedSteps.push('vitest report');
}

process.stdout.write(`\n${failedSteps.length ? `failed steps: ${failedSteps.join(', ')}\n` : ''}`);
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exitCode = failedSteps.length || failed ? 1 : 0;
