/**
 * @module Waiting for an exit's payout on the chain (`wallet exit --wait`): the escrow's
 * `Paid(withdrawalId, to, amount)` event, read from the wallet's own RPC — the pool operator's word
 * is not needed to see that the money arrived. The withdrawal id is the exit's receipt
 * (`Wallet.exit`'s `transaction`). A payout that fails instead comes back as the exit's refund
 * note in the pool's log ({@link exitRefund}), which ends a wait as well. Part of
 * `priv-stark/client/chain`.
 */

import { type Address, getAddress, type Hex, type PublicClient } from 'viem';

import type { DigestHex } from '../core/digest.js';
import { refundRhoOf } from '../core/transition.js';
import type { CoreHash } from '../core/witness.js';
import { ESCROW_ABI } from './chain-abi.js';
import { publicClientOf } from './chain-view.js';
import type { StoredNote } from './store.js';

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
  /**
   * Asked after each read that found no payout: `true` ends the wait with `null` (say, the exit's
   * refund note arrived: {@link exitRefund}), so a failed payout is not waited for until the time
   * runs out.
   */
  readonly stopWhen?: (() => Promise<boolean>) | undefined;
}

/**
 * The payout of `withdrawalId` once the escrow has made it, or `null` when the time runs out or
 * `stopWhen` answers `true`.
 */
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
    if (Date.now() >= deadline || (await watch.stopWhen?.())) return null;
    await new Promise((resolve) => setTimeout(resolve, watch.pollMs ?? 1000));
  }
}

/** What {@link exitRefund} reads of a wallet (a `Wallet`, synced). */
export interface RefundedWallet {
  readonly core: CoreHash;
  readonly spendingKey: DigestHex;
  allNotes(): StoredNote[];
}

/**
 * The refund note of the exit `withdrawalId` once the wallet's log shows it (its payout failed:
 * the exit's value is back in the wallet), else `null`. Sync the wallet first. The exit spent the
 * wallet's notes under that id, and its refund note's `rho` is `H_REFUND_RHO(sk, nf₁)` of the
 * first of them — found from the key alone, as the wallet finds the note itself.
 */
export function exitRefund(wallet: RefundedWallet, withdrawalId: string): StoredNote | null {
  const id = withdrawalId.toLowerCase();
  const notes = wallet.allNotes();
  const rhos = new Set(
    notes
      .filter((n) => n.spent?.settlementId.toLowerCase() === id)
      .map((n) => refundRhoOf(wallet.core, wallet.spendingKey, n.nullifier)),
  );
  return notes.find((n) => n.origin === 'refund' && rhos.has(n.rho)) ?? null;
}
