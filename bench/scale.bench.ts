// The service on 1, 2, … worker processes (`priv-stark start --workers N`): payments per second of
// the two flows a stock merchant runs — inline (POST /verify then POST /settle, the proof in the
// payment) and compact (the wallet's hand-over to the pool node, then /verify and /settle) — and
// the service's CPU per payment by thread role, for each worker count, side by side in one run.
//
// Method. Each measurement is one bench/flow.bench.ts run in a process of its own (the load
// generator; its results through BENCH_JSON_OUT) against a fresh `priv-stark start --workers N`
// from the built dist/ on a freshly funded SQLite pool: BENCH_NOTES payments (3300: 256 warm up
// each fresh service, the 3044 others are measured, each settles once), 32 in flight,
// CHECKPOINT_INTERVAL_MS=500, the run lasting until the payments run out. Worker counts
// (BENCH_WORKER_COUNTS, default 1 and 2, or every power of two up to the cores) are interleaved over
// BENCH_ROUNDS rounds (2), the order reversed every other round, so that drift of the machine's
// load falls on each alike; a figure is the median over the rounds.
//
// Reported per flow and worker count: payments/s, and the service's CPU ms per payment — all its
// processes — by role: main (the workers' event loops), primary (the primary process's main thread:
// its workers' writes and rate-limit counts over IPC; 0 for one process), verify (the niced
// verification threads), other (the SQLite writer thread, V8 and libuv helpers). Scaling
// efficiency is reported only where at least 4 cores serve the workers beside the load generator:
// on fewer, the generator and the workers share the cores and the figure would measure that.
//
// Run: npm run bench:scale → bench/results/scale.{json,md,svg}. The fixtures of 3300 payments are
// proved on first use (about 4 minutes on two cores) and cached.

import { availableParallelism } from 'node:os';

import { type FlowRunJson, flowBenchRun, round2, summarize } from './flow-runs.js';
import { loadAverage } from './load-generators.js';
import { environment, writeResults } from './report.js';

const CORES = availableParallelism();
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const NOTES = process.env.BENCH_NOTES ?? '3300';
const FLOWS = ['inline-authorization', 'compact-authorization'] as const;
const COUNTS = (
  process.env.BENCH_WORKER_COUNTS ??
  [1, 2, 4, 8, 16].filter((n) => n === 1 || n <= Math.max(2, CORES)).join(',')
)
  .split(',')
  .map(Number);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const loadBefore = loadAverage();
const runs: { round: number; workers: number; flows: FlowRunJson[] }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? COUNTS : [...COUNTS].reverse();
  for (const workers of order) {
    log(`round ${round + 1}/${ROUNDS}: ${workers} worker${workers === 1 ? '' : 's'}`);
    runs.push({
      round,
      workers,
      flows: flowBenchRun(FLOWS, { BENCH_WORKERS: String(workers), BENCH_NOTES: NOTES }),
    });
  }
}
const loadAfter = loadAverage();

const rows = FLOWS.flatMap((flow) =>
  COUNTS.map((workers) => ({
    flow,
    workers,
    ...summarize(
      runs
        .filter((run) => run.workers === workers)
        .map((run) => run.flows.find((f) => f.flow.id === flow)!),
    ),
  })),
);
const efficiencyReported = CORES >= 4 + 1;
const json = {
  environment: { ...environment(), loadAverageBefore: loadBefore, loadAverageAfter: loadAfter },
  notes: Number(NOTES),
  inFlight: 32,
  checkpointIntervalMs: 500,
  rounds: ROUNDS,
  workerCounts: COUNTS,
  rows,
  scalingEfficiency: efficiencyReported
    ? Object.fromEntries(
        FLOWS.map((flow) => {
          const one = rows.find((r) => r.flow === flow && r.workers === 1)!.paymentsPerSec;
          return [
            flow,
            Object.fromEntries(
              rows
                .filter((r) => r.flow === flow)
                .map((r) => [r.workers, round2(r.paymentsPerSec / (one * r.workers))]),
            ),
          ];
        }),
      )
    : null,
};
const flowName = (flow: string) =>
  flow === 'inline-authorization'
    ? 'inline: POST /verify → POST /settle'
    : 'compact: POST /proofs → POST /verify → POST /settle';
const markdown = [
  '## The service on several processes: payments/s by worker count',
  '',
  `SQLite, ${Number(NOTES) - 256} measured payments per run (after 256 warm-up), 32 in flight, checkpoint interval 500 ms, the load generator in a process of its own on the same machine (${CORES} cores, ${environment().cpu}); median of ${ROUNDS} interleaved rounds. Load average (1 min) before: ${loadBefore}, after: ${loadAfter}.`,
  '',
  '| flow | workers | payments/s (median) | rounds | service CPU ms/payment | main | primary | verify | other (writer ≤) | ops per commit | queue wait ms/op | store ms/payment (sync ms/commit) | generator CPU ms/payment | load avg |',
  '|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---|---:|---|',
  ...rows.map(
    (r) =>
      `| ${flowName(r.flow)} | ${r.workers} | **${r.paymentsPerSec}** | ${r.rounds.join(', ')} | ${r.serverCpuMsPerPayment} | ${r.cpuByRole.main} | ${r.cpuByRole.primary} | ${r.cpuByRole.verify} | ${r.cpuByRole.other} (${r.cpuByRole.writer}) | ${r.commits?.opsPerGroup ?? '–'} | ${r.commits?.queueWaitMsPerOp ?? '–'} | ${r.commits?.storeMsPerPayment == null ? '–' : `${r.commits.storeMsPerPayment} (${r.commits.syncMsPerCommit})`} | ${r.generatorCpuMsPerPayment} | ${r.load.join(', ')} |`,
  ),
  '',
  efficiencyReported
    ? `Scaling efficiency (payments/s ÷ (1 worker's × N)): ${JSON.stringify(json.scalingEfficiency)}`
    : `Scaling efficiency: not reported — ${CORES} cores cannot serve the workers on at least 4 cores with the load generator on others.`,
  '',
  '- Target (issue 27): ≥ 900 payments/s for both flows on this 2-core machine.',
  `- ${FLOWS.map((flow) => {
    const best = rows
      .filter((r) => r.flow === flow)
      .reduce((a, b) => (b.paymentsPerSec > a.paymentsPerSec ? b : a));
    return `${best.paymentsPerSec >= 900 ? 'met' : 'MISSED'}: ${flowName(flow)} ≥ 900/s (best: ${best.paymentsPerSec} with ${best.workers} worker${best.workers === 1 ? '' : 's'}, rounds ${best.rounds.join(', ')})`;
  }).join('\n- ')}`,
  "- Commits (the service's metrics around each run): ops per commit, an op's wait for its group, and the store's time per payment with the fsync'd commit's share per commit; with workers on SQLite the primary's store commits (and times) every worker's writes.",
  "- CPU roles: main = the workers' event loops (or the one process's); primary = the primary process's main thread (IPC: its workers' writes and rate-limit counts); verify = the niced verification threads; other = the SQLite writer thread (the busiest, \"writer ≤\"), V8 and libuv helpers. All the service's processes are counted.",
].join('\n');
await writeResults('scale', json, markdown);
process.stdout.write(`${markdown}\n`);
