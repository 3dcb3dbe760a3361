/**
 * @module The service composed once (`startService`): what `priv-stark start` and `priv-stark pool
 * serve` run, and what tests and benchmarks start; on several processes of one machine
 * (`startWorkers`, `priv-stark start --workers N`).
 */

export type { ChainServiceConfig } from './chain-wiring.js';
export {
  type RunningService,
  SERVICE_DEFAULTS,
  type ServiceConfig,
  ServiceConfigError,
  startService,
  type WorkerParts,
} from './service.js';
export {
  defaultWorkerCount,
  MAX_WORKERS,
  type RunningWorkers,
  startWorkers,
} from './workers.js';
