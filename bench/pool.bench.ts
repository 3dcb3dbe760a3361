// The pool ledger: durable settlement transitions per second on both stores (each transition with
// its own proof, verified by the pool), deposits per second with and without group commit, and
// the append cost (frontier append in the core, and one group's share of a store commit).
//
// Run: npx tsx bench/pool.bench.ts   → bench/results/pool.json and pool.md, and a table on stdout.
// Knobs: POOL_BENCH_N (payments, default 1000; proved once and cached on disk, ~4 min the first
// time), POOL_BENCH_RUNS (3), POOL_BENCH_CONCURRENCY (in-flight settles per process, 256),
// DATABASE_URL (a PostgreSQL to use instead of a throwaway cluster).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Bench } from 'tinybench';

import { loadCore, type PrivStarkCore, randomDigest } from '../src/core/index.js';
import {
  openStore,
  Ledger,
  type PoolStore,
  type StoreConfig,
  type StoreKind,
} from '../src/ledger/index.js';
import { type Fixtures, fixtures, fundPool } from '../testkit/fixtures.js';
import { startWorker } from '../testkit/ledger-children.js';
import { startTestPostgres, type TestPostgres } from '../testkit/postgres.js';
import { environment, writeResults } from './report.js';

const N = Number(process.env.POOL_BENCH_N ?? 1000);
const RUNS = Number(process.env.POOL_BENCH_RUNS ?? 3);
const CONCURRENCY = Number(process.env.POOL_BENCH_CONCURRENCY ?? 256);
const SPEC = { seed: 'pool-bench', notes: N };
const BUDGETS: Record<StoreKind, number> = { sqlite: 800, postgres: 400 };

const log = (text: string) => process.stderr.write(`[bench:pool] ${text}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Runs `tasks` with at most `limit` in flight. */
async function pooled<T>(
  count: number,
  limit: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      for (let i = next++; i < count; i = next++) out[i] = await task(i);
    }),
  );
  return out;
}

interface FreshStore {
  config: StoreConfig;
  store: PoolStore;
}

async function freshLedger(
  core: PrivStarkCore,
  kind: StoreKind,
  pg: TestPostgres | null,
  dirs: string[],
): Promise<FreshStore> {
  let config: StoreConfig;
  if (kind === 'postgres') config = { databaseUrl: await pg!.newDatabase(), maxConnections: 16 };
  else {
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-bench-'));
    dirs.push(dir);
    config = { dataDir: dir };
  }
  return { config, store: await openStore(core, config) };
}

/** Settles every fixture payment through one pool in this process; returns transitions/s. */
async function transitionsInProcess(
  core: PrivStarkCore,
  ledger: FreshStore,
  fx: Fixtures,
): Promise<number> {
  const pool = new Ledger({ core, store: ledger.store });
  await fundPool(pool, fx);
  const started = performance.now();
  const results = await pooled(fx.payments.length, CONCURRENCY, (i) =>
    pool.settle(fx.payments[i]!),
  );
  const seconds = (performance.now() - started) / 1000;
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0)
    throw new Error(`${failed.length} transitions refused: ${JSON.stringify(failed[0])}`);
  return fx.payments.length / seconds;
}

/** Settles every fixture payment from two child processes sharing the ledger; returns transitions/s. */
async function transitionsTwoProcesses(
  core: PrivStarkCore,
  ledger: FreshStore,
  fx: Fixtures,
): Promise<number> {
  await fundPool(new Ledger({ core, store: ledger.store }), fx);
  const all = fx.payments.map((_, i) => i);
  const children = [all.filter((i) => i % 2 === 0), all.filter((i) => i % 2 === 1)].map(
    (payments) => startWorker({ mode: 'race', config: ledger.config, spec: SPEC, payments }),
  );
  await Promise.all(children.map((child) => child.waitFor((line) => line.ready === true)));
  const started = performance.now();
  for (const child of children) child.process.stdin!.end('go\n');
  const reports = await Promise.all(
    children.map((child) => child.waitFor((line) => Array.isArray(line.results), 600_000)),
  );
  const seconds = (performance.now() - started) / 1000;
  const ok = reports.flatMap((r) => r.results as { ok: boolean }[]).filter((r) => r.ok).length;
  if (ok !== fx.payments.length) throw new Error(`only ${ok} of ${fx.payments.length} settled`);
  return fx.payments.length / seconds;
}

/** Durable deposits per second with `concurrency` in flight (1 = one commit per deposit). */
async function depositsPerSecond(
  core: PrivStarkCore,
  ledger: FreshStore,
  count: number,
  concurrency: number,
): Promise<number> {
  const pool = new Ledger({ core, store: ledger.store });
  const pres = Array.from({ length: count }, () => randomDigest());
  const started = performance.now();
  await pooled(count, concurrency, (i) => pool.deposit({ amount: '1', pre: pres[i]! }));
  return count / ((performance.now() - started) / 1000);
}

async function verifyPerSecond(core: PrivStarkCore, fx: Fixtures): Promise<number> {
  const count = Math.min(fx.payments.length, 500);
  const started = performance.now();
  await pooled(count, CONCURRENCY, (i) =>
    core.verifySpend(fx.payments[i]!.proof, fx.payments[i]!.publicInputs),
  );
  return count / ((performance.now() - started) / 1000);
}

async function appendCost(
  core: PrivStarkCore,
): Promise<Record<string, { medianUs: number; p99Us: number }>> {
  let frontier = core.emptyFrontier();
  const leaves = Array.from({ length: 64 }, () => randomDigest());
  let k = 0;
  const bench = new Bench({ time: 1000, warmupTime: 200 });
  bench
    .add('frontier append, 1 leaf (a deposit)', () => {
      frontier = core.frontierAppend(frontier, [leaves[k++ % 64]!]);
    })
    .add('frontier append, 2 leaves (a settlement)', () => {
      frontier = core.frontierAppend(frontier, [leaves[k++ % 64]!, leaves[k++ % 64]!]);
    })
    .add('frontier append, 512 leaves (a group of 256 settlements)', () => {
      frontier = core.frontierAppend(
        frontier,
        leaves.concat(leaves, leaves, leaves, leaves, leaves, leaves, leaves),
      );
    });
  await bench.run();
  const out: Record<string, { medianUs: number; p99Us: number }> = {};
  for (const task of bench.tasks) {
    const r = task.result;
    if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
    out[task.name] = { medianUs: r.latency.p50 * 1000, p99Us: r.latency.p99 * 1000 };
  }
  return out;
}

async function main(): Promise<void> {
  const core = await loadCore();
  log(`core ${core.backend}; fixtures: ${N} payments (cached after the first run)`);
  let lastReport = 0;
  const fx = await fixtures(core, SPEC, (done, total) => {
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      log(`proving ${done}/${total}`);
    }
  });
  const pg = await startTestPostgres(); // DATABASE_URL when set, else a throwaway cluster
  const dirs: string[] = [];
  const results: Record<string, unknown> = {
    environment: environment(),
    n: N,
    runs: RUNS,
    concurrency: CONCURRENCY,
    backend: core.backend,
  };
  try {
    // Runs interleave the two stores and a verification-only pass, so each figure has a ceiling
    // measured at the same time (this machine is shared: its load moves between runs).
    const runs: Record<StoreKind, number[]> = { sqlite: [], postgres: [] };
    const ceilings: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      ceilings.push(await verifyPerSecond(core, fx));
      for (const kind of ['sqlite', 'postgres'] as const) {
        const ledger = await freshLedger(core, kind, pg, dirs);
        runs[kind].push(await transitionsInProcess(core, ledger, fx));
        await ledger.store.close();
      }
      log(
        `run ${run + 1}: verification alone ${ceilings.at(-1)!.toFixed(0)}/s, sqlite ${runs.sqlite.at(-1)!.toFixed(0)}/s, postgres ${runs.postgres.at(-1)!.toFixed(0)}/s`,
      );
    }
    const stores: Record<string, unknown> = {};
    for (const kind of ['sqlite', 'postgres'] as const) {
      const ledger2 = await freshLedger(core, kind, pg, dirs);
      const twoProcesses = await transitionsTwoProcesses(core, ledger2, fx);
      await ledger2.store.close();
      log(`${kind} transitions, two processes: ${twoProcesses.toFixed(0)}/s`);
      const ledger3 = await freshLedger(core, kind, pg, dirs);
      const serial = await depositsPerSecond(core, ledger3, 200, 1);
      const grouped = await depositsPerSecond(core, ledger3, 5000, CONCURRENCY);
      await ledger3.store.close();
      log(
        `${kind} deposits: ${serial.toFixed(0)}/s one at a time, ${grouped.toFixed(0)}/s grouped`,
      );
      const ratios = runs[kind].map((rate, i) => rate / (ceilings[i] ?? rate));
      stores[kind] = {
        transitionsPerSecond: {
          runs: runs[kind],
          median: median(runs[kind]),
          best: Math.max(...runs[kind]),
          ofCeiling: median(ratios),
          twoProcesses,
        },
        depositsPerSecond: { oneAtATime: serial, grouped },
        budget: BUDGETS[kind],
        met: median(runs[kind]) >= BUDGETS[kind],
      };
    }
    results.verifyCeilings = ceilings;
    results.stores = stores;
    // last: its garbage (thousands of frontier copies) would slow the runs above
    results.appendCost = await appendCost(core);
  } finally {
    await pg.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }

  const s = results.stores as Record<
    StoreKind,
    {
      transitionsPerSecond: {
        runs: number[];
        median: number;
        best: number;
        ofCeiling: number;
        twoProcesses: number;
      };
      depositsPerSecond: { oneAtATime: number; grouped: number };
      budget: number;
      met: boolean;
    }
  >;
  const a = results.appendCost as Record<string, { medianUs: number; p99Us: number }>;
  const ceilings = results.verifyCeilings as number[];
  const markdown = [
    `## Ledger ledger (${N} payments, ${CONCURRENCY} in flight, core ${core.backend})`,
    '',
    `Environment: ${JSON.stringify(results.environment)}`,
    '',
    'Durable settlement transitions per second, proof verification included (each transition with its own proof).',
    `Each run measured proof verification alone first (the same proofs, ${CONCURRENCY} in flight, no store) — the ceiling of any`,
    `transition rate at that moment: ${ceilings.map((x) => x.toFixed(0)).join(', ')}/s.`,
    '',
    '| store | median | best | runs | median share of the ceiling | two processes | deposits/s one at a time | deposits/s grouped | budget |',
    '|---|---:|---:|---|---:|---:|---:|---:|---|',
    ...(['sqlite', 'postgres'] as const).map((kind) => {
      const r = s[kind];
      const t = r.transitionsPerSecond;
      return `| ${kind} | ${t.median.toFixed(0)} | ${t.best.toFixed(0)} | ${t.runs.map((x) => x.toFixed(0)).join(', ')} | ${(t.ofCeiling * 100).toFixed(0)}% | ${t.twoProcesses.toFixed(0)} | ${r.depositsPerSecond.oneAtATime.toFixed(0)} | ${r.depositsPerSecond.grouped.toFixed(0)} | ≥ ${r.budget}: ${r.met ? 'met' : 'MISSED'} |`;
    }),
    '',
    '| append | median µs | p99 µs |',
    '|---|---:|---:|',
    ...Object.entries(a).map(
      ([name, r]) => `| ${name} | ${r.medianUs.toFixed(1)} | ${r.p99Us.toFixed(1)} |`,
    ),
  ].join('\n');
  await writeResults('pool', results, markdown);
  process.stdout.write(`${markdown}\n`);
}

await main();
process.exit(0);
