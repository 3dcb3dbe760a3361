/**
 * @module The devnet pool node: the HTTP server that serves the ledger to wallets (checkpoints,
 * leaves, events) and to the operator (deposits), its request schemas, the operator's token, and
 * the one client of its API.
 */

export {
  PoolNodeClient,
  type PoolNodeClientOptions,
  PoolNodeError,
  type PoolNodeState,
} from './client.js';
export {
  findOperatorToken,
  MIN_TOKEN_LENGTH,
  type OperatorToken,
  operatorTokenPath,
  resolveOperatorToken,
} from './operator-token.js';
export { PAGE_LIMITS } from './schemas.js';
export { buildPoolNode, parseCorsOrigins, type PoolNodeOptions } from './server.js';
