/**
 * @module `priv-stark start --workers N`: the service over N processes of one machine
 * (`node:cluster`). Each worker binds its own sockets on the shared ports with `SO_REUSEPORT`
 * (Node 22.12 and later): the kernel spreads connections, and a worker's death resets the
 * connections it held instead of leaving any open (cluster's hand-over of an accepted connection
 * leaves it open, unanswered, when its worker dies in between). On Node 20, which has no
 * `reusePort`, the primary accepts and hands connections over. Each worker runs both listeners, the facilitator and the
 * pool node, with verification threads of its own (`worker-main.ts`). The primary process runs
 * what must run once: the SQLite store's writes (every worker's commits go through its writer
 * thread, one at a time, as one process's would), the checkpoint timer, the log digests, the
 * rate-limit counters and the salt of the pool node's client addresses, and the metrics listener,
 * which aggregates the workers' registries. With PostgreSQL each worker writes to the database
 * itself: the database serialises the writes, as it does for several instances.
 *
 * A worker that dies is started again (at most `RESTARTS_PER_MINUTE` a minute; past that the
 * service stops). When the primary dies, its workers stop — a supervisor restarts the service;
 * nothing acknowledged is lost either way: a reply is sent only after its commit, and a write
 * whose process died before its reply is never acknowledged.
 */

import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

import { AggregatorRegistry, Registry } from 'prom-client';

import { extendLogDigests } from '../audit/index.js';
import { workerScript } from '../core/worker-threads.js';
import { listenMetrics, registerCommitStoreCounters } from '../http/index.js';
import { Ledger, openStore, type PoolStore } from '../ledger/index.js';
import { LOG_DIGEST_INTERVAL_MS, nodeProofHash } from '../pool-node/index.js';
import { DEVNET_NETWORK, SCHEME } from '../scheme/index.js';
import { ServiceConfigError } from './config-error.js';
import {
  apiKeyShownOnce,
  checkedAccess,
  configuredCore,
  messageOf,
  operatorTokenShownOnce,
} from './startup.js';
import { type IpcHandlers, serveIpcCalls } from './ipc-calls.js';
import { RateWindows } from './rate-windows.js';
import type { ServiceConfig } from './service.js';
import { refuseChainBoundStore } from './store-binding.js';
import { type WorkerMessage, workerMessage } from './worker-messages.js';

/** The most workers `--workers` takes (and the default's cap). */
export const MAX_WORKERS = 16;

/** Restarts of dead workers a minute before the service gives up and stops. */
export const RESTARTS_PER_MINUTE = 10;

/** How long a stopping worker may take to finish its requests before it is killed, ms. */
const STOP_TIMEOUT_MS = 30_000;

/** Whether this Node binds listeners with `reusePort` (22.12+, 23.1+). */
export function reusePortSupported(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

/** The default worker count: one per available core, at most {@link MAX_WORKERS}. */
export function defaultWorkerCount(): number {
  return Math.min(MAX_WORKERS, Math.max(1, availableParallelism()));
}

/** A service running on several processes. */
export interface RunningWorkers {
  readonly facilitatorUrl: string | null;
  readonly poolNodeUrl: string | null;
  readonly metricsUrl: string | null;
  /** Workers it runs. */
  readonly workers: number;
  /** Resolves with the exit code when the service stopped by itself (its workers kept dying). */
  readonly stopped: Promise<number>;
  /** Graceful shutdown (idempotent): the workers finish their requests, then the primary's parts stop. */
  close(): Promise<void>;
}

/**
 * Starts the service on `count` worker processes and returns once every worker listens.
 * @throws ServiceConfigError for a configuration the service refuses (a chain pool: one process);
 *   a worker's start failure (a port in use) with its message
 */
export async function startWorkers(
  config: ServiceConfig,
  count: number,
  say: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<RunningWorkers> {
  if (!cluster.isPrimary) throw new Error('startWorkers runs in the primary process');
  if (config.chain)
    throw new ServiceConfigError(
      'a chain pool runs in one process (its watcher, payout sender and attester hold the keys): use --workers 1',
    );
  // Checked here first, so that a bad CONFIG stops the start before any worker exists.
  const access = checkedAccess(config);
  const core = await configuredCore(config);
  const storeConfig = { databaseUrl: config.databaseUrl, dataDir: config.dataDir };
  // Opened (and migrated) once, before any worker opens it.
  const store: PoolStore = await openStore(core, {
    ...storeConfig,
    onIdleError: (error) => say(`priv-stark: a database connection closed: ${error.message}`),
  });
  const stops: (() => Promise<unknown>)[] = [() => store.close()];
  const stopParts = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    await refuseChainBoundStore(storeConfig);
    showGeneratedSecrets(config, access !== null && access.keys.length === 0, say);
    const network = access?.networks?.[0] ?? DEVNET_NETWORK;
    const ledger = new Ledger({
      core,
      store,
      scheme: SCHEME,
      network: network.network,
      asset: network.asset,
      checkpointIntervalMs: config.checkpointIntervalMs,
      epoch: config.epoch,
      proofStoreCapacity: config.proofStoreCapacity,
      proofRetentionMs: config.proofRetentionDays * 86_400_000,
      acceptedParameterSets: core.acceptedParameterSets().map((set) => set.id),
      onTimerError: (error) => say(`priv-stark: checkpoint failed: ${messageOf(error)}`),
    });
    stops.push(() => ledger.stop());
    ledger.start();
    if (config.poolNode) stops.push(keepLogDigests(store, say));

    // Constructed before any worker exists: it listens for their replies on the cluster.
    const aggregator = config.metricsPort === undefined ? null : new AggregatorRegistry();
    // The cores shared among the workers' verification threads, unless VERIFY_THREADS says.
    const workerConfig: ServiceConfig = {
      ...config,
      verifyThreads:
        config.verifyThreads ?? Math.max(1, Math.floor(availableParallelism() / count)),
    };
    const pool = new WorkerPool(workerConfig, count, store, say);
    stops.push(() => pool.close());
    const first = await pool.start();
    let metricsUrl: string | null = null;
    if (aggregator && config.metricsPort !== undefined) {
      // On SQLite this process's store commits every worker's writes: it reports their phases
      // beside the workers' own metrics (the workers' stores report none: commit-metrics.ts).
      const own = new Registry();
      if (store.kind === 'sqlite')
        registerCommitStoreCounters([own], () => store.commitTiming?.() ?? null);
      const server: Server = await listenMetrics(
        {
          contentType: aggregator.contentType,
          metrics: async () => `${await aggregator.clusterMetrics()}\n${await own.metrics()}`,
        },
        config.metricsPort,
        config.host,
      );
      stops.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : config.metricsPort;
      metricsUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}/metrics`;
    }
    say(
      `priv-stark: ${count} workers serving (pids ${pool.pids().join(', ')})${metricsUrl ? `; metrics at ${metricsUrl}` : ''}`,
    );
    let closing: Promise<void> | null = null;
    const close = () => {
      closing ??= stopParts();
      return closing;
    };
    return {
      facilitatorUrl: first.facilitatorUrl,
      poolNodeUrl: first.poolNodeUrl,
      metricsUrl,
      workers: count,
      stopped: pool.gaveUp.then(async () => {
        await close();
        return 1;
      }),
      close,
    };
  } catch (error) {
    await stopParts();
    throw error;
  }
}

/**
 * Generates the API key and the operator token when none is configured — here, once, so that no
 * worker shows them and every worker reads the same files.
 */
function showGeneratedSecrets(
  config: ServiceConfig,
  needsApiKey: boolean,
  say: (line: string) => void,
): void {
  if (config.facilitator && !config.insecureNoAuth && needsApiKey)
    apiKeyShownOnce(config.dataDir, say);
  if (config.poolNode) operatorTokenShownOnce(config, say);
}

/** The pool node's log digests, extended by the primary for every worker (`log-digest-timer.ts`). */
function keepLogDigests(store: PoolStore, say: (line: string) => void): () => Promise<void> {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    running ??= extendLogDigests(store, nodeProofHash)
      .then(() => undefined)
      .catch((error: unknown) => say(`priv-stark: log digests not extended: ${messageOf(error)}`))
      .finally(() => {
        running = null;
      });
  }, LOG_DIGEST_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The URLs a worker listens on. */
interface Listening {
  readonly facilitatorUrl: string | null;
  readonly poolNodeUrl: string | null;
}

/** The workers: forked, answered, restarted when they die, stopped on close. */
class WorkerPool {
  private readonly ready = new Set<Worker>();
  private readonly restarts: number[] = [];
  private readonly windows = new RateWindows();
  private readonly clientSalt = randomBytes(16);
  private readonly reusePort = reusePortSupported();
  private readonly handlers: IpcHandlers;
  private closing = false;
  /** Set once the first workers listen: from then on, a worker that exits is replaced. */
  private started = false;
  private giveUp: () => void = () => undefined;
  /** Resolves when workers died faster than {@link RESTARTS_PER_MINUTE}. */
  readonly gaveUp = new Promise<void>((resolve) => {
    this.giveUp = resolve;
  });

  constructor(
    private config: ServiceConfig,
    private readonly count: number,
    store: PoolStore,
    private readonly say: (line: string) => void,
  ) {
    this.handlers = {
      'store.apply': (ops: Parameters<PoolStore['apply']>[0], now: number) => store.apply(ops, now),
      'store.checkpoint': (now: number, minGapMs: number, epochMs: number | undefined) =>
        store.checkpoint(now, minGapMs, epochMs),
      'store.pruneProofs': (now: number) => store.pruneProofs(now),
      'store.pruneArchive': (before: number, pageSize: number) =>
        store.pruneArchive(before, pageSize),
      'store.recordLogDigests': (records: Parameters<PoolStore['recordLogDigests']>[0]) =>
        store.recordLogDigests(records),
      'rate.count': (namespace: string, key: string, timeWindowMs: number) =>
        this.windows.count(namespace, key, timeWindowMs),
      'workers.health': () => ({ configured: this.count, alive: this.ready.size }),
    };
    cluster.setupPrimary({
      exec: fileURLToPath(workerScript(import.meta.url, 'worker-main')),
      args: [],
      serialization: 'advanced',
    });
  }

  /** Forks every worker; resolves with the first one's URLs once all listen. */
  async start(): Promise<Listening> {
    let first: Listening;
    try {
      // The first worker picks the ports (0: any free one); the others bind the same.
      first = await this.fork();
      this.config = {
        ...this.config,
        port: portOf(first.facilitatorUrl) ?? this.config.port,
        poolPort: portOf(first.poolNodeUrl) ?? this.config.poolPort,
      };
    } catch (error) {
      await this.close();
      throw error;
    }
    const others = await Promise.allSettled(
      Array.from({ length: this.count - 1 }, () => this.fork()),
    );
    const failed = others.find((result) => result.status === 'rejected');
    if (failed) {
      await this.close();
      throw failed.reason;
    }
    this.started = true;
    return first;
  }

  pids(): number[] {
    return [...this.ready].map((worker) => worker.process.pid ?? 0);
  }

  async close(): Promise<void> {
    this.closing = true;
    const workers = Object.values(cluster.workers ?? {}).filter(
      (worker): worker is Worker => worker !== undefined,
    );
    await Promise.all(workers.map((worker) => stopWorker(worker)));
  }

  private fork(): Promise<Listening> {
    const worker = cluster.fork();
    serveIpcCalls(worker, this.handlers);
    return new Promise<Listening>((resolve, reject) => {
      let listening = false;
      worker.on('message', (message: unknown) => {
        const known = workerMessage(message);
        if (known?.kind === 'ready') {
          listening = true;
          this.ready.add(worker);
          resolve({ facilitatorUrl: known.facilitatorUrl, poolNodeUrl: known.poolNodeUrl });
        } else if (known?.kind === 'failed') {
          reject(
            known.configError ? new ServiceConfigError(known.message) : new Error(known.message),
          );
        }
      });
      worker.on('exit', (code, signal) => {
        this.ready.delete(worker);
        if (!listening) reject(new Error(`a worker exited while starting (${signal ?? code})`));
        if (this.started && !this.closing) this.replace(worker, code, signal);
      });
      worker.send(
        {
          tag: 'priv-stark:worker',
          kind: 'start',
          config: this.config,
          clientSalt: this.clientSalt,
          reusePort: this.reusePort,
        } satisfies WorkerMessage,
        undefined,
        {},
        // A worker that died at once: its exit rejects the start.
        () => undefined,
      );
    });
  }

  private replace(dead: Worker, code: number | null, signal: string | null): void {
    const now = Date.now();
    this.restarts.push(now);
    while (this.restarts.length > 0 && this.restarts[0]! < now - 60_000) this.restarts.shift();
    if (this.restarts.length > RESTARTS_PER_MINUTE) {
      this.say(
        `priv-stark: workers died ${this.restarts.length} times within a minute; stopping the service`,
      );
      this.giveUp();
      return;
    }
    this.say(
      `priv-stark: worker ${dead.process.pid} exited (${signal ?? `code ${code}`}); starting another`,
    );
    this.fork().catch((error: unknown) =>
      this.say(`priv-stark: a restarted worker did not start: ${messageOf(error)}`),
    );
  }
}

function portOf(url: string | null): number | undefined {
  return url === null ? undefined : Number(new URL(url).port);
}

/** Asks a worker to stop gracefully; kills it when it takes longer than {@link STOP_TIMEOUT_MS}. */
function stopWorker(worker: Worker): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => worker.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.send(
      { tag: 'priv-stark:worker', kind: 'stop' } satisfies WorkerMessage,
      undefined,
      {},
      (error) => {
        if (error) worker.process.kill('SIGTERM');
      },
    );
  });
}
