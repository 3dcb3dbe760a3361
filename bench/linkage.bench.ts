// The linkage test at the size (issue 25, part 6): 200 wallets, 10 merchants (3 without a
// relay), payments Poisson with mean 5, syncs every 30–300 s, an hour, against the real service
// on loopback with the operator's recording proxies — at real time unless LINKAGE_COMPRESSION says
// otherwise (simulated seconds per real second). Writes the operator's view and the ground truth as
// JSON Lines (bench/results/linkage-view.jsonl, linkage-truth.jsonl; schema in docs/privacy.md),
// and the AUCs with their 95 % bootstrap intervals (bench/results/linkage.{json,md,svg}). The pool is
// backed by an escrow on a local node the run starts (deposits by signature, exits paid on chain)
// unless LINKAGE_CONFIG says `"deposits":"operator"`.
//
// Run: npm run bench:linkage. Knobs: LINKAGE_COMPRESSION (default 1), LINKAGE_WALLETS (default 200),
// LINKAGE_HORIZON_S (simulated seconds of payments, default 3600),
// LINKAGE_CONFIG (a JSON object of LinkageConfig fields over the default, e.g.
// '{"handOvers":"direct"}' for a twin at full size). LINKAGE_REMEASURE=1 runs nothing: it measures
// the committed run again from its JSON Lines with this tree's heuristics (testkit/linkage/
// jsonl-read.ts) and rewrites linkage.{json,md,svg}.

import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';

import { loadCore } from '../src/core/index.js';
import { DEFAULT_CONFIG, type LinkageConfig } from '../testkit/linkage/config.js';
import { writeJsonl } from '../testkit/linkage/jsonl.js';
import { readPublishedRun } from '../testkit/linkage/jsonl-read.js';
import { type LinkageMeasure, measureRun, measureTable } from '../testkit/linkage/measure.js';
import { drawPopulation } from '../testkit/linkage/population.js';
import { runLinkage } from '../testkit/linkage/run.js';
import { BENCH_SHAPE } from '../testkit/linkage/scenarios.js';
import { writeChart } from './charts.js';
import { environment } from './report.js';

const RESULTS = new URL('./results/', import.meta.url).pathname;

/** What a run's report says: its figures and how it ran (`linkage.json`). */
type Summary = Record<string, unknown> & LinkageMeasure & { config: LinkageConfig };

/** Writes `linkage.{json,md,svg}` from `summary`. */
async function report(summary: Summary, lead: string): Promise<void> {
  writeFileSync(`${RESULTS}linkage.json`, `${JSON.stringify(summary, null, 2)}\n`);
  await writeChart('linkage', summary);
  const population = summary.population as { wallets: number; horizonSeconds: number };
  const md = [
    `## Linkage test (${summary.config.name}): ${population.wallets} wallets, ${population.horizonSeconds} s at ${summary.config.compression}×`,
    '',
    lead,
    '',
    'ROC AUC [95 % bootstrap interval], payments by relay, inline or proxy:',
    '',
    measureTable(summary, 'private'),
    '',
    'All payments:',
    '',
    measureTable(summary, 'all'),
    '',
  ].join('\n');
  writeFileSync(`${RESULTS}linkage.md`, md);
  console.log(md);
}

const loads = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(', ');

/** The report's first line: what the run did and the load it ran under. */
function leadOf(s: Record<string, unknown>): string {
  return `${s.paid} of ${s.planned} planned payments made, ${s.exited} exits, ${s.failures} failed writes; payments by transport ${JSON.stringify(s.transports)}; ${Number(s.totalSeconds).toFixed(0)} s in all. Load average ${loads(s.loadBefore as number[])} before, ${loads(s.loadAfter as number[])} after (2 cores).`;
}

if (process.env.LINKAGE_REMEASURE === '1') {
  // The committed run measured again with this tree's heuristics, from its JSON Lines alone.
  const published = readPublishedRun(
    readFileSync(`${RESULTS}linkage-view.jsonl`, 'utf8'),
    readFileSync(`${RESULTS}linkage-truth.jsonl`, 'utf8'),
  );
  const previous = JSON.parse(readFileSync(`${RESULTS}linkage.json`, 'utf8')) as Summary;
  const measure = measureRun(published, { replicates: 500 });
  const today = new Date().toISOString();
  await report(
    { ...previous, ...measure, remeasured: today },
    `${leadOf(previous)} Measured again on ${today.slice(0, 10)} from the published JSON Lines with this tree's heuristics. Pairs ${JSON.stringify(measure.pairs)}.`,
  );
  process.exit(0);
}

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
const exited = run.logs.reduce((n, l) => n + l.exits, 0);
const failures = run.logs.flatMap((l) => l.failed).length;
const summary: Summary = {
  environment: environment(),
  config,
  population: population.shape,
  planned,
  paid,
  exited,
  failures,
  scheduleSeconds: run.scheduleSeconds,
  totalSeconds: run.totalSeconds,
  loadBefore: load,
  loadAfter: loadavg(),
  ...measure,
};
await report(summary, `${leadOf(summary)} Pairs ${JSON.stringify(measure.pairs)}.`);
console.log(`view: ${files.view}\ntruth: ${files.truth}`);
process.exit(0);
