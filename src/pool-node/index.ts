/**
 * @module The devnet pool node: the HTTP server that serves the ledger to wallets (checkpoints,
 * leaves, events, proof hand-overs) and to the operator (deposits), its request schemas, the
 * operator's token, and the one client of its API.
 */

export {
  type HandOverFrameRequest,
  type HandOverRequest,
  PoolNodeClient,
  type PoolNodeClientOptions,
  PoolNodeError,
  type PoolNodeState,
  type TransferReceipt,
  type TransferRequest,
  type TransitionReceipt,
  type TransitionRequest,
} from './client.js';
export type { HandOverReply } from './handover-schema.js';
export {
  PoolNodeOperatorClient,
  type PoolNodeOperatorClientOptions,
} from './operator-client.js';
export type {
  DepositReceipt,
  DepositRequest,
  PayoutParams,
  PayoutReply,
  WithdrawalsPage,
} from './operator-schemas.js';
export type { CheckpointsPage, EventsPage, LeavesPage } from './read-schemas.js';
export type { ArchivePage, ArchiveStateReply } from './archive-schema.js';
export type { AttestReport, AttestResult, Attester } from './attest-route.js';
export { PoolNodeWalletClient } from './wallet-client.js';
export { PoolNodeChainClient } from './chain-client.js';
export type {
  ChainFactsReply,
  RelayDepositRequest,
  RelayReceipt,
  RelayReclaimRequest,
} from './chain-schemas.js';
export type {
  ChainFacts,
  DepositAuthorization,
  DepositRelay,
  ReclaimAuthorization,
  RelayReason,
  RelayResult,
  TokenDomain,
} from './deposit-relay.js';
export type { PoolNodeConnectionOptions } from './node-request.js';
export {
  findOperatorToken,
  MIN_TOKEN_LENGTH,
  type OperatorToken,
  operatorTokenPath,
  resolveOperatorToken,
} from './operator-token.js';
export { PAGE_LIMITS } from './schema-parts.js';
export { PAGE_SIZES } from './public-pages.js';
export { parseCorsOrigins } from './cors.js';
export type { HandOverLimits, SharedLimits } from './wallet-writes.js';
export type { RelayKeys } from './relayed-handovers.js';
export { buildPoolNode, errorCodeOf, type PoolNodeOptions } from './server.js';
export { LOG_DIGEST_INTERVAL_MS, nodeProofHash } from './log-digest-timer.js';
