/**
 * @module `priv-stark/client`: the wallet and the `priv-stark/v1` scheme client for x402. It runs
 * in Node and in browsers: nothing it loads up front needs Node. A wallet file (`path`,
 * `FileWalletStore`) loads Node's file API on demand; in a browser, keep the wallet in
 * `IndexedDbWalletStore` and load the core with `loadWasmCore`. Bundlers: split dynamic imports
 * into chunks and leave `node:*` external (esbuild `--splitting --external:node:*`; Vite and Rollup
 * split by default) — Node is only reached through dynamic imports a page never loads.
 */

export {
  InsufficientFundsError,
  NoteTooYoungError,
  PaymentHeaderTooLargeError,
  PoolMismatchError,
  TooManyOpenTicketsError,
  UnpayableRequirementsError,
  WalletBehindError,
  WalletError,
} from './errors.js';
export {
  compactFallback,
  guardHeaderSize,
  PAYMENT_RESPONSE_HEADER,
  PrivStarkHttpClient,
  PAYMENT_SIGNATURE_HEADER,
  payingFetch,
  type PayingFetchOptions,
  settlementOf,
} from './fetch.js';
export {
  type Checkpoint,
  PoolNodeClient,
  type PoolNodeClientOptions,
  PoolNodeError,
  type PoolEvent,
  type PoolNodeState,
  type TransferReceipt,
} from '../pool-node/client.js';
export {
  type PrivStarkAsset,
  PrivStarkSchemeClient,
  registerPrivStark,
  type SchemeClientRegistry,
} from './scheme.js';
export { MIN_OUTPUT_VALUE } from '../core/transition.js';
export { FileWalletStore } from './file-store.js';
export { IndexedDbWalletStore } from './indexeddb-store.js';
export {
  type ChainDepositRecord,
  MemoryWalletStore,
  type StoredNote,
  type StoredPending,
  type StoredWallet,
  type WalletState,
  type WalletStore,
} from './store.js';
export type { NoteAgeOptions } from './note-age.js';
export {
  EpochFollower,
  type EpochFollowerOptions,
  type FollowTime,
  followEpochs,
  nextFollowTime,
} from './epoch-follower.js';
export { TRACE_HEADERS, withoutTraceHeaders } from './trace-headers.js';
export {
  type KeeperTimers,
  type PlannedSplit,
  planSplits,
  READY_NOTES_MAX,
  ReadyNotesKeeper,
  type ReadyNotesOptions,
  type ReadyNotesTarget,
  type WalletView,
} from './ready-notes.js';
export { LocalTree } from './tree.js';
export { loadWasmCore, type WasmCoreSource } from './wasm-core.js';
export { VerificationTimeoutError } from '../core/errors.js';
export { DEPOSIT_GAP, type DepositTicket, type OpenTicket } from './deposit-tickets.js';
export { Wallet } from './wallet.js';
export {
  NoPrivateTransportError,
  type PoolWrite,
  PoolTransport,
  type PoolTransportOptions,
  type TransportMode,
  type TransportWarning,
} from './pool-transport.js';
export {
  type DepositHistory,
  type ExitWarning,
  type ExitWarningCode,
  exitWarnings,
} from './exit-warnings.js';
export {
  IDLE_RELEASE_GRACE_MS,
  POOL_CLOCK_MARGIN_MS,
  type SyncReport,
} from './wallet-sync.js';
export type { Balance } from './wallet-notes.js';
export type { CreateWalletOptions, WalletOptions } from './wallet-options.js';
export { MIN_POOL_EPOCH_MS } from './epoch-minimum.js';
export { type HeldCheckpoint, PoolEpochError } from './wallet-anchor.js';
