// Less CPU per payment, one lever at a time (issue 27, item 2): each lever is a switch of the
// flow bench, measured before and after in interleaved rounds (ABBA…) on the same fixtures, the
// same service process count and the same machine, so that what changes between the two is the
// lever. Reported per lever and side: payments/s, the service's CPU per payment by thread role,
// and the bytes per payment of each hop.
//
// The levers measured:
//   handover-body  the hand-over as JSON (the proof in base64) → as a hand-over frame (raw bytes,
//                  `application/octet-stream`, scheme/handover-frame.ts), on the compact flow
//                  (POST /proofs → POST /verify → POST /settle)
//
// And the bounds of two levers, measured instead of built: the proof copied to the verification and
// writer threads against moved (zero copy, bench/copy-bound.ts), and one hand-over body read on the
// event loop, JSON against frame (what parsing off the event loop could save, bench/parse-bound.ts).
//
// Method: bench/flow-runs.ts (one flow.bench run in a process of its own per measurement: a fresh
// SQLite service, 32 in flight, a 500 ms checkpoint interval, each payment settled once).
// BENCH_ROUNDS (3), BENCH_NOTES (3300; proved on first use and cached), BENCH_WORKERS (1),
// BENCH_DURATION_S (60, or until the payments run out).
//
// Run: npm run bench:levers → bench/results/levers.{json,md,svg}.

import { availableParallelism } from 'node:os';

import { copyBound } from './copy-bound.js';
import { parseBound } from './parse-bound.js';
import { type FlowRunJson, flowBenchRun, round2, summarize } from './flow-runs.js';
import { loadAverage } from './load-generators.js';
import { environment, writeResults } from './report.js';

interface Lever {
  readonly id: string;
  readonly what: string;
  readonly flow: string;
  readonly before: { readonly name: string; readonly env: Record<string, string> };
  readonly after: { readonly name: string; readonly env: Record<string, string> };
}

const LEVERS: readonly Lever[] = [
  {
    id: 'handover-body',
    what: 'the hand-over body: JSON with the proof in base64 → a hand-over frame (raw bytes)',
    flow: 'compact-authorization',
    before: { name: 'JSON', env: { BENCH_HANDOVER_BODY: 'json' } },
    after: { name: 'frame', env: { BENCH_HANDOVER_BODY: 'frame' } },
  },
];

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NOTES = process.env.BENCH_NOTES ?? '3300';
const WORKERS = process.env.BENCH_WORKERS ?? '1';
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const loadBefore = loadAverage();
const results = LEVERS.map((lever) => {
  const runs: { side: 'before' | 'after'; flow: FlowRunJson }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const side of order) {
      log(`${lever.id}, round ${round + 1}/${ROUNDS}: ${lever[side].name}`);
      const [flow] = flowBenchRun([lever.flow], {
        ...lever[side].env,
        BENCH_NOTES: NOTES,
        BENCH_WORKERS: WORKERS,
      });
      runs.push({ side, flow: flow! });
    }
  }
  const side = (which: 'before' | 'after') => ({
    name: lever[which].name,
    ...summarize(runs.filter((r) => r.side === which).map((r) => r.flow)),
  });
  const before = side('before');
  const after = side('after');
  return {
    id: lever.id,
    what: lever.what,
    flow: lever.flow,
    before,
    after,
    change: {
      paymentsPerSec: round2(after.paymentsPerSec / before.paymentsPerSec - 1),
      serverCpuMsPerPayment: round2(after.serverCpuMsPerPayment - before.serverCpuMsPerPayment),
    },
  };
});
// The zero-copy lever's bound, measured rather than built: a buffer the size of the hand-over
// (the proof and its fields) copied to a thread against moved (`copy-bound.ts`).
const copiedBytes = Math.round(results[0]?.after.bytes['POST /proofs'] ?? 82_000);
log(`copy bound: ${copiedBytes} bytes to a thread, copied against moved`);
const copy = await copyBound(copiedBytes);
log('parse bound: one hand-over body read on the event loop, JSON against frame');
const parse = parseBound(Math.max(1, copiedBytes - 700));
const loadAfter = loadAverage();

const json = {
  environment: { ...environment(), loadAverageBefore: loadBefore, loadAverageAfter: loadAfter },
  notes: Number(NOTES),
  workers: Number(WORKERS),
  rounds: ROUNDS,
  inFlight: 32,
  checkpointIntervalMs: 500,
  levers: results,
  copyBound: copy,
  parseBound: parse,
};

const bytesOf = (bytes: Record<string, number>) =>
  Object.entries(bytes)
    .map(([hop, n]) => `${hop} ${Math.round(n).toLocaleString('en')}`)
    .join('; ');
const markdown = [
  '## Less CPU per payment: one lever at a time',
  '',
  `SQLite, ${Number(NOTES) - 256} measured payments per run (after 256 warm-up), 32 in flight, checkpoint interval 500 ms, ${WORKERS} service process(es), the load generator in a process of its own on the same machine (${availableParallelism()} cores, ${environment().cpu}); median of ${ROUNDS} interleaved rounds per side. Load average (1 min) before: ${loadBefore}, after: ${loadAfter}.`,
  '',
  '| lever | side | payments/s (median) | rounds | service CPU ms/payment | rounds | main | verify | other (writer ≤) | ops per commit | store ms/payment | bytes per payment per hop | load avg |',
  '|---|---|---:|---|---:|---|---:|---:|---|---:|---:|---|---|',
  ...results.flatMap((r) =>
    [r.before, r.after].map(
      (s) =>
        `| ${r.id} | ${s.name} | **${s.paymentsPerSec}** | ${s.rounds.join(', ')} | **${s.serverCpuMsPerPayment}** | ${s.serverCpuRounds.join(', ')} | ${s.cpuByRole.main} | ${s.cpuByRole.verify} | ${s.cpuByRole.other} (${s.cpuByRole.writer}) | ${s.commits?.opsPerGroup ?? '–'} | ${s.commits?.storeMsPerPayment ?? '–'} | ${bytesOf(s.bytes)} | ${s.load.join(', ')} |`,
    ),
  ),
  '',
  ...results.map(
    (r) =>
      `- ${r.id} (${r.what}, flow ${r.flow}): payments/s ${r.change.paymentsPerSec >= 0 ? '+' : ''}${Math.round(r.change.paymentsPerSec * 100)} %, service CPU ${r.change.serverCpuMsPerPayment >= 0 ? '+' : ''}${r.change.serverCpuMsPerPayment} ms per payment.`,
  ),
  `- reading one hand-over body on the event loop (a ${parse.proofBytes.toLocaleString('en')}-byte proof): JSON parsed and its base64 decoded ${parse.jsonHandOverUs} µs, the frame decoded ${parse.frameHandOverUs} µs; a compact /settle body (${parse.settleBodyBytes.toLocaleString('en')} bytes) parsed ${parse.settleBodyUs} µs — parsing off the event loop (not built) could save at most what is left, less a message to a thread (the copy bound below).`,
  `- zero-copy hand-off to the verification and writer threads (bound, not built): a ${copy.bytes.toLocaleString('en')}-byte buffer sent to a thread costs the sender ${copy.copy.cpuUs} µs of CPU (${copy.copy.processCpuUs} µs over all threads) copied, ${copy.transfer.cpuUs} µs (${copy.transfer.processCpuUs} µs) moved; a compact payment's proof is copied twice (to a verification thread, to the writer thread), so moving both would save at most ${round2((2 * (copy.copy.processCpuUs - copy.transfer.processCpuUs)) / 1000)} ms of service CPU per payment.`,
  '- CPU roles as in the scale bench: main = the event loop(s); verify = the niced verification threads; other = the SQLite writer thread (the busiest, "writer ≤"), V8 and libuv helpers.',
].join('\n');
await writeResults('levers', json, markdown);
process.stdout.write(`${markdown}\n`);
