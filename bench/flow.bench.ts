// Compact payments, whole flow: how many payments per second the service takes when each payment
// makes every HTTP call a stock merchant (`x402ResourceServer` with `PrivStarkSchemeServer` and
// `PrivStarkFacilitatorClient`) and the wallet make for it — compact (the proof handed over to the
// pool node, a reference in the payment) and inline (the proof in the payment) side by side, on the
// embedded SQLite store and on PostgreSQL.
//
// The calls of one payment:
//   compact, upfront (the scheme's default flow): POST /proofs (pool node), POST /settle
//   compact, authorization:                       POST /proofs, POST /verify, POST /settle
//   inline, upfront:                              POST /settle
//   inline, authorization:                        POST /verify, POST /settle
// (The merchant itself is not in the loop: its cost is the stock middleware's, the same for both
// transports, apart from decoding a 2 KB instead of a 110 KB header.)
//
// Method. The service runs as `priv-stark start` from the built dist/ (facilitator and pool node in
// one process, over one ledger; its log to a file) on a freshly funded copy of the fixtures' pool
// for every run — a fresh SQLite data directory, or a fresh database on a throwaway local
// PostgreSQL cluster (testkit/postgres.ts) — with PROOF_STORE_MAX above the number of payments and
// HANDOVER_RATE_LIMIT high enough for one load generator on one address. The load generator runs
// in this process on the same 2-core machine: a fixed number of payments in flight
// (BENCH_IN_FLIGHT, 32), a payment starting when one ends, each payment of the fixture set (one
// note per payment) used once, so every payment settles once. The first BENCH_WARMUP_PAYMENTS
// (256, at most a quarter of the set) warm each fresh service up through the same calls and are
// not measured; the measured run lasts BENCH_DURATION_S (10 s) or until the payments run out, and
// says which. The wallet's hand-over goes over a connection of its own per payment, as the wallet
// does in Node (BENCH_HANDOVER_KEEPALIVE=1: keep-alive instead), as a hand-over frame (raw bytes,
// as the wallet sends it; BENCH_HANDOVER_BODY=json: the JSON body instead); the merchant's calls to the
// facilitator over keep-alive connections. The wallet's own work (proving, computing the
// reference) is done before the run; the bench checks the node's reference against it, as the
// wallet does, and checks every reply (201 with the reference, isValid, success).
//
// Reported per run: payments/s, p50/p99 of a whole payment and of each call, the CPU time per
// payment of the service process (and by thread role: the main thread's event loop, the niced
// verification threads, the rest — the SQLite writer thread, V8 and libuv helpers), of the
// PostgreSQL cluster, and of the load generator, the 1-minute load average, what the store holds
// afterwards (settlements, handed-over proofs left), and the bytes of each hop (hand-over body,
// /verify and /settle bodies, and the PAYMENT-SIGNATURE header the merchant would receive, built
// as the stock x402Client builds it), and the run's durable commits from the service's metrics
// (groups per payment, ops per group, queue wait, the store's lock / work / sync per commit). Then, per store, the routes alone: the hand-over route
// saturated (every payment handed over once, BENCH_IN_FLIGHT at a time), /verify of the compact
// payments it made, saturated (autocannon, BENCH_IN_FLIGHT keep-alive connections) and at a fixed
// rate (open loop, BENCH_VERIFY_RATE, 1000 req/s), and the raw two-core verify throughput of the
// core for scale. Other processes share the machine: every run records the load average, and
// figures to compare must be taken on a quiet machine.
//
// Run: npm run bench:flow → bench/results/flow.json and flow.md, and the tables on stdout.
// BENCH_NOTES payments (default 8000, the set http.bench.ts uses; proved on first use, about
// notes × 0.075 s on two cores, cached); BENCH_STORES=sqlite,postgres; BENCH_ONLY=<store:run,…>
// (compact-upfront, compact-authorization, inline-upfront, inline-authorization, routes) runs a
// few and leaves bench/results alone; for profiling, BENCH_SERVER_NODE_OPTIONS="--cpu-prof
// --cpu-prof-dir=DIR" reaches the service process and BENCH_RAW_VERIFY_S=0 skips the raw verify
// measurement; BENCH_LOG_LEVEL sets the service's log level (info). BENCH_SERVICE_MAIN runs
// another build's service; BENCH_JSON_OUT=FILE writes the results there and leaves bench/results
// alone (bench/builds.bench.ts uses both).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadCore } from '../src/core/index.js';
import { openStore } from '../src/ledger/index.js';
import { HANDOVER_FRAME_MEDIA_TYPE, type ProofTransport } from '../src/scheme/index.js';
import { startTestPostgres, type TestPostgres } from '../testkit/postgres.js';
import { benchFixtures } from './http-fixtures.js';
import { type CommitFigures, commitFigures, scrapeCommits } from './commit-figures.js';
import { JSON_HEADERS, loadAverage, paced, type RunResult, saturated } from './load-generators.js';
import {
  compactPayload,
  facilitatorBody,
  handOverBody,
  handOverFrameBody,
  inlinePayload,
  paymentPayloadOf,
  paymentSignatureHeader,
  referenceOf,
  requirementsOf,
  resourceOf,
} from './payment-bodies.js';
import { type FlowResult, type FlowStep, runFlow } from './payment-flow.js';
import { rawVerify } from './raw-verify.js';
import { environment, writeResults } from './report.js';
import {
  fundDatabase,
  fundedDataDir,
  postgresCpuMs,
  type ServiceProcess,
  startService,
  stopService,
} from './service-process.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 32);
const VERIFY_RATE = Number(process.env.BENCH_VERIFY_RATE ?? 1000);
/** Payments run through each fresh service before the measured run (JIT, connections, caches). */
const WARMUP_PAYMENTS_WANTED = Number(process.env.BENCH_WARMUP_PAYMENTS ?? 256);
const WARMUP_S = 3;
/** Connections the paced run may open (it needs a few; more only when replies are slow). */
const PACED_CONNECTIONS = 64;
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',') as (
  | 'sqlite'
  | 'postgres'
)[];
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
const HANDOVER_KEEPALIVE = process.env.BENCH_HANDOVER_KEEPALIVE === '1';
/** The hand-over's body: a frame, as the wallet sends it, or JSON (the lever's before). */
const HANDOVER_BODY = process.env.BENCH_HANDOVER_BODY === 'json' ? 'json' : 'frame';
/** Hand-overs per minute from one address: far above what one load generator sends. */
const HANDOVER_RATE_LIMIT = 10_000_000;

/** A whole-flow variant. */
interface Flow {
  readonly id: string;
  readonly transport: ProofTransport;
  readonly flow: 'upfront' | 'authorization';
}

const FLOWS: readonly Flow[] = [
  { id: 'compact-upfront', transport: 'reference', flow: 'upfront' },
  { id: 'compact-authorization', transport: 'reference', flow: 'authorization' },
  { id: 'inline-upfront', transport: 'inline', flow: 'upfront' },
  { id: 'inline-authorization', transport: 'inline', flow: 'authorization' },
];

const selected = (id: string) => ONLY === null || ONLY.has(id);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const mean = (values: readonly number[]) =>
  Math.round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length));

const core = await loadCore();
const fx = await benchFixtures(core);
const N = fx.payments.length;
const PROOF_STORE_MAX = Math.max(10_000, 2 * N);
const WARMUP = Math.min(WARMUP_PAYMENTS_WANTED, Math.floor(N / 4));
const SERVICE_ENV = {
  PROOF_STORE_MAX: String(PROOF_STORE_MAX),
  HANDOVER_RATE_LIMIT: String(HANDOVER_RATE_LIMIT),
};
const maxTimeoutSeconds = fx.spec.expiry - Math.floor(Date.now() / 1000);
const loadAtStart = loadAverage();

log(
  `${N} payments: computing references and hand-over bodies (the wallet's work, before the runs)`,
);
const references = fx.payments.map((p) => referenceOf(core, p));
const handOvers = fx.payments.map(HANDOVER_BODY === 'json' ? handOverBody : handOverFrameBody);

/** The facilitator bodies of a flow (the same for /verify and /settle) and its PAYMENT-SIGNATURE sizes. */
function facilitatorBodies(flow: Flow): { bodies: Buffer[]; headerBytes: number[] } {
  const headerBytes: number[] = [];
  const bodies = fx.payments.map((p, i) => {
    const requirements = requirementsOf(p, {
      maxTimeoutSeconds,
      flow: flow.flow,
      transports: [flow.transport],
    });
    const payload =
      flow.transport === 'reference' ? compactPayload(p, references[i]!) : inlinePayload(p);
    const paymentPayload = paymentPayloadOf(payload, requirements, resourceOf(p));
    headerBytes.push(paymentSignatureHeader(paymentPayload).length);
    return facilitatorBody(paymentPayload, requirements);
  });
  return { bodies, headerBytes };
}

/** CPU time of the PostgreSQL cluster so far, ms (NaN for SQLite, which runs in the service). */
const databaseCpu = (pg: TestPostgres | null) => () =>
  pg ? postgresCpuMs(Number(new URL(pg.adminUrl).port)) : Number.NaN;

/** `run`, and the database's CPU time per `count(result)` it took. */
async function withDatabaseCpu<T>(
  pg: TestPostgres | null,
  run: () => Promise<T>,
  count: (result: T) => number,
): Promise<T & { databaseCpuMsPer: number }> {
  const cpu = databaseCpu(pg);
  const before = cpu();
  const result = await run();
  return {
    ...result,
    databaseCpuMsPer: Number(((cpu() - before) / Math.max(1, count(result))).toFixed(2)),
  };
}

/** A freshly funded store and the service on it. */
async function serviceOn(
  store: 'sqlite' | 'postgres',
  pg: TestPostgres | null,
): Promise<{ service: ServiceProcess; dataDir: string; databaseUrl: string | undefined }> {
  let dataDir: string;
  let databaseUrl: string | undefined;
  if (store === 'sqlite') {
    dataDir = await fundedDataDir(core, fx);
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-bench-'));
    databaseUrl = await pg!.newDatabase();
    await fundDatabase(core, fx, databaseUrl);
  }
  const service = await startService({ dataDir, databaseUrl, poolNode: true, env: SERVICE_ENV });
  return { service, dataDir, databaseUrl };
}

/** What the store holds after a run: settlements, and handed-over proofs still kept. */
async function afterRun(
  dataDir: string,
  databaseUrl: string | undefined,
): Promise<{ settlements: number; proofsKept: number }> {
  const store = await openStore(core, databaseUrl ? { databaseUrl } : { dataDir });
  const settlements = (await store.state()).events - N;
  const proofsKept = await store.proofCount();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
  return { settlements, proofsKept };
}

/** A run, and the PostgreSQL cluster's CPU per payment or request (NaN on SQLite). */
type WithDatabaseCpu<T> = T & { readonly databaseCpuMsPer: number };

interface FlowRun extends WithDatabaseCpu<FlowResult> {
  readonly store: 'sqlite' | 'postgres';
  readonly flow: Flow;
  readonly calls: string[];
  /** Mean bytes per payment: request bodies of each call, and the merchant's header. */
  readonly bytes: Record<string, number>;
  readonly settlements: number;
  readonly proofsKept: number;
  /** The durable writes of the measured run (`commit-figures.ts`), `null` when not exported. */
  readonly commits: CommitFigures | null;
}

interface RouteRuns {
  readonly store: 'sqlite' | 'postgres';
  readonly handOver?: WithDatabaseCpu<FlowResult>;
  readonly verifySaturated?: WithDatabaseCpu<RunResult>;
  readonly verifyPaced?: WithDatabaseCpu<RunResult>;
}

const handOverStep = (poolNodeUrl: string): FlowStep => ({
  name: 'POST /proofs',
  url: `${poolNodeUrl}/proofs`,
  headers: {
    'content-type': HANDOVER_BODY === 'json' ? 'application/json' : HANDOVER_FRAME_MEDIA_TYPE,
  },
  body: (i) => handOvers[i]!,
  ok: (status, reply, i) =>
    status === 201 && (JSON.parse(reply) as { reference?: string }).reference === references[i],
  freshConnection: !HANDOVER_KEEPALIVE,
});

/** Runs the first {@link WARMUP} payments through `steps`, not measured; every one must pass. */
async function warmUp(steps: readonly FlowStep[], service: ServiceProcess): Promise<void> {
  const warm = await runFlow({
    payments: WARMUP,
    inFlight: IN_FLIGHT,
    seconds: 600,
    steps,
    pid: service.pid,
  });
  if (warm.completed !== WARMUP)
    throw new Error(
      `warm-up: ${warm.completed}/${WARMUP} payments passed: ${JSON.stringify(warm.steps)}`,
    );
}

async function flowRun(
  store: 'sqlite' | 'postgres',
  pg: TestPostgres | null,
  flow: Flow,
): Promise<FlowRun> {
  const { bodies, headerBytes } = facilitatorBodies(flow);
  const { service, dataDir, databaseUrl } = await serviceOn(store, pg);
  const facilitatorStep = (path: '/verify' | '/settle'): FlowStep => ({
    name: `POST ${path}`,
    url: `${service.url}${path}`,
    headers: JSON_HEADERS,
    body: (i) => bodies[i]!,
    ok: (status, reply) =>
      status === 200 &&
      (path === '/verify'
        ? (JSON.parse(reply) as { isValid?: boolean }).isValid === true
        : (JSON.parse(reply) as { success?: boolean }).success === true),
  });
  const steps: FlowStep[] = [
    ...(flow.transport === 'reference' ? [handOverStep(service.poolNodeUrl!)] : []),
    ...(flow.flow === 'authorization' ? [facilitatorStep('/verify')] : []),
    facilitatorStep('/settle'),
  ];
  log(`${store}: ${flow.id} (${steps.map((s) => s.name).join(', ')}), ${IN_FLIGHT} in flight`);
  await warmUp(steps, service);
  const commitsBefore = await scrapeCommits(service.metricsUrl);
  const result = await withDatabaseCpu(
    pg,
    () =>
      runFlow({
        from: WARMUP,
        payments: N,
        inFlight: IN_FLIGHT,
        seconds: DURATION_S,
        steps,
        pid: service.pid,
      }),
    (r) => r.completed,
  );
  const commits = commitFigures(
    commitsBefore,
    await scrapeCommits(service.metricsUrl),
    result.completed,
  );
  await stopService(service);
  const after = await afterRun(dataDir, databaseUrl);
  const facilitatorBytes = mean(bodies.map((b) => b.length));
  return {
    ...result,
    store,
    flow,
    commits,
    calls: steps.map((s) => s.name),
    bytes: {
      ...(flow.transport === 'reference'
        ? { 'POST /proofs': mean(handOvers.map((b) => b.length)) }
        : {}),
      ...(flow.flow === 'authorization' ? { 'POST /verify': facilitatorBytes } : {}),
      'POST /settle': facilitatorBytes,
      'PAYMENT-SIGNATURE': mean(headerBytes),
    },
    ...after,
  };
}

/** The hand-over route alone, then /verify of the compact payments it made, saturated and paced. */
async function routeRuns(
  store: 'sqlite' | 'postgres',
  pg: TestPostgres | null,
): Promise<RouteRuns> {
  const { service, dataDir, databaseUrl } = await serviceOn(store, pg);
  log(`${store}: POST /proofs alone, every payment once, ${IN_FLIGHT} in flight`);
  await warmUp([handOverStep(service.poolNodeUrl!)], service);
  const handOver = await withDatabaseCpu(
    pg,
    () =>
      runFlow({
        from: WARMUP,
        payments: N,
        inFlight: IN_FLIGHT,
        seconds: DURATION_S,
        steps: [handOverStep(service.poolNodeUrl!)],
        pid: service.pid,
      }),
    (r) => r.completed,
  );
  // /verify as the authorization flow calls it, over the payments whose proofs were handed over.
  const { bodies } = facilitatorBodies(FLOWS[1]!);
  const handedOver = bodies.slice(0, WARMUP + handOver.started);
  log(`${store}: compact /verify saturated, ${IN_FLIGHT} connections, ${DURATION_S} s`);
  await saturated(service.url, '/verify', handedOver.slice(0, 500), {
    seconds: 2,
    connections: 8,
  }).catch(() => undefined);
  const verifySaturated = await withDatabaseCpu(
    pg,
    () =>
      saturated(service.url, '/verify', handedOver, {
        seconds: DURATION_S,
        connections: IN_FLIGHT,
        pid: service.pid,
      }),
    (r) => r.requests,
  );
  log(
    `${store}: compact /verify at ${VERIFY_RATE} req/s (paced), ${WARMUP_S} s warm-up + ${DURATION_S} s`,
  );
  await paced(service.url, '/verify', handedOver, {
    rate: VERIFY_RATE,
    seconds: WARMUP_S,
    connections: PACED_CONNECTIONS,
  });
  const verifyPaced = await withDatabaseCpu(
    pg,
    () =>
      paced(service.url, '/verify', handedOver, {
        rate: VERIFY_RATE,
        seconds: DURATION_S,
        connections: PACED_CONNECTIONS,
        pid: service.pid,
        from: VERIFY_RATE * WARMUP_S,
      }),
    (r) => r.requests,
  );
  await stopService(service);
  await afterRun(dataDir, databaseUrl);
  return { store, handOver, verifySaturated, verifyPaced };
}

/** Seconds of the raw verify measurement (0: skipped, e.g. while profiling one run). */
const RAW_VERIFY_S = Number(process.env.BENCH_RAW_VERIFY_S ?? 5);
log('raw verify throughput (core, off the JS thread, this process)');
if (RAW_VERIFY_S > 0) await rawVerify(core, fx, 1, 8);
const rawVerifyPerSec = RAW_VERIFY_S > 0 ? await rawVerify(core, fx, RAW_VERIFY_S, 8) : Number.NaN;

const flows: FlowRun[] = [];
const routes: RouteRuns[] = [];
for (const store of STORES) {
  if (![...FLOWS.map((f) => f.id), 'routes'].some((id) => selected(`${store}:${id}`))) continue;
  const pg = store === 'postgres' ? await startTestPostgres() : null;
  try {
    for (const flow of FLOWS)
      if (selected(`${store}:${flow.id}`)) flows.push(await flowRun(store, pg, flow));
    if (selected(`${store}:routes`)) routes.push(await routeRuns(store, pg));
  } finally {
    await pg?.stop();
  }
}

// The report.
const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–');
const flowName = (f: Flow) =>
  `${f.transport === 'reference' ? 'compact' : 'inline'}, ${f.flow}${f.flow === 'upfront' ? ' (default)' : ''}`;
const stepLatency = (r: FlowResult) =>
  Object.entries(r.steps)
    .map(([name, s]) => `${name.replace('POST ', '')} ${s.latencyMs.p50}/${s.latencyMs.p99}`)
    .join(', ');
const byThread = (
  t:
    | { main: number; primary?: number; niced: number; other: number; busiestOther: number }
    | undefined,
) =>
  t
    ? ` (main ${t.main}${t.primary ? `, primary ${t.primary}` : ''}, verify ${t.niced}, other ${t.other}; writer ≤ ${t.busiestOther})`
    : '';
const dbCpu = (ms: number) => (Number.isFinite(ms) ? String(ms) : '–');
const statuses = (r: FlowResult) =>
  Object.entries(r.steps)
    .map(([name, s]) => `${name.replace('POST ', '')} ${JSON.stringify(s.statusCodes)}`)
    .join('; ');
const compactUpfrontSqlite = flows.find(
  (r) => r.store === 'sqlite' && r.flow.id === 'compact-upfront',
);
const sqliteRoutes = routes.find((r) => r.store === 'sqlite');
const budgets: Record<string, boolean> = {};
if (compactUpfrontSqlite)
  budgets['whole flow, compact upfront (default), SQLite ≥ 1000 payments/s'] =
    compactUpfrontSqlite.paymentsPerSec >= 1000 &&
    compactUpfrontSqlite.completed === compactUpfrontSqlite.started &&
    compactUpfrontSqlite.settlements >= compactUpfrontSqlite.completed;
if (sqliteRoutes?.verifySaturated)
  budgets['/verify alone on compact payments, SQLite ≥ 3000 req/s'] =
    sqliteRoutes.verifySaturated.reqPerSec >= 3000 &&
    (sqliteRoutes.verifySaturated.statusCodes['200'] ?? 0) ===
      sqliteRoutes.verifySaturated.requests;

const routeRow = (name: string, r: WithDatabaseCpu<RunResult>) =>
  `| ${name} | ${r.durationS.toFixed(1)} s | ${r.requests} | ${fmt(r.reqPerSec)} | ${r.latencyMs.p50} | ${r.latencyMs.p99} | ${JSON.stringify(r.statusCodes)} | ${r.serverCpuMsPerRequest}${byThread(r.serverThreadsCpuMsPerRequest)} | ${dbCpu(r.databaseCpuMsPer)} | ${r.generatorCpuMsPerRequest} | ${r.load} |`;
const notes = [
  `Load generator: this process, on the same 2-core machine as the service; ${IN_FLIGHT} payments in flight (closed loop: a payment starts when one ends), each of the ${N} fixture payments (one note each) used once per run, on a freshly funded pool and a fresh service per run, so every payment settles once. The first ${WARMUP} payments of each run warm the fresh service up (same calls, not measured); the measured run lasts ${DURATION_S} s or until the payments run out ("ended").`,
  `Service: \`priv-stark start\` (built dist/, facilitator and pool node in one process over one ledger, one log line per request), PROOF_STORE_MAX=${PROOF_STORE_MAX} (above the ${N} payments), HANDOVER_RATE_LIMIT=${HANDOVER_RATE_LIMIT} per minute (one load generator sends every hand-over from one address). PostgreSQL: a throwaway local cluster (testkit/postgres.ts, fsync on), a fresh database per run.`,
  `Hand-overs: ${HANDOVER_BODY === 'json' ? 'JSON bodies (BENCH_HANDOVER_BODY=json)' : 'hand-over frames, as the wallet sends them'}, ${HANDOVER_KEEPALIVE ? 'keep-alive connections (BENCH_HANDOVER_KEEPALIVE=1)' : 'a fresh connection per hand-over, as the wallet does in Node'}; the merchant's /verify and /settle: keep-alive connections. The wallet's reference is computed before the run and compared with the node's answer, as the wallet does.`,
  `server CPU ms/payment: CPU time (user + system) of the service process per completed payment, verification included, and by thread: main (the event loop: HTTP, JSON, checks, logging, store reads), verify (the niced verification threads), other (the SQLite writer thread, V8 GC and compiler helpers, libuv; "writer ≤": the busiest of them, the SQLite writer when the store is SQLite). PostgreSQL CPU: the local cluster's processes (postmaster, backends, background workers) per payment or request (SQLite runs inside the service). gen. CPU ms/payment: this process. 2 cores ÷ (server + database + generator) bounds the payments/s on this machine.`,
  'Bytes: mean request body of each call over the payment set, and the PAYMENT-SIGNATURE header a stock merchant would receive (base64 of the x402 PaymentPayload JSON with the payload, `resource` and `accepted`, as the stock x402Client builds it). The facilitator bodies are what the stock HTTPFacilitatorClient posts (the PaymentPayload and the requirements).',
  "load avg: the machine's 1-minute load average at the end of each run; the bench's own processes keep both cores busy during a run (about 2). Other sessions shared this machine: figures to compare must be taken on a quiet machine.",
];
const markdown = [
  '## Compact payments: whole-flow benchmark',
  '',
  `${N} payments, ${IN_FLIGHT} in flight, runs of ${DURATION_S} s or until the payments run out; load generator in the bench process on the same machine. Raw verify throughput of the core (same run): **${fmt(rawVerifyPerSec)} verifies/s** (native, 8 in flight). Load average (1 min) when the bench started: ${loadAtStart}.`,
  '',
  '### Whole flow',
  '',
  '| store | transport, flow | calls per payment | ended | duration | payments | payments/s | p50 ms | p99 ms | per call p50/p99 ms | server CPU ms/payment | PostgreSQL CPU ms/payment | gen. CPU ms/payment | load avg |',
  '|---|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|',
  ...flows.map(
    (r) =>
      `| ${r.store} | ${flowName(r.flow)} | ${r.calls.join(' → ')} | ${r.ended} | ${r.durationS.toFixed(1)} s | ${r.completed}/${r.started} | **${fmt(r.paymentsPerSec)}** | ${r.latencyMs.p50} | ${r.latencyMs.p99} | ${stepLatency(r)} | ${r.serverCpuMsPerPayment}${byThread(r.serverThreadsCpuMsPerPayment)} | ${dbCpu(r.databaseCpuMsPer)} | ${r.generatorCpuMsPerPayment} | ${r.load} |`,
  ),
  '',
  `Statuses per call (measured payments), and what the store held after each run (settlements, the ${WARMUP} warm-up payments included; handed-over proofs still kept):`,
  '',
  ...flows.map(
    (r) =>
      `- ${r.store}, ${flowName(r.flow)}: ${statuses(r)}; ${r.settlements} settlements, ${r.proofsKept} proofs kept`,
  ),
  '',
  "### Durable commits of each run (the service's metrics, `priv_stark_commit_*`)",
  '',
  '| store | transport, flow | groups per payment | ops per group | queue wait ms/op | apply ms/group | store lock / work / sync ms per commit | store ms per payment | queue max (since start) |',
  '|---|---|---:|---:|---:|---:|---|---:|---:|',
  ...flows.map((r) => {
    const c = r.commits;
    if (c === null) return `| ${r.store} | ${flowName(r.flow)} | – | – | – | – | – | – | – |`;
    const phases = c.storeMsPerCommit
      ? `${c.storeMsPerCommit.lock} / ${c.storeMsPerCommit.work} / ${c.storeMsPerCommit.sync}`
      : "– (another process's writer)";
    return `| ${r.store} | ${flowName(r.flow)} | ${c.groupsPerPayment} | ${c.opsPerGroup} | ${c.queueWaitMsPerOp} | ${c.applyMsPerGroup} | ${phases} | ${c.storeMsPerPayment ?? '–'} | ${c.queueMax} |`;
  }),
  '',
  '### Bytes per payment on each hop',
  '',
  '| transport, flow | POST /proofs body | POST /verify body | POST /settle body | PAYMENT-SIGNATURE header |',
  '|---|---:|---:|---:|---:|',
  ...flows
    .filter((r) => r.store === flows[0]!.store)
    .map(
      (r) =>
        `| ${flowName(r.flow)} | ${r.bytes['POST /proofs'] ?? '–'} | ${r.bytes['POST /verify'] ?? '–'} | ${r.bytes['POST /settle']} | ${r.bytes['PAYMENT-SIGNATURE']} |`,
    ),
  '',
  '### Routes alone',
  '',
  '| store | run | duration | requests | req/s | p50 ms | p99 ms | status codes | server CPU ms/req | PostgreSQL CPU ms/req | gen. CPU ms/req | load avg |',
  '|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|',
  ...routes.flatMap((r) => [
    ...(r.handOver
      ? [
          `| ${r.store} | POST /proofs, every payment once, ${IN_FLIGHT} in flight (${r.handOver.ended}) | ${r.handOver.durationS.toFixed(1)} s | ${r.handOver.started} | ${fmt(r.handOver.paymentsPerSec)} | ${r.handOver.latencyMs.p50} | ${r.handOver.latencyMs.p99} | ${JSON.stringify(r.handOver.steps['POST /proofs']!.statusCodes)} | ${r.handOver.serverCpuMsPerPayment}${byThread(r.handOver.serverThreadsCpuMsPerPayment)} | ${dbCpu(r.handOver.databaseCpuMsPer)} | ${r.handOver.generatorCpuMsPerPayment} | ${r.handOver.load} |`,
        ]
      : []),
    ...(r.verifySaturated
      ? [
          routeRow(
            `${r.store} | compact /verify saturated (autocannon, ${IN_FLIGHT} conn.)`,
            r.verifySaturated,
          ),
        ]
      : []),
    ...(r.verifyPaced
      ? [
          routeRow(
            `${r.store} | compact /verify at ${VERIFY_RATE} req/s (paced, open loop)`,
            r.verifyPaced,
          ),
        ]
      : []),
  ]),
  '',
  ...Object.entries(budgets).map(([name, met]) => `- ${met ? 'met' : 'MISSED'}: ${name}`),
  '',
  ...notes.map((n) => `- ${n}`),
].join('\n');

const json = {
  environment: environment(),
  loadAtStart,
  payments: N,
  inFlight: IN_FLIGHT,
  durationS: DURATION_S,
  warmUpPayments: WARMUP,
  handOverKeepAlive: HANDOVER_KEEPALIVE,
  handOverBody: HANDOVER_BODY,
  proofStoreMax: PROOF_STORE_MAX,
  handOverRateLimit: HANDOVER_RATE_LIMIT,
  rawVerifyPerSec,
  flows,
  routes,
  budgets,
  notes,
};
// A partial run (BENCH_ONLY), or one for another bench (BENCH_JSON_OUT), leaves the committed
// results alone.
if (process.env.BENCH_JSON_OUT)
  writeFileSync(process.env.BENCH_JSON_OUT, `${JSON.stringify(json, null, 2)}\n`);
else if (ONLY === null) await writeResults('flow', json, markdown);
else {
  const path = join(tmpdir(), 'priv-stark-flow-partial.json');
  writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`);
  log(`partial run (BENCH_ONLY): results in ${path}, bench/results untouched`);
}
process.stdout.write(`${markdown}\n`);
