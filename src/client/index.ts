/**
 * @module `priv-stark/client`: the wallet and the `priv-stark/v1` scheme client for x402.
 */

export {
  InsufficientFundsError,
  PaymentHeaderTooLargeError,
  PoolMismatchError,
  UnpayableRequirementsError,
  WalletBehindError,
  WalletError,
} from './errors.js';
export { guardHeaderSize, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER, payingFetch, type PayingFetchOptions, settlementOf } from './fetch.js';
export { type NodeCheckpoint, type NodeEvent, type NodeState, PoolNodeReader, PoolNodeReadError } from './node.js';
export { type PrivStarkAsset, PrivStarkSchemeClient, registerPrivStark } from './scheme.js';
export type { StoredNote, StoredPending, WalletState } from './store.js';
export { DEPTH, LocalTree } from './tree.js';
export {
  type Balance,
  DEPOSIT_GAP,
  type DepositTicket,
  IDLE_RELEASE_GRACE_MS,
  POOL_CLOCK_MARGIN_MS,
  type SyncReport,
  Wallet,
  type WalletOptions,
} from './wallet.js';
