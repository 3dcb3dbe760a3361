/**
 * @module The privacy pool ledger: one store interface with an embedded SQLite and a PostgreSQL
 * implementation, the pool's transition and deposit rules, and the devnet pool node.
 */

export { PoolNodeClient, PoolNodeError, type PoolNodeState } from './client.js';
export { type CommitResult, GroupCommitter } from './committer.js';
export { POOL_REASONS, type PoolReason, type PoolRejection, PoolUnavailableError, reject } from './errors.js';
export { MIGRATIONS, SCHEMA_VERSION, SchemaTooNewError } from './migrations.js';
export {
  MAX_AMOUNT_EXCLUSIVE,
  noteCommitment,
  parseAmount,
  precommitment,
  recipientNote,
  settlementId,
} from './notes.js';
export { openStore, type StoreConfig, storeConfigFromEnv } from './open.js';
export {
  DEVNET,
  type DepositAccepted,
  type DepositInput,
  type DepositResult,
  MAX_PROOF_BYTES,
  Pool,
  type PoolCore,
  type PoolHealth,
  type PoolOptions,
  type SettlementAccepted,
  type SettleResult,
  type TransitionInput,
} from './pool.js';
export { buildPoolNode, MIN_TOKEN_LENGTH, parseCorsOrigins, type PoolNodeOptions } from './node.js';
export { PAGE_LIMITS } from './node-schemas.js';
export { openPostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export { openSqliteStore, type SqliteStoreOptions, sqlitePath } from './sqlite-store.js';
export type {
  Checkpoint,
  DepositApplied,
  DepositOp,
  PoolEvent,
  PoolStore,
  SettlementApplied,
  SettlementOp,
  SpentNullifier,
  StoreKind,
  StoreOp,
  StoreOpResult,
  StoreRefusal,
  StoreState,
  TreeHasher,
} from './store.js';
export { findOperatorToken, type OperatorToken, operatorTokenPath, resolveOperatorToken } from './token.js';
