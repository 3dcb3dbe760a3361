// What traces cost /verify: throughput with tracing off against on, in one run. Two facilitator
// processes (`priv-stark start` from the built dist/, bench/service-process.ts), each over its own
// funded copy of the pool: one without OTEL_* variables (off), one exporting as an operator would
// configure it — OTEL_EXPORTER_OTLP_ENDPOINT alone, so OTLP/HTTP protobuf through the batch span
// processor with the SDK's defaults and the service's default sampler (one request in ten starts a
// sampled trace: src/tracing/sdk.ts) — to a collector stub on loopback in this
// process that answers every export with success and keeps counts (on). Saturated /verify load
// (autocannon, distinct valid payments in turn) moves between the two in rounds, the order flipped
// every round (off-on, on-off, …), so drift and other sessions' load fall on both alike. Each round
// starts a fresh pair: two processes started alike (tracing off in both, BENCH_OTEL=
// "OTEL_SDK_DISABLED=true") measured 0.87 and 1.09 of each other over whole runs, a difference that
// lasts as long as the processes do, so one pair for every round measured its own draw.
//
// The figure is on/off of the requests per second over all rounds (goal: at least 0.95), with the
// median of the rounds' own ratios beside it. CPU time per request is recorded too, for the whole
// server and for its main thread (the event loop: parsing, checks, spans and their export; proofs
// are verified on the niced threads): less disturbed by other load than throughput, it shows where
// tracing's cost lands. The collector counts the `POST /verify` server spans it receives, so a run
// whose spans were dropped (which would make tracing look cheaper) is seen: the count must be the
// sampled share of the traced requests (within 10 %; every request with an always-on sampler).
//
// Run: npm run bench:tracing → bench/results/tracing.json, .md and .svg.
// BENCH_NOTES (payments, default 256; proved once and cached), BENCH_ROUNDS (default 20),
// BENCH_DURATION_S (seconds per mode and round, default 5), BENCH_CONNECTIONS (default 32),
// BENCH_OTEL (more OTEL_* variables for the traced process, e.g.
// `OTEL_TRACES_SAMPLER=traceidratio OTEL_TRACES_SAMPLER_ARG=0.1`). Fewer rounds or shorter
// segments than the defaults make a run that checks the bench works; its results say so.

import { rmSync } from 'node:fs';
import { createServer } from 'node:http';

import { loadCore } from '../src/core/index.js';
import { DEFAULT_TRACE_RATIO } from '../src/tracing/sdk.js';
import type { PaymentFixture } from '../testkit/fixtures.js';
import { benchFixtures } from './http-fixtures.js';
import { loadAverage, type RunResult, saturated } from './load-generators.js';
import {
  facilitatorBody,
  inlinePayload,
  paymentPayloadOf,
  requirementsOf,
} from './payment-bodies.js';
import { environment, writeResults } from './report.js';
import {
  fundedDataDir,
  type ServiceProcess,
  startService,
  stopService,
} from './service-process.js';

const DEFAULT_ROUNDS = 20;
const DEFAULT_DURATION_S = 5;
const NOTES = Number(process.env.BENCH_NOTES ?? 256);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? DEFAULT_ROUNDS);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? DEFAULT_DURATION_S);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WARMUP_S = 3;
const GOAL = 0.95;
/** Below the defaults a run checks that the bench works; it is not a measurement. */
const SHORT = ROUNDS < DEFAULT_ROUNDS || DURATION_S < DEFAULT_DURATION_S;

type Mode = 'off' | 'on';
const MODES: readonly Mode[] = ['off', 'on'];

/** BENCH_OTEL's `NAME=value` pairs (OTEL_* only). */
const EXTRA_OTEL: Record<string, string> = Object.fromEntries(
  (process.env.BENCH_OTEL ?? '')
    .split(/\s+/)
    .filter((pair) => pair.startsWith('OTEL_') && pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

/**
 * The A/A control: BENCH_OTEL="OTEL_SDK_DISABLED=true" leaves the second process untraced too, so
 * the run shows the spread of two processes started alike (bench/results/tracing-control.*).
 */
const CONTROL = EXTRA_OTEL.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';

// The services inherit this process's environment: an OTEL_* variable set in the shell must not
// turn tracing on in the process that measures it off.
for (const key of Object.keys(process.env)) if (key.startsWith('OTEL_')) delete process.env[key];

/** The x402 body of a payment, as the stock facilitator client sends it. */
function body(p: PaymentFixture, maxTimeoutSeconds: number): Buffer {
  const requirements = requirementsOf(p, { maxTimeoutSeconds });
  return facilitatorBody(paymentPayloadOf(inlinePayload(p), requirements), requirements);
}

/** Occurrences of `needle` in `haystack`. */
function count(haystack: Buffer, needle: Buffer): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
}

/**
 * A loopback OTLP/HTTP receiver that answers every export with success and keeps counts: exports,
 * bytes, and `POST /verify` server spans (span names are plain strings in the protobuf encoding).
 */
async function collectorStub() {
  const received = { exports: 0, bytes: 0, verifySpans: 0 };
  const spanName = Buffer.from('POST /verify');
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const payload = Buffer.concat(chunks);
      received.exports++;
      received.bytes += payload.length;
      received.verifySpans += count(payload, spanName);
      // An empty ExportTraceServiceResponse: full success.
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    received,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One mode's run in one round. */
interface Segment {
  readonly mode: Mode;
  readonly round: number;
  readonly requests: number;
  readonly non200: number;
  readonly durationS: number;
  readonly reqPerSec: number;
  readonly serverCpuMsPerRequest: number;
  readonly mainThreadCpuMsPerRequest: number;
  readonly load: number;
}

function segmentOf(mode: Mode, round: number, run: RunResult): Segment {
  return {
    mode,
    round,
    requests: run.requests,
    non200: run.requests - (run.statusCodes['200'] ?? 0) + run.errors,
    durationS: run.durationS,
    reqPerSec: run.reqPerSec,
    serverCpuMsPerRequest: run.serverCpuMsPerRequest,
    mainThreadCpuMsPerRequest: run.serverThreadsCpuMsPerRequest?.main ?? Number.NaN,
    load: run.load,
  };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
};

const core = await loadCore();
const fx = await benchFixtures(core, NOTES);
const maxTimeout = fx.spec.expiry - Math.floor(Date.now() / 1000);
const bodies = fx.payments.map((p) => body(p, maxTimeout));

const loadAtStart = loadAverage();
const collector = await collectorStub();
const dirs = { off: await fundedDataDir(core, fx), on: await fundedDataDir(core, fx) };
const segments: Segment[] = [];
let tracedWarmupRequests = 0;

/** Starts one mode's service on its own data directory (traced: exporting to the stub). */
function start(mode: Mode): Promise<ServiceProcess> {
  return mode === 'off'
    ? startService({ dataDir: dirs.off })
    : startService({
        dataDir: dirs.on,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_SERVICE_NAME: 'priv-stark-bench',
          ...EXTRA_OTEL,
        },
      });
}

/**
 * One round: a fresh process per mode, each warmed up, then measured in this round's order. Two
 * processes started alike differ by up to ±10 % in /verify throughput for as long as they live
 * (measured with tracing off in both: docs/operations.md, "Cost"), so a pair kept for every
 * round would measure its own draw; a fresh pair per round lets the rounds' median average it out.
 */
async function round(index: number): Promise<void> {
  const servers: Partial<Record<Mode, ServiceProcess>> = {};
  try {
    for (const mode of MODES) servers[mode] = await start(mode);
    const run = (mode: Mode, seconds: number) =>
      saturated(servers[mode]!.url, '/verify', bodies, {
        seconds,
        connections: CONNECTIONS,
        pid: servers[mode]!.pid,
      });
    const order = index % 2 === 0 ? MODES : [...MODES].reverse();
    for (const mode of order) {
      const warm = await run(mode, WARMUP_S);
      if (mode === 'on') tracedWarmupRequests += warm.requests;
    }
    for (const mode of order) {
      const segment = segmentOf(mode, index, await run(mode, DURATION_S));
      segments.push(segment);
      process.stderr.write(
        `[bench] round ${index + 1}/${ROUNDS} tracing ${mode}: ${segment.reqPerSec.toFixed(0)} req/s, load ${segment.load}\n`,
      );
    }
  } finally {
    // Stopped before the collector: the traced service exports what it still holds as it closes.
    for (const server of Object.values(servers)) await stopService(server);
  }
}

try {
  for (let index = 0; index < ROUNDS; index++) await round(index);
} finally {
  await collector.close();
  for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
}

const total = (mode: Mode) => {
  const of = segments.filter((s) => s.mode === mode);
  const requests = of.reduce((sum, s) => sum + s.requests, 0);
  const seconds = of.reduce((sum, s) => sum + s.durationS, 0);
  const perRequest = (pick: (s: Segment) => number) =>
    Number((of.reduce((sum, s) => sum + pick(s) * s.requests, 0) / requests).toFixed(3));
  return {
    requests,
    non200: of.reduce((sum, s) => sum + s.non200, 0),
    reqPerSec: requests / seconds,
    serverCpuMsPerRequest: perRequest((s) => s.serverCpuMsPerRequest),
    mainThreadCpuMsPerRequest: perRequest((s) => s.mainThreadCpuMsPerRequest),
  };
};
const off = total('off');
const on = total('on');
const ratio = on.reqPerSec / off.reqPerSec;
const roundRatios = Array.from({ length: ROUNDS }, (_, round) => {
  const of = (mode: Mode) => segments.find((s) => s.round === round && s.mode === mode)!.reqPerSec;
  return of('on') / of('off');
});
const medianRatio = median(roundRatios);
const tracedRequests = on.requests + tracedWarmupRequests;
// The share of requests the traced service samples: its default (src/tracing/sdk.ts) unless
// BENCH_OTEL names a sampler.
const sampledShare = (() => {
  if (CONTROL) return 0;
  const sampler = EXTRA_OTEL.OTEL_TRACES_SAMPLER;
  const arg = EXTRA_OTEL.OTEL_TRACES_SAMPLER_ARG;
  if (sampler === undefined) return arg === undefined ? DEFAULT_TRACE_RATIO : Number(arg);
  if (/always_on$/.test(sampler)) return 1;
  if (/always_off$/.test(sampler)) return 0;
  return Number(arg ?? 1);
})();
// Every sampled request's server span reached the collector (none dropped by a full queue): the
// count is the sampled share of the traced requests, within 10 % (a ratio sampler draws).
const expectedSpans = sampledShare * tracedRequests;
const allExported =
  sampledShare === 1
    ? collector.received.verifySpans >= tracedRequests
    : Math.abs(collector.received.verifySpans - expectedSpans) <= 0.1 * expectedSpans;
const met = !CONTROL && ratio >= GOAL && on.non200 === 0 && off.non200 === 0 && allExported;
const loads = segments.map((s) => s.load);

const pct = (r: number) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)} %`;
const markdown = [
  CONTROL
    ? '## Traces, the A/A control: /verify throughput of two untraced processes ("on" has OTEL_SDK_DISABLED=true)'
    : '## Traces: /verify throughput with tracing on vs off',
  '',
  ...(SHORT
    ? [
        `**Short run (${ROUNDS} rounds of ${DURATION_S} s, below the defaults of ${DEFAULT_ROUNDS} × ${DEFAULT_DURATION_S} s): it checks that the bench works; its figures are not a measurement.**`,
        '',
      ]
    : []),
  `Tracing on: **${on.reqPerSec.toFixed(0)} req/s** vs off **${off.reqPerSec.toFixed(0)} req/s**, on/off ${ratio.toFixed(3)} (${pct(ratio)}); the median of the rounds' ratios ${medianRatio.toFixed(3)}, from ${Math.min(...roundRatios).toFixed(2)} to ${Math.max(...roundRatios).toFixed(2)}.`,
  '',
  `CPU per request, the whole server: off ${off.serverCpuMsPerRequest.toFixed(3)} ms, on ${on.serverCpuMsPerRequest.toFixed(3)} ms (${pct(on.serverCpuMsPerRequest / off.serverCpuMsPerRequest)}); its main thread: off ${off.mainThreadCpuMsPerRequest.toFixed(3)} ms, on ${on.mainThreadCpuMsPerRequest.toFixed(3)} ms (${pct(on.mainThreadCpuMsPerRequest / off.mainThreadCpuMsPerRequest)}).`,
  '',
  CONTROL
    ? "- Control run: no goal; the ratio and the rounds' spread are what two processes started alike differ by."
    : `- ${met ? 'met' : 'MISSED'}: /verify throughput with tracing on ≥ ${GOAL * 100} % of off (every reply 200, every sampled request's span exported: ${sampledShare === 1 ? 'every request' : `${sampledShare * 100} % of the requests`})`,
  '',
  '| round | mode | requests | req/s | server CPU ms/req | main thread CPU ms/req | load avg |',
  '|---:|---|---:|---:|---:|---:|---:|',
  ...segments.map(
    (s) =>
      `| ${s.round + 1} | ${s.mode} | ${s.requests} | ${s.reqPerSec.toFixed(0)} | ${s.serverCpuMsPerRequest.toFixed(2)} | ${s.mainThreadCpuMsPerRequest.toFixed(2)} | ${s.load} |`,
  ),
  '',
  `- Load average (1 min): ${loadAtStart} when the bench started, ${Math.min(...loads)}–${Math.max(...loads)} at the ends of the segments. The bench's own processes keep both cores busy (about 2); more means other work shared the machine. Both modes' figures move with it; the ratio of interleaved rounds is what this bench measures.`,
  `- Two facilitator processes (\`priv-stark start\`, embedded SQLite, one log line per reply to a file, verification on the niced threads), ${fx.payments.length} distinct valid payments taken in turn, load from autocannon in the bench process: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s per mode, a fresh pair of processes each round (two processes started alike differ by up to ±10 % for as long as they live), the order flipped every round, after a ${WARMUP_S} s warm-up of each. Node ${process.version}.`,
  `- Tracing on: OTEL_EXPORTER_OTLP_ENDPOINT${
    Object.keys(EXTRA_OTEL).length > 0
      ? ` and ${Object.entries(EXTRA_OTEL)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`
      : ` only (OTLP/HTTP protobuf, the batch span processor with the SDK's defaults, the service's default sampler: parent-based, ${DEFAULT_TRACE_RATIO * 100} % of the requests without a caller's trace start a sampled one)`
  }; four spans per sampled /verify (the request, the checks, the nullifier's store call, the proof's verification). The collector stub (in the bench process, on loopback) took ${collector.received.exports} exports, ${(collector.received.bytes / 1e6).toFixed(1)} MB, with ${collector.received.verifySpans} \`POST /verify\` spans for ${tracedRequests} traced requests (expected ${Math.round(expectedSpans)}; warm-up included; autocannon does not count the requests still in flight when a segment ends, so the spans may be a few more).`,
  `- Replies other than 200: ${off.non200} off, ${on.non200} on.`,
].join('\n');
await writeResults(
  CONTROL ? 'tracing-control' : 'tracing',
  {
    bench: 'tracing',
    environment: environment(),
    short: SHORT,
    loadAtStart,
    payments: fx.payments.length,
    rounds: ROUNDS,
    durationS: DURATION_S,
    warmupS: WARMUP_S,
    connections: CONNECTIONS,
    extraOtel: EXTRA_OTEL,
    off,
    on,
    ratio,
    roundRatios,
    medianRatio,
    goal: GOAL,
    met,
    sampledShare,
    collector: { ...collector.received, tracedRequests, expectedSpans: Math.round(expectedSpans) },
    segments,
  },
  markdown,
);
process.stdout.write(`${markdown}\n`);
