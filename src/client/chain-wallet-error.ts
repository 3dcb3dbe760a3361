/**
 * @module Why the wallet's chain module refused, as stable codes — every one raised before anything
 * is signed or sent, save the pool node's own refusals (a `PoolNodeError`).
 */

import { WalletError } from './errors.js';

/**
 * `not_chain_pool` the pool node names no escrow (the devnet: deposits are tickets);
 * `chain_mismatch` the RPC, the escrow, its token or the network id disagree with the pool's facts
 * or the wallet's network; `token_domain_mismatch` the token's `DOMAIN_SEPARATOR()` is not the
 * EIP-712 domain the wallet computes; `no_relayer` the pool runs no relayer; `fee_above_max` the
 * relayer's fee is above the most the caller accepts; `below_minimum` the amount is below the
 * escrow's minimum deposit; `insufficient_token_balance` the account holds too little of the token;
 * `account_cannot_sign` the account signs no typed data or transactions here (a JSON-RPC account);
 * `deposit_exists` the ticket was deposited already; `unknown_deposit`, `not_depositor`,
 * `not_reclaimable`, `reclaim_too_early` a reclaim the escrow would refuse; `no_gas` a direct
 * transaction with no ETH to pay for it.
 */
export type ChainWalletCode =
  | 'not_chain_pool'
  | 'chain_mismatch'
  | 'token_domain_mismatch'
  | 'no_relayer'
  | 'fee_above_max'
  | 'below_minimum'
  | 'insufficient_token_balance'
  | 'account_cannot_sign'
  | 'deposit_exists'
  | 'unknown_deposit'
  | 'not_depositor'
  | 'not_reclaimable'
  | 'reclaim_too_early'
  | 'no_gas';

/** A refusal of the wallet's chain module, with its stable {@link ChainWalletCode}. */
export class ChainWalletError extends WalletError {
  declare readonly code: ChainWalletCode;

  constructor(code: ChainWalletCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ChainWalletError';
  }
}
