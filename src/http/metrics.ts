/**
 * @module Prometheus metrics (prom-client) of the facilitator, served on a separate, opt-in
 * listener (`METRICS_PORT`) — never on the facilitator's own listener, whose surface is exactly
 * the three routes. Requests by route, status and reason; verify and settle latency; the proof
 * backend; pool size and checkpoint age (read from the pool when scraped); a chain pool's watcher
 * lag, reorganisations, deposits and hot keys' gas (`chain-metrics.ts`).
 */

import { createServer, type Server } from 'node:http';

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import type { CommitStatsSnapshot, StoreState } from '../ledger/index.js';
import { registerCommitGauges } from './commit-metrics.js';
import type { ChainHealth } from './chain-health.js';
import { registerChainGauges } from './chain-metrics.js';

/** Where pool gauges come from. */
export interface PoolGaugeSource {
  state(): Promise<StoreState>;
  /** Handed-over proofs stored (compact payments). */
  proofCount?(): Promise<number>;
  /** Where the durable writes spend their time (`Ledger.commitStats`). */
  commitStats?(): CommitStatsSnapshot;
}

/** Where the verification queue gauges come from (the verification threads). */
export interface VerifierGaugeSource {
  /** Verifications sent and not answered yet. */
  readonly busy: number;
  /** Threads. */
  readonly size: number;
}

/** Options of {@link FacilitatorMetrics}. */
export interface FacilitatorMetricsOptions {
  /** The loaded proof backend. */
  readonly backend: string;
  /** Read on each scrape for the pool gauges. */
  readonly pool: PoolGaugeSource;
  /** The verification threads, when the service runs them. */
  readonly verifier?: VerifierGaugeSource | undefined;
  /** The verdict cache: valid verdicts reused and verifications run (`verdict-cache.ts`). */
  readonly verdicts?: { readonly hits: number; readonly misses: number } | undefined;
  /** The ledger's checkpoint cadence, ms (exported for the staleness alert). */
  readonly checkpointIntervalMs?: number | undefined;
  /** The proof store's capacity (`PROOF_STORE_MAX`). */
  readonly proofStoreCapacity?: number | undefined;
  /** Unix ms (checkpoint age). */
  readonly clock?: () => number;
  /** Node's process metrics too (default true). */
  readonly processMetrics?: boolean;
  /** A chain pool's deposit watcher, read on each scrape (`chain-metrics.ts`). */
  readonly chain?: (() => ChainHealth) | undefined;
}

/**
 * The service's metrics in their own registry: the facilitator's replies, latencies and backend,
 * the pool node's replies, the verification queue, the pool (size, checkpoint, whether its store
 * answers) and the proof store. `ops/` has the dashboard and alert rules built on them.
 */
export class FacilitatorMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'status' | 'reason'>;
  /** Replies of the pool node's listener (`route` is the route pattern; `reason` its error code). */
  readonly poolNodeRequests: Counter<'route' | 'status' | 'reason'>;
  readonly verifySeconds: Histogram;
  readonly settleSeconds: Histogram;
  readonly backend: Gauge<'backend'>;

  constructor(options: FacilitatorMetricsOptions) {
    const registers = [this.registry];
    const clock = options.clock ?? Date.now;
    if (options.processMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: 'priv_stark_' });
    this.requests = new Counter({
      name: 'priv_stark_http_requests_total',
      help: 'Replies of the facilitator listener by route, status and reason ("" for success)',
      labelNames: ['route', 'status', 'reason'],
      registers,
    });
    this.poolNodeRequests = new Counter({
      name: 'priv_stark_pool_node_requests_total',
      help: 'Replies of the pool node listener by route, status and reason ("" for success)',
      labelNames: ['route', 'status', 'reason'],
      registers,
    });
    const buckets = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
    this.verifySeconds = new Histogram({
      name: 'priv_stark_verify_duration_seconds',
      help: 'Time to answer /verify after parsing',
      buckets,
      registers,
    });
    this.settleSeconds = new Histogram({
      name: 'priv_stark_settle_duration_seconds',
      help: 'Time to answer /settle after parsing, durable commit included',
      buckets,
      registers,
    });
    this.backend = new Gauge({
      name: 'priv_stark_proof_backend',
      aggregator: 'first',
      help: 'The loaded proof backend (1 for the one in use)',
      labelNames: ['backend'],
      registers,
    });
    this.backend.set({ backend: options.backend }, 1);
    const verifier = options.verifier;
    if (verifier) {
      new Gauge({
        name: 'priv_stark_verify_queue',
        help: 'Proof verifications sent to the verification threads and not answered yet',
        registers,
        collect() {
          this.set(verifier.busy);
        },
      });
      new Gauge({
        name: 'priv_stark_verify_threads',
        help: 'Verification threads',
        registers,
        collect() {
          this.set(verifier.size);
        },
      });
    }
    const commitStats = options.pool.commitStats?.bind(options.pool);
    if (commitStats) registerCommitGauges(registers, commitStats);
    const verdicts = options.verdicts;
    if (verdicts)
      new Gauge({
        name: 'priv_stark_verify_verdicts',
        help: "Inline payments' spend proof checks since start: a kept valid verdict reused, or a verification run (hand-overs are verified beside the cache)",
        labelNames: ['outcome'],
        registers,
        collect() {
          this.set({ outcome: 'reused' }, verdicts.hits);
          this.set({ outcome: 'verified' }, verdicts.misses);
        },
      });
    if (options.checkpointIntervalMs !== undefined) {
      new Gauge({
        name: 'priv_stark_checkpoint_interval_seconds',
        aggregator: 'first',
        help: 'The ledger checkpoint cadence',
        registers,
      }).set(options.checkpointIntervalMs / 1000);
    }
    if (options.proofStoreCapacity !== undefined) {
      new Gauge({
        name: 'priv_stark_proof_store_capacity',
        aggregator: 'first',
        help: 'Handed-over proofs the store may hold (PROOF_STORE_MAX)',
        registers,
      }).set(options.proofStoreCapacity);
    }
    let lastState: Promise<StoreState | null> | null = null;
    // One pool read per scrape, shared by the gauges.
    const poolState = () => {
      lastState ??= options.pool.state().catch(() => null);
      const read = lastState;
      setImmediate(() => {
        if (lastState === read) lastState = null;
      });
      return read;
    };
    new Gauge({
      name: 'priv_stark_pool_up',
      aggregator: 'min',
      help: 'Whether the pool store answered this scrape (1) or not (0)',
      registers,
      async collect() {
        this.set((await poolState()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'priv_stark_pool_leaves',
      aggregator: 'max',
      help: 'Leaves in the pool tree',
      registers,
      async collect() {
        const state = await poolState();
        if (state) this.set(state.size);
      },
    });
    new Gauge({
      name: 'priv_stark_pool_checkpoint_leaves',
      aggregator: 'max',
      help: 'Leaves covered by the latest checkpoint',
      registers,
      async collect() {
        const state = await poolState();
        if (state) this.set(state.checkpoint?.size ?? 0);
      },
    });
    new Gauge({
      name: 'priv_stark_pool_checkpoint_age_seconds',
      aggregator: 'min',
      help: 'Age of the latest checkpoint',
      registers,
      async collect() {
        const state = await poolState();
        if (state?.checkpoint) this.set(Math.max(0, (clock() - state.checkpoint.time) / 1000));
      },
    });
    if (options.chain) registerChainGauges(this.registry, options.chain);
    const proofCount = options.pool.proofCount?.bind(options.pool);
    if (proofCount) {
      new Gauge({
        name: 'priv_stark_proof_store_proofs',
        aggregator: 'max',
        help: 'Handed-over proofs stored now (compact payments)',
        registers,
        async collect() {
          const count = await proofCount().catch(() => null);
          if (count !== null) this.set(count);
        },
      });
    }
  }
}

/**
 * Serves `GET /metrics` of a registry — or of the text a multi-process service aggregates from its
 * workers' registries — on its own listener.
 * @returns the listening server (close it on shutdown)
 */
export async function listenMetrics(
  registry: { metrics(): Promise<string>; readonly contentType: string },
  port: number,
  host: string,
): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?', 1)[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
