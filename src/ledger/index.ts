/**
 * @module The privacy pool's ledger: its rules (settlements, deposits, hand-overs, transfers, note
 * transitions, payouts), one store interface with an embedded SQLite and a PostgreSQL
 * implementation, and their migrations. No HTTP here: the pool node (`src/pool-node`) serves the
 * ledger.
 */

export {
  type CommitStatsSnapshot,
  type CommitTiming,
  type CommitTimingTotals,
  GROUP_SIZE_BUCKETS,
} from './commit-stats.js';
export { type CommitResult, GroupCommitter } from './committer.js';
export type { LedgerCore } from './context.js';
export type { DepositAccepted, DepositInput, DepositResult } from './deposit.js';
export {
  type CommitmentLeaf,
  type DepositWatchStore,
  WATCHED_STATES,
  type WatchBinding,
  type WatchCursor,
  type WatchDecision,
  type WatchedDeposit,
  type WatchedState,
  type WatchEvent,
  watchSource,
} from './deposit-watch.js';
export {
  LEDGER_REASONS,
  type LedgerReason,
  type LedgerRejection,
  PoolUnavailableError,
  reject,
} from './errors.js';
export type { HandOverAccepted, HandOverInput, HandOverResult } from './hand-over.js';
export { MIGRATIONS, SCHEMA_VERSION, SchemaTooNewError } from './migrations.js';
export { noteCommitment, precommitment, recipientNote, settlementId } from './notes.js';
export { openStore, type StoreConfig, storeConfigFromEnv } from './open.js';
export { openDepositWatch } from './open-deposit-watch.js';
export { Ledger } from './ledger.js';
export type { LedgerHealth, LedgerOptions } from './ledger-options.js';
export { openPostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export type { CheckpointCoverage, LogDigestRecord } from './log-digests.js';
export { ARCHIVE_PAGE_SIZE, DEFAULT_PROOF_RETENTION_MS } from './proof-archive.js';
export type { SettlementAccepted, SettlementInput, SettleResult } from './settle.js';
export {
  openSqliteStore,
  SQLITE_PAGE_BYTES,
  type SqliteStoreOptions,
  sqlitePath,
} from './sqlite-store.js';
export { proofSha256 } from './sqlite-proof-archive.js';
export type { SqliteWriteChannel } from './sqlite-writer-messages.js';
export type { TransferInput } from './transfer.js';
export { tracedStore } from './traced-store.js';
export type {
  ArchivedProof,
  ArchivedProofHash,
  ArchivePrune,
  ArchiveState,
  Checkpoint,
  DepositApplied,
  DepositOp,
  HandedOverProof,
  HandOverApplied,
  HandOverOp,
  PoolEvent,
  PoolStore,
  SettlementApplied,
  SettlementOp,
  SettledProof,
  SpentNullifier,
  StoreKind,
  StoreOp,
  StoreOpResult,
  StoreRefusal,
  StoreState,
  TransitionOp,
  TreeHasher,
} from './store.js';
