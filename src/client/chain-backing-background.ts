/**
 * @module `checkBackingInBackground` (`priv-stark/client/chain`): a wallet's `verifyBacking` on its
 * background schedule (`backing-schedule.ts`) — at the epoch follower's slots, on average every
 * `everyMs`, never next to a write — against the user's own RPC, through the wallet's proxy.
 * Here rather than in the wallet, so that a wallet that only pays never loads viem.
 */

import {
  type BackingCheckOptions,
  type BackingSchedule,
  checkBackingOptions,
  runBackingSchedule,
  type ScheduledWallet,
} from './backing-schedule.js';
import { type BackedWallet, verifyBacking } from './chain-backing.js';

/**
 * Starts `wallet`'s background backing check (one per wallet; `wallet.stop()` ends it), and
 * returns its schedule; each outcome goes to `options.onResult` and `wallet.backingCheck`.
 * @example
 * checkBackingInBackground(wallet, {
 *   rpc: 'https://my-own-node.example/rpc',
 *   onResult: (r) => r.ok || alert(r.kind === 'report' ? r.report.problems : r.code),
 * });
 * @throws WalletError `backing_check_no_escrow`, `backing_check_rpc_invalid`,
 *   `backing_check_interval`
 */
export function checkBackingInBackground(
  wallet: ScheduledWallet & BackedWallet,
  options: BackingCheckOptions,
): BackingSchedule {
  checkBackingOptions(options, wallet.network.chain?.escrow);
  return runBackingSchedule(
    wallet,
    (beforeRead) => verifyBacking(wallet, { rpc: options.rpc, beforeRead }),
    options,
  );
}
