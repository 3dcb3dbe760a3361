/**
 * @module The devnet pool never runs on a store bound to a chain: that store's notes are backed by
 * escrowed funds, and minting into it with the operator's token would break the backing. Read
 * without loading any chain code.
 */

import { openDepositWatch, type StoreConfig } from '../ledger/index.js';
import { ServiceConfigError } from './config-error.js';

/**
 * Refuses to serve the devnet pool from a store bound to a chain.
 * @throws ServiceConfigError naming the bound escrow
 */
export async function refuseChainBoundStore(storeConfig: StoreConfig): Promise<void> {
  const watch = openDepositWatch(storeConfig);
  try {
    const [bound] = await watch.bindings();
    if (bound)
      throw new ServiceConfigError(
        `binding_mismatch: the store backs the pool of escrow ${bound.escrow} on chain ${bound.chainId}: start it with --chain-rpc and --escrow`,
      );
  } finally {
    await watch.close();
  }
}
