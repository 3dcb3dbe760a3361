/**
 * @module `priv-stark/client/chain`: a wallet's side of a pool backed by an escrow on an EVM chain —
 * deposits by signature through the pool's relayer or directly, reclaims, waiting for an exit's
 * payout, and checking the wallet's notes against the escrow's latest attestation — with any viem `Account` (a `LocalAccount`, or a custom signer made with
 * `toAccount`). A separate entry, so that a wallet that only pays (`priv-stark/client`) never loads
 * viem.
 */

export {
  BACKING_QUIET_EPOCHS,
  BACKING_QUIET_MIN_MS,
  type BackingCheckFailure,
  type BackingCheckOptions,
  type BackingCheckResult,
  BackingSchedule,
  DEFAULT_BACKING_CHECK_EVERY_MS,
} from './backing-schedule.js';
export { ESCROW_ABI, TOKEN_ABI } from './chain-abi.js';
export { checkBackingInBackground } from './chain-backing-background.js';
export {
  type BackedWallet,
  type BackingAccess,
  type BackingProblem,
  type BackingReport,
  CANNOT_SHOW,
  verifyBacking,
} from './chain-backing.js';
export {
  type ChainDepositOptions,
  type ChainDepositReceipt,
  depositBySignature,
  depositDirect,
  depositNonce,
  type DepositingWallet,
  type SignedDepositOptions,
} from './chain-deposit.js';
export {
  exitRefund,
  type PayoutSeen,
  type PayoutWatch,
  type RefundedWallet,
  waitForPayout,
} from './chain-payout.js';
export { type ReclaimOptions, type ReclaimReceipt, reclaimDeposit } from './chain-reclaim.js';
export {
  type ChainAccess,
  type ChainWallet,
  type CheckedChain,
  checkedChain,
  publicClientOf,
} from './chain-view.js';
export { type ChainWalletCode, ChainWalletError } from './chain-wallet-error.js';
