/**
 * @module The newest final block, as {@link Finality} decides it: `head − N + 1` for N
 * confirmations, or the block the node tags `safe` or `finalized`.
 */

import type { PublicClient } from 'viem';

import { ChainError, chainErrorOf } from './chain-errors.js';
import type { Finality } from './finality.js';

/**
 * The newest final block when the chain's head is `head`: `head − N + 1`, or the number of the
 * block the node tags.
 * @throws ChainError when the node cannot say (a tag it does not know, or no answer)
 */
export async function finalBlock(
  client: PublicClient,
  finality: Finality,
  head: number,
): Promise<number> {
  if (!('tag' in finality)) return head - finality.confirmations + 1;
  try {
    const block = await client.getBlock({ blockTag: finality.tag });
    return Number(block.number);
  } catch (error) {
    const failure = chainErrorOf(error, `the ${finality.tag} block`);
    throw failure.code === 'rpc_error'
      ? new ChainError('rpc_error', `the RPC does not tag ${finality.tag} blocks`, {
          cause: error,
        })
      : failure;
  }
}
