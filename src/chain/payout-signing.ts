/**
 * @module A payout transaction signed, stored, then sent — in that order, always: the signed bytes
 * are durable in the journal (under the lease) before the node sees them, so a restart finds every
 * transaction that may have reached the chain and broadcasts those same bytes again instead of
 * signing anew. The crash points `payout:before-send` and `payout:after-send` sit on either side of
 * the broadcast.
 */

import {
  type Address,
  type Hex,
  keccak256,
  type LocalAccount,
  parseTransaction,
  type PublicClient,
} from 'viem';

import type { Lease, PayoutJournal, SignedPayout } from '../ledger/payout-journal.js';
import { failpoint } from './failpoint.js';
import type { Fees } from './payout-fees.js';
import { type Broadcast, broadcast, type PayoutCall, payoutData } from './payout-chain.js';

/** What signing a payout needs beside the call. */
export interface SigningContext {
  readonly client: PublicClient;
  readonly account: LocalAccount;
  readonly chainId: number;
  readonly journal: PayoutJournal;
  readonly lease: Lease;
  /** Unix ms. */
  readonly now: number;
  /** The latest block when signed (a replacement is due some blocks after it). */
  readonly block: bigint;
}

/** One transaction to sign for a nonce reserved for `withdrawalId`. */
export interface PayoutTransaction {
  readonly withdrawalId: string;
  readonly escrow: Address;
  readonly data: Hex;
  readonly nonce: number;
  readonly gas: bigint;
  readonly fees: Fees;
}

/** The first transaction of an attempt: `call` with `gas` and `fees`. */
export function firstTransaction(
  call: PayoutCall,
  nonce: number,
  gas: bigint,
  fees: Fees,
): PayoutTransaction {
  return {
    withdrawalId: call.withdrawalId,
    escrow: call.escrow,
    data: payoutData(call),
    nonce,
    gas,
    fees,
  };
}

/** A replacement of `previous`: the same call, nonce and gas, read from its signed bytes; new fees. */
export function replacementOf(
  withdrawalId: string,
  previous: SignedPayout,
  fees: Fees,
): PayoutTransaction {
  const parsed = parseTransaction(previous.raw as Hex);
  if (!parsed.to || parsed.data === undefined || parsed.gas === undefined)
    throw new Error('a stored payout transaction has no call');
  return {
    withdrawalId,
    escrow: parsed.to,
    data: parsed.data,
    nonce: previous.nonce,
    gas: parsed.gas,
    fees,
  };
}

/**
 * Signs `transaction`, stores it in the journal under the lease, then broadcasts it.
 * @returns the stored transaction and how the node took it
 * @throws LeaseLostError when the lease is gone (nothing stored, nothing sent)
 */
export async function signStoreSend(
  context: SigningContext,
  transaction: PayoutTransaction,
): Promise<{ signed: SignedPayout; broadcast: Broadcast }> {
  const raw = await context.account.signTransaction({
    chainId: context.chainId,
    type: 'eip1559',
    nonce: transaction.nonce,
    to: transaction.escrow,
    data: transaction.data,
    value: 0n,
    gas: transaction.gas,
    maxFeePerGas: transaction.fees.maxFeePerGas,
    maxPriorityFeePerGas: transaction.fees.maxPriorityFeePerGas,
  });
  const signed: SignedPayout = {
    hash: keccak256(raw),
    raw,
    nonce: transaction.nonce,
    maxFeePerGas: transaction.fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: transaction.fees.maxPriorityFeePerGas.toString(),
    signedAt: context.now,
    signedBlock: Number(context.block),
  };
  await context.journal.storeTransaction(
    context.lease,
    transaction.withdrawalId,
    signed,
    context.now,
  );
  failpoint('payout:before-send');
  const outcome = await broadcast(context.client, raw);
  failpoint('payout:after-send');
  return { signed, broadcast: outcome };
}

/** The fees a stored transaction offers. */
export function feesOf(signed: SignedPayout): Fees {
  return {
    maxFeePerGas: BigInt(signed.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(signed.maxPriorityFeePerGas),
  };
}

/** The destination's address of `eip155:<chainId>:<address>`, or `null` for any other account. */
export function destinationAddress(destination: string, chainId: number): Address | null {
  const match = /^eip155:([0-9]{1,32}):(0x[0-9a-fA-F]{40})$/.exec(destination);
  if (!match || match[1] !== String(chainId)) return null;
  return match[2] as Address;
}
