/**
 * @module The facilitator: ordered checks, verify and settle over the core and the pool. No HTTP
 * framework inside; `src/http` serves it.
 */

export {
  type CheckedPayment,
  type CheckEnvironment,
  type CheckFailure,
  checkRequest,
} from './checks.js';
export { Facilitator, type FacilitatorOptions } from './facilitator.js';
export { InFlightVerifier } from './inflight.js';
export {
  type SpendVerifier,
  VerdictCache,
  type VerdictCacheOptions,
  verdictKey,
} from './verdict-cache.js';
export type {
  CallerPolicy,
  FacilitatorCore,
  FacilitatorLedger,
  SettleOutcome,
  VerifyOutcome,
} from './types.js';
