// Two builds of the service side by side: bench:flow and bench:http run against this checkout's
// build and another one (e.g. the tree before a restructure), interleaved round by round in the
// order A B, B A, A B, … so that drift of the machine's load falls on both alike; each bench run
// starts the service under test from its build's `dist/cli/main.js` (BENCH_SERVICE_MAIN), while the
// load generators and the fixtures are this checkout's for both; each pool is funded by its own
// build's ledger, so its database has the schema that build's service opens. For
// every figure: the median over the rounds of each build, and the change from the other build to
// this one; a throughput that fell, or a latency or CPU time that rose, by more than 5 % is
// flagged.
//
//   BENCH_BASE=/path/to/other/checkout npm run bench:builds   (that checkout built: npm run build)
//
// BENCH_THIS=/path/to/a/third/checkout (built) puts that build in this checkout's place — e.g. the
// last commit of a restructure against the tree before it, with today's benches driving both.
//
// BENCH_ROUNDS (3) rounds; BENCH_DURATION_S (10) per measured run, passed to both benches;
// BENCH_FLOW_ONLY (default: every flow and the routes on SQLite and PostgreSQL) narrows bench:flow
// (its BENCH_ONLY), BENCH_HTTP=0 leaves bench:http out — to look again at a few figures. Results:
// bench/results/builds.json, builds.md and builds.svg; a narrowed run prints its table and leaves
// them untouched, unless BENCH_RESULTS_AS names the results it writes instead (a name
// bench/charts.ts draws as a builds chart, e.g. `builds-routes`).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadAverage } from './load-generators.js';
import { environment, writeResults } from './report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASE = process.env.BENCH_BASE ? resolve(process.env.BENCH_BASE) : null;
const THIS = process.env.BENCH_THIS ? resolve(process.env.BENCH_THIS) : ROOT;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WITH_HTTP = process.env.BENCH_HTTP !== '0';
const PARTIAL = !WITH_HTTP || process.env.BENCH_FLOW_ONLY !== undefined;
/** A change worse than this, in either direction a figure can get worse, is flagged. */
const TOLERANCE = 0.05;
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

if (BASE === null || !existsSync(join(BASE, 'dist/cli/main.js'))) {
  process.stderr.write(
    'bench:builds needs BENCH_BASE: the root of another checkout of this project, built (dist/cli/main.js)\n',
  );
  process.exit(2);
}
if (!existsSync(join(THIS, 'dist/cli/main.js'))) {
  process.stderr.write(`bench:builds: BENCH_THIS (${THIS}) is not built (dist/cli/main.js)\n`);
  process.exit(2);
}

/** The two builds, by their role in the comparison. */
const BUILDS = {
  base: { root: BASE, main: join(BASE, 'dist/cli/main.js') },
  this: { root: THIS, main: join(THIS, 'dist/cli/main.js') },
} as const;
type BuildName = keyof typeof BUILDS;

const commitOf = (root: string) =>
  execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();

/** One figure of one run: higher is better (throughput) or lower is (latency, CPU). */
interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly value: number;
}

/** Runs one bench script against `build` and returns its results JSON. */
function runBench(script: string, build: BuildName, env: Record<string, string>): unknown {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-builds-'));
  const out = join(dir, 'results.json');
  try {
    const result = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'bench', script)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          ...env,
          BENCH_SERVICE_MAIN: BUILDS[build].main,
          BENCH_JSON_OUT: out,
        },
      },
    );
    if (result.status !== 0)
      throw new Error(`${script} against ${build} failed (${result.status})`);
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface FlowJson {
  flows: {
    store: string;
    flow: { id: string };
    paymentsPerSec: number;
    latencyMs: { p50: number };
    serverCpuMsPerPayment: number;
  }[];
  routes: {
    store: string;
    handOver?: { paymentsPerSec: number; serverCpuMsPerPayment: number };
    verifySaturated?: { reqPerSec: number; serverCpuMsPerRequest: number };
    verifyPaced?: { latencyMs: { p50: number } };
  }[];
}

interface HttpJson {
  verifyMax: { reqPerSec: number; serverCpuMsPerRequest: number };
  verifyFixed: { latencyMs: { p50: number; p99: number } };
  settle: { serverCpuMsPerRequest: number };
  settledPerSec: number;
}

function flowFigures(json: FlowJson): Figure[] {
  const figures: Figure[] = [];
  for (const r of json.flows) {
    const at = `flow ${r.store} ${r.flow.id}`;
    figures.push(
      { name: `${at}: payments/s`, unit: '/s', better: 'higher', value: r.paymentsPerSec },
      { name: `${at}: p50`, unit: 'ms', better: 'lower', value: r.latencyMs.p50 },
      {
        name: `${at}: server CPU`,
        unit: 'ms/payment',
        better: 'lower',
        value: r.serverCpuMsPerPayment,
      },
    );
  }
  for (const r of json.routes) {
    const at = `flow ${r.store} routes`;
    if (r.handOver)
      figures.push({
        name: `${at}: POST /proofs alone`,
        unit: '/s',
        better: 'higher',
        value: r.handOver.paymentsPerSec,
      });
    if (r.verifySaturated)
      figures.push({
        name: `${at}: compact /verify saturated`,
        unit: 'req/s',
        better: 'higher',
        value: r.verifySaturated.reqPerSec,
      });
    if (r.verifyPaced)
      figures.push({
        name: `${at}: compact /verify paced p50`,
        unit: 'ms',
        better: 'lower',
        value: r.verifyPaced.latencyMs.p50,
      });
  }
  return figures;
}

function httpFigures(json: HttpJson): Figure[] {
  return [
    {
      name: 'http: /verify saturated',
      unit: 'req/s',
      better: 'higher',
      value: json.verifyMax.reqPerSec,
    },
    {
      name: 'http: /verify server CPU',
      unit: 'ms/req',
      better: 'lower',
      value: json.verifyMax.serverCpuMsPerRequest,
    },
    {
      name: 'http: /verify at 500/s p50',
      unit: 'ms',
      better: 'lower',
      value: json.verifyFixed.latencyMs.p50,
    },
    {
      name: 'http: /verify at 500/s p99',
      unit: 'ms',
      better: 'lower',
      value: json.verifyFixed.latencyMs.p99,
    },
    { name: 'http: /settle durable', unit: '/s', better: 'higher', value: json.settledPerSec },
  ];
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const loadAtStart = loadAverage();
const commits = { base: commitOf(BUILDS.base.root), this: commitOf(BUILDS.this.root) };
log(`builds: base ${commits.base} (${BUILDS.base.root}), this ${commits.this}; ${ROUNDS} rounds`);
const shared: Record<string, string> = {
  BENCH_DURATION_S: process.env.BENCH_DURATION_S ?? '10',
  BENCH_RAW_VERIFY_S: '0',
  ...(process.env.BENCH_FLOW_ONLY ? { BENCH_ONLY: process.env.BENCH_FLOW_ONLY } : {}),
};
/** Every run: its round, build, and figures. */
const runs: { round: number; build: BuildName; load: number; figures: Figure[] }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order: BuildName[] = round % 2 === 0 ? ['base', 'this'] : ['this', 'base'];
  for (const build of order) {
    log(`round ${round + 1}/${ROUNDS}: ${build} (${commits[build]})`);
    const flow = runBench('flow.bench.ts', build, shared) as FlowJson;
    const http = WITH_HTTP ? (runBench('http.bench.ts', build, shared) as HttpJson) : null;
    runs.push({
      round,
      build,
      load: loadAverage(),
      figures: [...flowFigures(flow), ...(http === null ? [] : httpFigures(http))],
    });
  }
}

/** Per figure: each build's values over the rounds, their medians, the change, the verdict. */
const names = [...new Set(runs.flatMap((r) => r.figures.map((f) => f.name)))];
const comparison = names.map((name) => {
  const of = (build: BuildName) =>
    runs
      .filter((r) => r.build === build)
      .map((r) => r.figures.find((f) => f.name === name)?.value)
      .filter((v): v is number => v !== undefined && Number.isFinite(v));
  const sample = runs.flatMap((r) => r.figures).find((f) => f.name === name)!;
  const base = of('base');
  const current = of('this');
  const baseMedian = median(base);
  const thisMedian = median(current);
  const change = baseMedian === 0 ? 0 : (thisMedian - baseMedian) / baseMedian;
  const worse = sample.better === 'higher' ? -change : change;
  return {
    name,
    unit: sample.unit,
    better: sample.better,
    base,
    this: current,
    baseMedian,
    thisMedian,
    change: Number(change.toFixed(4)),
    regressed: worse > TOLERANCE,
  };
});

/** A round's value: three decimals below 10 (latencies in ms, to the microsecond), else one. */
const roundsCell = (v: number) => v.toFixed(Math.abs(v) < 10 ? 3 : 1);
const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;
const regressions = comparison.filter((c) => c.regressed);
const markdown = [
  '## Two builds side by side (bench:flow and bench:http, interleaved)',
  '',
  `base: ${commits.base} · this: ${commits.this} · ${ROUNDS} rounds in the order base/this, this/base, … · ${shared.BENCH_DURATION_S} s per measured run · load average (1 min) at the start ${loadAtStart}, after each run: ${runs.map((r) => `${r.build} ${r.load}`).join(', ')}.`,
  '',
  '| figure | unit | better | base median | this median | change | base rounds | this rounds |',
  '|---|---|---|---:|---:|---:|---|---|',
  ...comparison.map(
    (c) =>
      `| ${c.name} | ${c.unit} | ${c.better} | ${c.baseMedian.toFixed(2)} | ${c.thisMedian.toFixed(2)} | ${c.regressed ? '**' : ''}${pct(c.change)}${c.regressed ? '**' : ''} | ${c.base.map(roundsCell).join(', ')} | ${c.this.map(roundsCell).join(', ')} |`,
  ),
  '',
  regressions.length === 0
    ? `- met: no median worse by more than ${100 * TOLERANCE} %`
    : `- MISSED: ${regressions.length} medians worse by more than ${100 * TOLERANCE} %: ${regressions.map((r) => r.name).join('; ')}`,
  "- Both builds run on the same machine in the same session; the load generators, fixtures and pool funding are this checkout's for both, so only the service differs. Other processes share the machine: the load averages say how quiet it was.",
].join('\n');
const RESULTS_AS = process.env.BENCH_RESULTS_AS;
if (PARTIAL && RESULTS_AS === undefined) {
  log('narrowed run (BENCH_FLOW_ONLY or BENCH_HTTP=0): bench/results untouched');
  process.stdout.write(`${markdown}\n`);
  process.exit(0);
}
await writeResults(
  RESULTS_AS ?? 'builds',
  {
    narrowed: PARTIAL
      ? { flowOnly: process.env.BENCH_FLOW_ONLY ?? null, http: WITH_HTTP }
      : undefined,
    environment: environment(),
    loadAtStart,
    rounds: ROUNDS,
    durationS: Number(shared.BENCH_DURATION_S),
    tolerance: TOLERANCE,
    commits,
    runs,
    comparison,
  },
  markdown,
);
process.stdout.write(`${markdown}\n`);
