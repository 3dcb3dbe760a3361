/**
 * @module A chain pool's wallet routes, wired (docs/chain.md, "Using it"): the pool node serves its
 * chain facts (`GET /chain`) and, with a relayer key, relays wallets' signed deposits and reclaims
 * at the configured fee (`RELAYER_FEE`, atomic units, default 0). Loaded only for a chain pool, in
 * the pool node's instance, with the keys that instance has read.
 */

import { openDepositRelay, type RelayLog } from '../chain/deposit-relay.js';
import type { OperatorKeys } from '../chain/keys.js';
import type { DepositRelay } from '../pool-node/index.js';
import type { ChainServiceConfig, OpenedChain } from './chain-wiring.js';

/**
 * The pool node's chain facts and relayer.
 * @throws what reading the token and the escrow throws (the chain was checked a moment before)
 */
export function depositRelay(
  opened: OpenedChain,
  config: ChainServiceConfig,
  keys: OperatorKeys,
  log?: RelayLog,
): Promise<DepositRelay> {
  const { checked } = opened;
  return openDepositRelay({
    clients: opened.clients,
    backing: { chainId: checked.chainId, escrow: checked.escrow, token: checked.token },
    network: checked.profile.network,
    asset: checked.profile.asset,
    relayer: keys.account('relayer'),
    fee: config.relayerFee ?? 0n,
    log,
  });
}
