// Verification on every runtime the package supports, with the published API on the checked-in
// fixture: `loadCore()` then `core.verifySpend` (testkit/verify-fixture.mjs) under the machine's
// Node, Node 22, 24 and 26, Bun and Deno, native and WebAssembly (`PRIV_STARK_BACKEND`): the
// median of RUNS sequential verifications after one warm call, in one process per case. workerd
// (WebAssembly from a precompiled module, testkit/workerd.ts) is timed from outside, since a
// worker's clocks stand still while it computes: a request verifying 1 + RUNS_WORKERD times minus
// a request verifying once, divided, the median of REPEATS pairs (plus the round trip of one).
//
// Run: npm run bench:runtimes → bench/results/runtimes.json and runtimes.md.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

// @ts-expect-error a plain .mjs script without typings
import { runtimes } from '../scripts/runtimes.mjs';
import { startWorkerd } from '../testkit/workerd.js';
import { environment, writeResults } from './report.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = Number(process.env.RUNS ?? 300);
const RUNS_WORKERD = Number(process.env.RUNS_WORKERD ?? 100);
const REPEATS = Number(process.env.REPEATS ?? 9);

interface Paths {
  bun: string;
  deno: string;
  workerd: string;
  node: Record<'22' | '24' | '26', string>;
}

interface Result {
  readonly runtime: string;
  readonly version: string;
  readonly backend: 'native' | 'wasm';
  readonly medianMs: number;
  readonly how: string;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

function versionOf(command: string, args: string[]): string {
  const out = spawnSync(command, args, { encoding: 'utf8' });
  return (out.stdout || out.stderr).trim().split('\n')[0]!;
}

function inProcess(name: string, command: string, args: string[], version: string): Result[] {
  return (['native', 'wasm'] as const).map((backend) => {
    const run = spawnSync(
      command,
      [...args, `${ROOT}testkit/verify-fixture.mjs`, 'env', String(RUNS)],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, PRIV_STARK_BACKEND: backend, NO_COLOR: '1' },
        timeout: 300_000,
      },
    );
    const line = run.stdout.trim().split('\n').at(-1) ?? '';
    const parsed = JSON.parse(line) as { verdict: { ok: boolean }; medianMs: number };
    if (!parsed.verdict.ok) throw new Error(`${name} ${backend}: the fixture did not verify`);
    process.stderr.write(`${name} ${backend}: ${parsed.medianMs.toFixed(3)} ms\n`);
    return {
      runtime: name,
      version,
      backend,
      medianMs: parsed.medianMs,
      how: `median of ${RUNS} verifySpend calls in the process`,
    };
  });
}

async function inWorkerd(paths: Paths): Promise<Result[]> {
  const workerd = await startWorkerd(paths.workerd, `${ROOT}testkit/workerd-worker.ts`);
  try {
    const proof = readFileSync(`${ROOT}test/fixtures/spend/proof.bin`).toString('hex');
    const f = JSON.parse(readFileSync(`${ROOT}test/fixtures/spend/public.json`, 'utf8'));
    const publicInputs = {
      root: f.root,
      nullifier: f.nullifier,
      change: f.commitment,
      amount: f.amount,
      ctx: f.context,
    };
    const timed = async (runs: number) => {
      const started = performance.now();
      const response = await fetch(workerd.url, {
        method: 'POST',
        body: JSON.stringify({ proof, publicInputs, runs }),
      });
      const { verdict } = (await response.json()) as { verdict: { ok: boolean } };
      if (!verdict.ok) throw new Error('workerd: the fixture did not verify');
      return performance.now() - started;
    };
    await timed(20);
    const perVerify: number[] = [];
    const single: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const one = await timed(1);
      const many = await timed(1 + RUNS_WORKERD);
      single.push(one);
      perVerify.push((many - one) / RUNS_WORKERD);
    }
    const version = versionOf(paths.workerd, ['--version']);
    process.stderr.write(`workerd wasm: ${median(perVerify).toFixed(3)} ms\n`);
    return [
      {
        runtime: 'workerd',
        version,
        backend: 'wasm',
        medianMs: median(perVerify),
        how: `(request of ${1 + RUNS_WORKERD} verifications − request of 1) / ${RUNS_WORKERD}, median of ${REPEATS}`,
      },
      {
        runtime: 'workerd (HTTP round trip)',
        version,
        backend: 'wasm',
        medianMs: median(single),
        how: `one POST verifying once, from Node over loopback, median of ${REPEATS}`,
      },
    ];
  } finally {
    await workerd.close();
  }
}

const paths = runtimes() as Paths;
const load = loadavg().map((l) => Number(l.toFixed(2)));
const results: Result[] = [
  ...inProcess('node (this machine)', process.execPath, [], process.version),
  ...inProcess('node 22', paths.node['22'], [], versionOf(paths.node['22'], ['--version'])),
  ...inProcess('node 24', paths.node['24'], [], versionOf(paths.node['24'], ['--version'])),
  ...inProcess('node 26', paths.node['26'], [], versionOf(paths.node['26'], ['--version'])),
  ...inProcess('bun', paths.bun, [], versionOf(paths.bun, ['--version'])),
  ...inProcess('deno', paths.deno, ['run', '-A'], versionOf(paths.deno, ['--version'])),
  ...(await inWorkerd(paths)),
];
const loadAfter = loadavg().map((l) => Number(l.toFixed(2)));

const markdown = [
  '## verifySpend on each runtime (the checked-in fixture, published API)',
  '',
  `Load average before ${load.join(' / ')}, after ${loadAfter.join(' / ')} (1/5/15 min; 2 cores shared: absolute numbers move with it).`,
  '',
  '| runtime | version | backend | median ms | how |',
  '|---|---|---|---:|---|',
  ...results.map(
    (r) => `| ${r.runtime} | ${r.version} | ${r.backend} | ${r.medianMs.toFixed(3)} | ${r.how} |`,
  ),
].join('\n');
await writeResults(
  'runtimes',
  { environment: { ...environment(), load, loadAfter }, results },
  markdown,
);
process.stdout.write(`${markdown}\n`);
