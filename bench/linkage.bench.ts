// The linkage test at the size (issue 25, part 6): 200 wallets, 10 merchants (3 without a
// relay), payments Poisson with mean 5, syncs every 30–300 s, an hour, against the real service
// on loopback with the operator's recording proxies — at real time unless LINKAGE_COMPRESSION says
// otherwise (simulated seconds per real second). Writes the operator's view and the ground truth as
// JSON Lines (bench/results/linkage-view.jsonl, linkage-truth.jsonl; schema in docs/privacy.md),
// and the AUCs with their 95 % bootstrap intervals (bench/results/linkage.{json,md}).
//
// Run: npm run bench:linkage. Knobs: LINKAGE_COMPRESSION (default 1), LINKAGE_WALLETS (default 200),
// LINKAGE_HORIZON_S (simulated seconds of payments, default 3600),
// LINKAGE_CONFIG (a JSON object of LinkageConfig fields over the default, e.g.
// '{"handOvers":"direct"}' for a twin at full size).

import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';

import { loadCore } from '../src/core/index.js';
import { DEFAULT_CONFIG, type LinkageConfig } from '../testkit/linkage/config.js';
import { writeJsonl } from '../testkit/linkage/jsonl.js';
import { measureRun, measureTable } from '../testkit/linkage/measure.js';
import { drawPopulation } from '../testkit/linkage/population.js';
import { runLinkage } from '../testkit/linkage/run.js';
import { BENCH_SHAPE } from '../testkit/linkage/scenarios.js';
import { environment } from './report.js';

const RESULTS = new URL('./results/', import.meta.url).pathname;
const compression = Number(process.env.LINKAGE_COMPRESSION ?? 1);
const wallets = Number(process.env.LINKAGE_WALLETS ?? BENCH_SHAPE.wallets);
const horizonSeconds = Number(process.env.LINKAGE_HORIZON_S ?? BENCH_SHAPE.horizonSeconds);
const config: LinkageConfig = {
  ...DEFAULT_CONFIG,
  ...(process.env.LINKAGE_CONFIG
    ? (JSON.parse(process.env.LINKAGE_CONFIG) as Partial<LinkageConfig>)
    : {}),
  compression,
};

const load = loadavg();
const core = await loadCore();
const population = drawPopulation({ ...BENCH_SHAPE, wallets, horizonSeconds });
console.log(
  `linkage: ${wallets} wallets, ${horizonSeconds} s simulated at ${compression}×, ${config.name}`,
);
const run = await runLinkage(core, population, config);
const files = writeJsonl(run, RESULTS.replace(/\/$/, ''));
const measure = measureRun(run, { replicates: 500 });
const planned = population.wallets.reduce((n, w) => n + w.payments.length, 0);
const paid = run.logs.reduce((n, l) => n + l.paid, 0);
const summary = {
  environment: environment(),
  config,
  population: population.shape,
  planned,
  paid,
  exited: run.logs.filter((l) => l.exited).length,
  failures: run.logs.flatMap((l) => l.failed).length,
  scheduleSeconds: run.scheduleSeconds,
  totalSeconds: run.totalSeconds,
  loadBefore: load,
  loadAfter: loadavg(),
  ...measure,
};
writeFileSync(`${RESULTS}linkage.json`, `${JSON.stringify(summary, null, 2)}\n`);
const md = [
  `## Linkage test (${config.name}): ${wallets} wallets, ${horizonSeconds} s at ${compression}×`,
  '',
  `${paid} of ${planned} planned payments made, ${summary.exited} exits, ${summary.failures} failed writes; payments by transport ${JSON.stringify(measure.transports)}; pairs ${JSON.stringify(measure.pairs)}; ${run.totalSeconds.toFixed(0)} s in all. Load average ${load.map((l) => l.toFixed(2)).join(', ')} before, ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')} after (2 cores).`,
  '',
  'ROC AUC [95 % bootstrap interval], payments by relay, inline or proxy:',
  '',
  measureTable(measure, 'private'),
  '',
  'All payments:',
  '',
  measureTable(measure, 'all'),
  '',
].join('\n');
writeFileSync(`${RESULTS}linkage.md`, md);
console.log(md);
console.log(`view: ${files.view}\ntruth: ${files.truth}`);
process.exit(0);
