/**
 * @module The facilitator's HTTP layer (Fastify): `build(opts)`, auth, configuration, health,
 * metrics, the error registry and the x402 replies.
 */

export { build, type BuildOptions } from './app.js';
export {
  ANONYMOUS,
  type ApiKeyEntry,
  ApiKeys,
  type AuthMode,
  bearerToken,
  type Caller,
  hashKey,
  isLoopbackHost,
  type KeyPolicy,
  type RateLimitPolicy,
} from './auth.js';
export {
  type AccessConfig,
  ConfigError,
  keysFromList,
  loadAccessConfig,
  parseConfig,
} from './config.js';
export { ReasonError, reasonOf } from './errors.js';
export type { ChainHealth } from './chain-health.js';
export { type HealthSource, registerHealth, type WorkersHealth } from './health.js';
export { type LogSettings, loggerOptions, REDACTED_PATHS } from './logging.js';
export { registerCommitStoreCounters } from './commit-metrics.js';
export { FacilitatorMetrics, listenMetrics, type PoolGaugeSource } from './metrics.js';
export { postgresRateLimitStore, RATE_LIMIT_TABLE, registerRateLimit } from './rate-limit.js';
export {
  failureReply,
  type Reply,
  type ReplyKind,
  replyKindOf,
  settleReply,
  verifyReply,
} from './replies.js';
