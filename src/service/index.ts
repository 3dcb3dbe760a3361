/**
 * @module The service composed once (`startService`): what `priv-stark start` and `priv-stark pool
 * serve` run, and what tests and benchmarks start.
 */

export type { ChainServiceConfig } from './chain-wiring.js';
export {
  type RunningService,
  SERVICE_DEFAULTS,
  type ServiceConfig,
  ServiceConfigError,
  startService,
} from './service.js';
