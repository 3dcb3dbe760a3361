/**
 * @module Whether the token would move `amount` from `from` to `to` at a block: an `eth_call` of
 * `transfer` as `from` (nothing is signed or sent). The two-key payout rail asks it to tell a
 * destination the token refuses (a blacklisted address) from a rail that pays nobody.
 */

import { type Address, encodeFunctionData, erc20Abi, type PublicClient } from 'viem';

import { revertName } from './payout-chain.js';

/**
 * True when the transfer passes, false when it reverts.
 * @throws when the RPC fails
 */
export async function tokenTransferPasses(request: {
  readonly client: PublicClient;
  readonly token: Address;
  readonly from: Address;
  readonly to: Address;
  readonly amount: bigint;
  readonly blockNumber: bigint;
}): Promise<boolean> {
  const { client, token, from, to, amount, blockNumber } = request;
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  try {
    await client.call({ account: from, to: token, data, blockNumber });
    return true;
  } catch (error) {
    if (revertName(error) === null) throw error;
    return false;
  }
}
