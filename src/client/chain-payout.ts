/**
 * @module Waiting for an exit's payout on the chain (`wallet exit --wait`): the escrow's
 * `Paid(withdrawalId, to, amount)` event, read from the wallet's own RPC — the pool operator's word
 * is not needed to see that the money arrived. The withdrawal id is the exit's receipt
 * (`Wallet.exit`'s `transaction`). Part of `priv-stark/client/chain`.
 */

import { type Address, getAddress, type Hex, type PublicClient } from 'viem';

import { ESCROW_ABI } from './chain-abi.js';
import { publicClientOf } from './chain-view.js';

/** A payout seen on chain. */
export interface PayoutSeen {
  /** The payout's transaction hash. */
  readonly transaction: Hex;
  readonly to: Address;
  /** Atomic units paid. */
  readonly amount: bigint;
  readonly blockNumber: bigint;
}

/** What {@link waitForPayout} watches. */
export interface PayoutWatch {
  /** The wallet's own RPC. */
  readonly rpc: string | PublicClient;
  readonly escrow: string;
  /** The exit's withdrawal id, `0x` + 64 hex. */
  readonly withdrawalId: string;
  /** The first block to read (the head before the exit was made). */
  readonly fromBlock: bigint;
  /** Gives up after this many ms (default 600 000); `null` is then returned. */
  readonly timeoutMs?: number | undefined;
  /** Between reads, ms (default 1000). */
  readonly pollMs?: number | undefined;
  /** Blocks per `eth_getLogs` (default 2000: within what public RPCs allow). */
  readonly pageBlocks?: number | undefined;
}

/** The payout of `withdrawalId` once the escrow has made it, or `null` when the time runs out. */
export async function waitForPayout(watch: PayoutWatch): Promise<PayoutSeen | null> {
  const client = publicClientOf(watch.rpc);
  const escrow = getAddress(watch.escrow);
  const deadline = Date.now() + (watch.timeoutMs ?? 600_000);
  const page = BigInt(watch.pageBlocks ?? 2000);
  let from = watch.fromBlock;
  for (;;) {
    const head = await client.getBlockNumber();
    while (from <= head) {
      const to = from + page - 1n < head ? from + page - 1n : head;
      const [log] = await client.getContractEvents({
        address: escrow,
        abi: ESCROW_ABI,
        eventName: 'Paid',
        args: { withdrawalId: watch.withdrawalId as Hex },
        fromBlock: from,
        toBlock: to,
      });
      if (log)
        return {
          transaction: log.transactionHash,
          to: log.args.to as Address,
          amount: log.args.amount as bigint,
          blockNumber: log.blockNumber,
        };
      from = to + 1n;
    }
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, watch.pollMs ?? 1000));
  }
}
