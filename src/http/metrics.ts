/**
 * @module Prometheus metrics (prom-client) of the facilitator, served on a separate, opt-in
 * listener (`METRICS_PORT`) — never on the facilitator's own listener, whose surface is exactly
 * the three routes. Requests by route, status and reason; verify and settle latency; the proof
 * backend; pool size and checkpoint age (read from the pool when scraped).
 */

import { createServer, type Server } from 'node:http';

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import type { StoreState } from '../ledger/index.js';

/** Where pool gauges come from. */
export interface PoolGaugeSource {
  state(): Promise<StoreState>;
}

/** The facilitator's metrics in their own registry. */
export class FacilitatorMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'status' | 'reason'>;
  readonly verifySeconds: Histogram;
  readonly settleSeconds: Histogram;
  readonly backend: Gauge<'backend'>;

  /**
   * @param options.backend the loaded proof backend
   * @param options.pool read on each scrape for the pool gauges
   * @param options.clock unix ms (checkpoint age)
   */
  constructor(options: {
    backend: string;
    pool: PoolGaugeSource;
    clock?: () => number;
    processMetrics?: boolean;
  }) {
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
      help: 'The loaded proof backend (1 for the one in use)',
      labelNames: ['backend'],
      registers,
    });
    this.backend.set({ backend: options.backend }, 1);
    let lastState: Promise<StoreState | null> | null = null;
    // One pool read per scrape, shared by both gauges.
    const poolState = () => {
      lastState ??= options.pool.state().catch(() => null);
      const read = lastState;
      setImmediate(() => {
        if (lastState === read) lastState = null;
      });
      return read;
    };
    new Gauge({
      name: 'priv_stark_pool_leaves',
      help: 'Leaves in the pool tree',
      registers,
      async collect() {
        const state = await poolState();
        if (state) this.set(state.size);
      },
    });
    new Gauge({
      name: 'priv_stark_pool_checkpoint_age_seconds',
      help: 'Age of the latest checkpoint',
      registers,
      async collect() {
        const state = await poolState();
        if (state?.checkpoint) this.set(Math.max(0, (clock() - state.checkpoint.time) / 1000));
      },
    });
  }
}

/**
 * Serves `GET /metrics` of a registry on its own listener.
 * @returns the listening server (close it on shutdown)
 */
export async function listenMetrics(
  registry: Registry,
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
