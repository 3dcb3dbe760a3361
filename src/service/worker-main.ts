/**
 * @module A worker process of `priv-stark start --workers N` (`workers.ts` forks it): the whole
 * service — facilitator and pool node listeners on the ports every worker shares, verification
 * threads of its own — with what must run once taken from the primary: its SQLite writer, its
 * rate-limit counters and address salt, its metrics listener. It stops gracefully when the
 * primary asks, on SIGTERM or SIGINT, and when the primary dies (a supervisor then restarts the
 * service).
 */

import cluster from 'node:cluster';

import { AggregatorRegistry, type Registry } from 'prom-client';

import type { WindowCount } from '../listener/shared-rate-limit.js';
import type { WorkersHealth } from '../http/index.js';
import { IpcCaller } from './ipc-calls.js';
import { ServiceConfigError } from './config-error.js';
import { type RunningService, startService, type WorkerParts } from './service.js';
import { type WorkerMessage, workerMessage } from './worker-messages.js';

if (!cluster.isWorker || !process.send) throw new Error('worker-main runs as a cluster worker');

const caller = new IpcCaller(process);
// A closed channel (the primary died) is the `disconnect` handler's: no `error` event here.
const send = (message: WorkerMessage) => process.send?.(message, undefined, {}, () => undefined);
let running: RunningService | null = null;
let stopping: Promise<never> | null = null;

function partsFromPrimary(clientSalt: Uint8Array, reusePort: boolean): WorkerParts {
  return {
    reusePort,
    sqliteWriter: {
      call: (method, args) => caller.call(`store.${method}`, args),
      close: async () => undefined,
    },
    countRequest: (namespace, key, timeWindowMs) =>
      caller.call<WindowCount>('rate.count', [namespace, key, timeWindowMs]),
    clientSalt,
    workers: () => caller.call<WorkersHealth>('workers.health', []),
    exposeMetrics: (registry: Registry) => {
      // Constructing one adds prom-client's answer to the primary's requests for metrics.
      new AggregatorRegistry();
      AggregatorRegistry.setRegistries([registry]);
    },
  };
}

async function start(config: WorkerMessage & { kind: 'start' }): Promise<void> {
  try {
    running = await startService(
      config.config,
      undefined,
      partsFromPrimary(config.clientSalt, config.reusePort),
    );
    send({
      tag: 'priv-stark:worker',
      kind: 'ready',
      facilitatorUrl: running.facilitatorUrl,
      poolNodeUrl: running.poolNodeUrl,
    });
  } catch (error) {
    send({
      tag: 'priv-stark:worker',
      kind: 'failed',
      message: error instanceof Error ? error.message : String(error),
      configError: error instanceof ServiceConfigError,
    });
    process.exitCode = 1;
    process.disconnect();
  }
}

/** Finishes the requests in flight, closes, and exits with `code`. */
function stop(code: number): Promise<never> {
  stopping ??= (running?.close() ?? Promise.resolve()).then(
    () => process.exit(code),
    () => process.exit(1),
  );
  return stopping;
}

process.on('message', (message: unknown) => {
  const known = workerMessage(message);
  if (known?.kind === 'start' && !running) void start(known);
  else if (known?.kind === 'stop') void stop(0);
});
// The primary is gone: nothing can be written any more; stop for the supervisor to restart.
process.on('disconnect', () => void stop(1));
process.on('SIGTERM', () => void stop(0));
// A terminal's Ctrl-C reaches every process of the group: the primary stops the workers in order.
process.on('SIGINT', () => undefined);
