// The service under load, as the HTTP benches run it: `priv-stark start` from the built dist/ in a
// process of its own (the facilitator listener, and the devnet pool node when asked for, over one
// ledger), on a funded store — a copy of the fixtures' pool in a fresh SQLite data directory or a
// fresh PostgreSQL database — and the CPU accounting of that process and of the bench's own.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { PrivStarkCore } from '../src/core/index.js';
import { Ledger, openStore } from '../src/ledger/index.js';
import { type Fixtures, fundPool } from '../testkit/fixtures.js';
import { freePort } from '../testkit/free-port.js';

// The bench's own wallets accept the gridless pool below (a wallet's minimum epoch, docs/privacy.md).
if (process.env.EPOCH_MS === undefined) process.env.PRIV_STARK_MIN_EPOCH_MS ??= '1';

/** The API key the benches start the service with (`Authorization: Bearer …`). */
export const KEY = 'bench-key-0123456789abcdef';
/** The pool operator's token (set so the service generates and prints none). */
export const OPERATOR_TOKEN = 'bench-operator-token-0123456789';
/**
 * The `priv-stark` command the benches start: this checkout's build, or another build's
 * `dist/cli/main.js` (BENCH_SERVICE_MAIN; bench/builds.bench.ts runs two builds side by side).
 */
const MAIN =
  process.env.BENCH_SERVICE_MAIN ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** The dist directory of another build under test (BENCH_SERVICE_MAIN's), or null for this one. */
const OTHER_BUILD = process.env.BENCH_SERVICE_MAIN === undefined ? null : join(dirname(MAIN), '..');

/**
 * Funds the fixtures' pool in the store `config` names, with the ledger of the build under test:
 * another build's in a process of its own (bench/fund-build.mjs), so its database has the schema
 * that build's service opens.
 */
async function fundStore(
  core: PrivStarkCore,
  fx: Fixtures,
  config: { dataDir: string } | { databaseUrl: string },
): Promise<void> {
  if (OTHER_BUILD === null) {
    const store = await openStore(core, config);
    await fundPool(new Ledger({ core, store }), fx);
    await store.close();
    return;
  }
  const deposits = join(mkdtempSync(join(tmpdir(), 'priv-stark-fund-')), 'deposits.json');
  writeFileSync(
    deposits,
    JSON.stringify(fx.notes.map((n) => ({ amount: n.value, pre: n.precommitment }))),
  );
  const script = fileURLToPath(new URL('./fund-build.mjs', import.meta.url));
  const result = spawnSync(
    process.execPath,
    [script, OTHER_BUILD, JSON.stringify(config), deposits],
    {
      encoding: 'utf8',
    },
  );
  rmSync(dirname(deposits), { recursive: true, force: true });
  if (result.status !== 0 || result.stdout.trim() !== fx.root)
    throw new Error(`funding with ${OTHER_BUILD} failed (${result.status}): ${result.stderr}`);
}

/** A funded copy of the fixtures' pool in a fresh data directory (embedded SQLite). */
export async function fundedDataDir(core: PrivStarkCore, fx: Fixtures): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-bench-'));
  await fundStore(core, fx, { dataDir: dir });
  return dir;
}

/** Funds the fixtures' pool in the (empty) PostgreSQL database at `databaseUrl`. */
export async function fundDatabase(
  core: PrivStarkCore,
  fx: Fixtures,
  databaseUrl: string,
): Promise<void> {
  await fundStore(core, fx, { databaseUrl });
}

/** A running `priv-stark start`. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The facilitator listener's base URL. */
  readonly url: string;
  /** The pool node's base URL, `null` without it. */
  readonly poolNodeUrl: string | null;
  /** Its log (stdout), removed by {@link stopService}. */
  readonly logFile: string;
  /** Its metrics listener (`METRICS_PORT`), scraped for the commit figures (`commit-figures.ts`). */
  readonly metricsUrl: string;
}

/** Whether `url` answers 200 now. */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Starts `priv-stark start` on free ports and resolves once its listeners answer `GET /health`
 * (whatever the log level).
 * @param options.dataDir the data directory (the SQLite store unless `databaseUrl` is given)
 * @param options.poolNode run the devnet pool node too (default off)
 * @param options.workers `--workers` (default BENCH_WORKERS, or 1)
 * @param options.env extra environment (e.g. `PROOF_STORE_MAX`, `HANDOVER_RATE_LIMIT`)
 */
export async function startService(options: {
  dataDir: string;
  databaseUrl?: string | undefined;
  poolNode?: boolean;
  workers?: number;
  env?: Record<string, string>;
}): Promise<ServiceProcess> {
  // A free port can be taken between our probe and the service's listen (the load generators'
  // own connections draw from the same ephemeral range): on EADDRINUSE, new ports, a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= START_ATTEMPTS) throw error;
      process.stderr.write(`[bench] a port was taken before the service bound it: new ports\n`);
    }
  }
}

const START_ATTEMPTS = 3;

/** The service exited at start because a port it was given was taken meanwhile. */
class PortTakenError extends Error {}

async function startOnce(options: Parameters<typeof startService>[0]): Promise<ServiceProcess> {
  // BENCH_SERVER_NODE_OPTIONS: flags of the service's node (e.g. `--cpu-prof --cpu-prof-dir=DIR`).
  const nodeFlags = (process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const port = await freePort();
  const poolPort = options.poolNode ? await freePort() : null;
  const metricsPort = await freePort();
  const args = [...nodeFlags, MAIN, 'start', '--port', String(port), '--data-dir', options.dataDir];
  if (poolPort !== null) args.push('--pool-port', String(poolPort));
  else args.push('--no-pool-node');
  if (options.databaseUrl) args.push('--database-url', options.databaseUrl);
  // One process unless asked (BENCH_WORKERS, or the caller's `workers`): the figures before
  // `--workers` existed were one process's.
  args.push('--workers', String(options.workers ?? process.env.BENCH_WORKERS ?? 1));
  // The service logs (one line per request) to a file, as a deployment would, not to a pipe this
  // busy process must drain.
  const logFile = join(mkdtempSync(join(tmpdir(), 'priv-stark-bench-log-')), 'service.log');
  const logFd = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', logFd, 'pipe'],
    env: {
      ...process.env,
      API_KEYS: KEY,
      POOL_OPERATOR_TOKEN: OPERATOR_TOKEN,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      // Throughput benches run the pool without an epoch grid (every checkpoint an anchor), as
      // the builds they are compared with did; EPOCH_MS set in the environment measures a grid.
      EPOCH_MS: process.env.EPOCH_MS ?? '1',
      ANCHOR_DELAY_MS: process.env.ANCHOR_DELAY_MS ?? '0',
      // As a deployment runs it: the metrics listener on (its counters cost every request a little).
      METRICS_PORT: String(metricsPort),
      ...options.env,
    },
  });
  closeSync(logFd);
  // Its stderr passes through, and is kept to tell a taken port from any other failure.
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < 65_536) stderr += chunk.toString('utf8');
    process.stderr.write(chunk);
  });
  const url = `http://127.0.0.1:${port}`;
  const poolNodeUrl = poolPort === null ? null : `http://127.0.0.1:${poolPort}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const message = `priv-stark start exited (${child.exitCode ?? child.signalCode})`;
      rmSync(dirname(logFile), { recursive: true, force: true });
      throw stderr.includes('EADDRINUSE') ? new PortTakenError(message) : new Error(message);
    }
    if (
      (await answers(`${url}/health`)) &&
      (poolNodeUrl === null || (await answers(`${poolNodeUrl}/health`)))
    )
      break;
    if (Date.now() - started > 60_000) {
      child.kill('SIGKILL');
      throw new Error('priv-stark start did not answer /health within 60 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    pid: child.pid!,
    url,
    poolNodeUrl,
    logFile,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
  };
}

/** SIGTERM, then waits for the exit (the service shuts down gracefully). */
export async function stopService(service: ServiceProcess): Promise<void> {
  const { child } = service;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dirname(service.logFile), { recursive: true, force: true });
}

/**
 * The processes of the service started as `pid`: it and its descendants (Linux /proc) — the
 * workers of `--workers N`, and the supported Node line's process when the CLI reran itself on it
 * (`src/cli/supported-node.ts`).
 */
export function serviceProcesses(pid: number): number[] {
  const children = new Map<number, number[]>();
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^[0-9]+$/.test(entry)) continue;
      try {
        const ppid = Number(
          readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1],
        );
        children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      } catch {
        // the process ended
      }
    }
  } catch {
    return [pid];
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []));
  return out;
}

/** CPU time (user + system) the service started as `pid` has used, ms (its every process), or NaN. */
export function processCpuMs(pid: number): number {
  let total = 0;
  for (const proc of serviceProcesses(pid)) {
    try {
      const fields = readFileSync(`/proc/${proc}/stat`, 'utf8').split(') ')[1]!.split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      if (proc === pid) return Number.NaN;
    }
  }
  return total;
}

/** CPU time of a service's threads, ms, by role. */
export interface ThreadsCpu {
  /** The serving processes' main threads: the event loops (HTTP, JSON, checks, logging, store reads). */
  readonly main: number;
  /**
   * The main threads of processes with children: the primary of `--workers N` (the calls of its
   * workers: writes, rate-limit counts) and a supported-line rerun's parent; 0 for one process.
   */
  readonly primary: number;
  /** Niced threads: the service's verification threads (nice 10). */
  readonly niced: number;
  /** Every other thread: the SQLite writer thread, V8's GC and compiler helpers, libuv's pool. */
  readonly other: number;
  /** The busiest of the other threads (the SQLite writer thread when the store is SQLite). */
  readonly busiestOther: number;
}

/** A thread's CPU time and nice value, and its role if it is its process's main thread. */
export interface ThreadTime {
  readonly ms: number;
  readonly nice: number;
  /** `serving`: a process without children; `parent`: one with (a primary); absent: not a main thread. */
  readonly main?: 'serving' | 'parent';
}

/** Per-thread CPU times of the service started as `pid` (Linux /proc), by thread id. */
export function threadTimes(pid: number): Map<number, ThreadTime> {
  const out = new Map<number, ThreadTime>();
  const procs = serviceProcesses(pid);
  const parents = new Set<number>();
  for (const proc of procs) {
    try {
      const ppid = Number(readFileSync(`/proc/${proc}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (proc !== pid) parents.add(ppid);
    } catch {
      // the process ended
    }
  }
  for (const proc of procs) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${proc}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const fields = readFileSync(`/proc/${proc}/task/${tid}/stat`, 'utf8')
          .split(') ')[1]!
          .split(' ');
        const main = Number(tid) === proc ? (parents.has(proc) ? 'parent' : 'serving') : undefined;
        out.set(Number(tid), {
          ms: (Number(fields[11]) + Number(fields[12])) * 10,
          nice: Number(fields[16]),
          ...(main ? { main } : {}),
        });
      } catch {
        // the thread ended
      }
    }
  }
  return out;
}

/** The CPU each role of a service's threads used between two {@link threadTimes} readings. */
export function threadsCpuBetween(
  _pid: number,
  before: Map<number, ThreadTime>,
  after: Map<number, ThreadTime>,
): ThreadsCpu {
  let main = 0;
  let primary = 0;
  let niced = 0;
  let other = 0;
  let busiestOther = 0;
  for (const [tid, now] of after) {
    const used = now.ms - (before.get(tid)?.ms ?? 0);
    if (now.main === 'serving') main += used;
    else if (now.main === 'parent') primary += used;
    else if (now.nice > 0) niced += used;
    else {
      other += used;
      busiestOther = Math.max(busiestOther, used);
    }
  }
  return { main, primary, niced, other, busiestOther };
}

/**
 * CPU time a local PostgreSQL cluster listening on `port` has used, ms (Linux /proc): its
 * postmaster, the backends it has reaped, and its live processes. NaN when it is not found (an
 * external server).
 */
export function postgresCpuMs(port: number): number {
  const procs = new Map<number, { ppid: number; ms: number; reaped: number }>();
  let postmaster: number | null = null;
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.split(') ')[1]!.split(' ');
      procs.set(Number(entry), {
        ppid: Number(fields[1]),
        ms: (Number(fields[11]) + Number(fields[12])) * 10,
        reaped: (Number(fields[13]) + Number(fields[14])) * 10,
      });
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const p = argv.indexOf('-p');
      if (p >= 0 && argv[p + 1] === String(port)) postmaster = Number(entry);
    } catch {
      // the process ended
    }
  }
  if (postmaster === null) return Number.NaN;
  let ms = procs.get(postmaster)!.ms + procs.get(postmaster)!.reaped;
  for (const proc of procs.values()) if (proc.ppid === postmaster) ms += proc.ms;
  return ms;
}

/** Milliseconds of CPU this process has used. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
