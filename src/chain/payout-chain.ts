/**
 * @module What the payout rail reads from and sends to the chain, over one viem public client:
 * the view a pass works from (the latest and the final block, the sending key's nonces and gas
 * balance, the base fee and tip), a transaction's receipt with whether it paid the withdrawal, the
 * escrow's `isPaid` at a block and the `Paid` event's transaction, a payout simulated at a block
 * (its gas, or why it reverts), and a raw transaction broadcast with the node's answer sorted.
 * A revert is data here; anything else the RPC does (down, timing out) throws.
 */

import {
  type Address,
  BaseError,
  decodeErrorResult,
  encodeFunctionData,
  type Hex,
  parseEventLogs,
  type PublicClient,
  RpcRequestError,
  TransactionReceiptNotFoundError,
} from 'viem';

import { privStarkEscrowAbi } from './contract-artifacts.js';
import { finalBlock } from './final-block.js';
import type { Finality } from './finality.js';

/** A block as a pass sees it. */
export interface BlockView {
  readonly number: bigint;
  /** Unix seconds. */
  readonly timestamp: bigint;
}

/** What one pass reads once. */
export interface ChainView {
  readonly latest: BlockView;
  /** The newest final block (`latest − confirmations + 1`, or the one the node tags). */
  readonly final: BlockView;
  /** The sending key's transaction count at the final and latest block, and with the pool's. */
  readonly nonces: { readonly final: number; readonly latest: number; readonly pending: number };
  readonly baseFee: bigint;
  /** The tip the node suggests (`eth_maxPriorityFeePerGas`). */
  readonly tip: bigint;
  /** The sending key's balance, wei. */
  readonly gasBalance: bigint;
}

/** Reads the view of one pass for the sending key `address`, final as `finality` says. */
export async function readChainView(
  client: PublicClient,
  address: Address,
  finality: Finality,
): Promise<ChainView> {
  const latest = await client.getBlock({ blockTag: 'latest' });
  const finalNumber = BigInt(
    Math.max(0, await finalBlock(client, finality, Number(latest.number))),
  );
  const [final, finalCount, latestCount, pendingCount, tip, gasBalance] = await Promise.all([
    client.getBlock({ blockNumber: finalNumber }),
    client.getTransactionCount({ address, blockNumber: finalNumber }),
    client.getTransactionCount({ address, blockNumber: latest.number }),
    client.getTransactionCount({ address, blockTag: 'pending' }),
    client.estimateMaxPriorityFeePerGas(),
    client.getBalance({ address, blockNumber: latest.number }),
  ]);
  return {
    latest: { number: latest.number, timestamp: latest.timestamp },
    final: { number: final.number, timestamp: final.timestamp },
    nonces: { final: finalCount, latest: latestCount, pending: pendingCount },
    baseFee: latest.baseFeePerGas ?? 0n,
    tip,
    gasBalance,
  };
}

/** A mined transaction: where, and whether it paid the withdrawal it was signed for. */
export interface Mined {
  readonly blockNumber: bigint;
  /** It succeeded and its logs hold the escrow's `Paid` for the withdrawal. */
  readonly paid: boolean;
}

/** The receipt of `hash`, or `null` while it is not mined (or the node does not know it). */
export async function minedOf(
  client: PublicClient,
  hash: Hex,
  escrow: Address,
  withdrawalId: Hex,
): Promise<Mined | null> {
  let receipt: Awaited<ReturnType<PublicClient['getTransactionReceipt']>>;
  try {
    receipt = await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (
      error instanceof BaseError &&
      error.walk((e) => e instanceof TransactionReceiptNotFoundError)
    )
      return null;
    throw error;
  }
  const paid =
    receipt.status === 'success' &&
    parseEventLogs({ abi: privStarkEscrowAbi, logs: receipt.logs, eventName: 'Paid' }).some(
      (log) =>
        log.address.toLowerCase() === escrow.toLowerCase() &&
        log.args.withdrawalId.toLowerCase() === withdrawalId.toLowerCase(),
    );
  return { blockNumber: receipt.blockNumber, paid };
}

/** The escrow's `isPaid(withdrawalId)` as of `blockNumber`. */
export function isPaidAt(
  client: PublicClient,
  escrow: Address,
  withdrawalId: Hex,
  blockNumber: bigint,
): Promise<boolean> {
  return client.readContract({
    address: escrow,
    abi: privStarkEscrowAbi,
    functionName: 'isPaid',
    args: [withdrawalId],
    blockNumber,
  });
}

/**
 * The transaction whose `Paid` event paid `withdrawalId`, between `fromBlock` (the escrow's
 * deployment) and `toBlock`; `null` if none is found or the node refuses the range (the payment
 * stands on `isPaid` alone: the hash is for the record).
 */
export async function paidReference(
  client: PublicClient,
  escrow: Address,
  withdrawalId: Hex,
  fromBlock: bigint,
  toBlock: bigint,
): Promise<Hex | null> {
  try {
    const logs = await client.getContractEvents({
      address: escrow,
      abi: privStarkEscrowAbi,
      eventName: 'Paid',
      args: { withdrawalId },
      fromBlock,
      toBlock,
    });
    return logs[0]?.transactionHash ?? null;
  } catch {
    return null;
  }
}

/**
 * A payout call sent by `from`: `payout(withdrawalId, to, amount, deadline)`, or with `proof` (two-key
 * payouts) `payoutWithProof(withdrawalId, to, amount, deadline, proof)`.
 */
export interface PayoutCall {
  readonly escrow: Address;
  readonly from: Address;
  readonly withdrawalId: Hex;
  readonly to: Address;
  readonly amount: bigint;
  /** Unix seconds. */
  readonly deadline: bigint;
  /** The inclusion proof under the latest attestation's unpaid root (two-key payouts only). */
  readonly proof?: readonly Hex[] | undefined;
}

/** The calldata of a payout call. */
export function payoutData(call: PayoutCall): Hex {
  const head = [call.withdrawalId, call.to, call.amount, call.deadline] as const;
  if (call.proof === undefined)
    return encodeFunctionData({ abi: privStarkEscrowAbi, functionName: 'payout', args: head });
  return encodeFunctionData({
    abi: privStarkEscrowAbi,
    functionName: 'payoutWithProof',
    args: [...head, call.proof],
  });
}

/** What a simulated payout did: its gas, or the revert's name (an escrow error or the reason string). */
export type Simulation =
  | { readonly ok: true; readonly gas: bigint }
  | { readonly ok: false; readonly revert: string };

/**
 * Simulates `call` at `blockNumber` (the latest block without one, where the gas is estimated).
 * @throws when the RPC fails (a revert is an answer, not an error)
 */
export async function simulatePayout(
  client: PublicClient,
  call: PayoutCall,
  blockNumber?: bigint,
): Promise<Simulation> {
  const request = { account: call.from, to: call.escrow, data: payoutData(call) };
  try {
    if (blockNumber === undefined) return { ok: true, gas: await client.estimateGas(request) };
    await client.call({ ...request, blockNumber });
    return { ok: true, gas: 0n };
  } catch (error) {
    const revert = revertName(error);
    if (revert === null) throw error;
    return { ok: false, revert };
  }
}

/** The name of the revert `error` reports (decoded where the escrow's ABI knows it), or `null`. */
export function revertName(error: unknown): string | null {
  if (!(error instanceof BaseError)) return null;
  const withData = error.walk(
    (e) =>
      typeof (e as { data?: unknown }).data === 'string' &&
      (e as { data: string }).data.length >= 10,
  ) as { data?: Hex } | null;
  if (withData?.data) {
    try {
      // viem decodes Solidity's Error(string) and Panic(uint256) beside the ABI's errors.
      const decoded = decodeErrorResult({ abi: privStarkEscrowAbi, data: withData.data }) as {
        errorName: string;
        args?: readonly unknown[];
      };
      if (decoded.errorName === 'Error') return `Error(${String(decoded.args?.[0] ?? '')})`;
      return decoded.errorName;
    } catch {
      return `revert ${withData.data.slice(0, 10)}`;
    }
  }
  const reverted = error.walk((e) => /revert/i.test((e as Error).message ?? ''));
  return reverted ? 'revert' : null;
}

/** How the node took a broadcast. */
export type Broadcast =
  /** Accepted now. */
  | 'sent'
  /** The node has it already. */
  | 'known'
  /** Its nonce is used: one of its siblings (or another transaction of the key) was mined. */
  | 'nonce_used'
  /** Refused for its fees (under the base fee, or not enough above a pending sibling). */
  | 'underpriced'
  /** Refused for another reason the node gave (the account cannot pay the gas, …). */
  | 'refused';

/**
 * Broadcasts `raw`; the node's refusals are sorted, not thrown.
 * @throws when the RPC cannot be reached
 */
export async function broadcast(client: PublicClient, raw: Hex): Promise<Broadcast> {
  try {
    await client.sendRawTransaction({ serializedTransaction: raw });
    return 'sent';
  } catch (error) {
    if (!(error instanceof BaseError)) throw error;
    const text = `${error.details ?? ''} ${error.shortMessage} ${error.message}`.toLowerCase();
    if (/already (known|imported)|known transaction/.test(text)) return 'known';
    if (/nonce too low|nonce.*(used|already)/.test(text)) return 'nonce_used';
    if (/underpriced|less than (block )?base fee|fee too low|max fee per gas less/.test(text))
      return 'underpriced';
    // Any other answer of the node itself (a JSON-RPC error) is a refusal of this transaction; only
    // a node that did not answer (down, timing out) is an error.
    if (error.walk((e) => e instanceof RpcRequestError)) return 'refused';
    throw error;
  }
}
