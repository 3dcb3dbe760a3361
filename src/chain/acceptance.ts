/**
 * @module Sending the acceptor's decisions: one `acceptDeposits(accepted, declined)` per batch,
 * simulated first against the chain's latest state. The escrow reverts a whole batch for one
 * deposit that is not pending (reclaimed meanwhile, or accepted by an earlier transaction the
 * watcher has not read yet) or unknown (gone in a reorganisation): such a deposit leaves the batch
 * and the rest is simulated again, so one never holds up the others. What is sent is what passed
 * the simulation; the transaction's outcome is read later (`outcome`), never waited for here.
 */

import { type Address, BaseError, ContractFunctionRevertedError, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

import type { WatchDecision } from '../pool-node/deposit-source.js';
import { ChainError, chainErrorOf } from './chain-errors.js';
import { privStarkEscrowAbi } from './contract-artifacts.js';
import { gasLimitFor } from './gas-limit.js';
import type { ChainClients } from './rpc-client.js';

/** What sending a batch came to. */
export interface AcceptanceSent {
  /** The transaction, or `null` when nothing was left to send. */
  readonly tx: Hex | null;
  /** The decisions it carries. */
  readonly decisions: readonly WatchDecision[];
  /** Deposits the chain says are not pending (or unknown): left out, for the events to tell. */
  readonly skipped: readonly number[];
}

/** The escrow's reverts that name one deposit of the batch. */
const PER_DEPOSIT = new Set(['DepositNotPending', 'UnknownDeposit']);

/** The deposit a revert names, when the revert is about one deposit of the batch. */
function revertedDeposit(error: unknown): number | null {
  if (!(error instanceof BaseError)) return null;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError) || !reverted.data) return null;
  if (!PER_DEPOSIT.has(reverted.data.errorName)) return null;
  const index = reverted.data.args?.[0];
  return typeof index === 'bigint' ? Number(index) : null;
}

/** The acceptor's sender. */
export class AcceptanceSender {
  constructor(
    private readonly clients: ChainClients,
    private readonly chainId: number,
    private readonly escrow: Address,
    private readonly account: PrivateKeyAccount,
  ) {}

  /**
   * Simulates and sends the batch of `decisions`, leaving out the deposits the chain refuses.
   * @throws ChainError `acceptance_refused` when the escrow refuses the batch as a whole (the key
   *   lacks the acceptor role), or an RPC failure
   */
  async send(decisions: readonly WatchDecision[]): Promise<AcceptanceSent> {
    let batch = [...decisions];
    const skipped: number[] = [];
    while (batch.length > 0) {
      const accepted = batch.filter((d) => d.decision === 'accept').map((d) => BigInt(d.index));
      const declined = batch.filter((d) => d.decision === 'decline').map((d) => BigInt(d.index));
      let request: unknown;
      let gas: bigint;
      const call = {
        address: this.escrow,
        abi: privStarkEscrowAbi,
        functionName: 'acceptDeposits',
        args: [accepted, declined],
        account: this.account,
      } as const;
      try {
        ({ request } = await this.clients.public.simulateContract(call));
        gas = gasLimitFor(await this.clients.public.estimateContractGas(call));
      } catch (error) {
        const index = revertedDeposit(error);
        if (index === null || !batch.some((d) => d.index === index))
          throw this.refusal(error, 'simulating acceptDeposits');
        skipped.push(index);
        batch = batch.filter((d) => d.index !== index);
        continue;
      }
      try {
        const tx = await this.clients.wallet(this.account, this.chainId).writeContract({
          ...(request as Parameters<ReturnType<ChainClients['wallet']>['writeContract']>[0]),
          gas,
        });
        return { tx, decisions: batch, skipped };
      } catch (error) {
        throw this.refusal(error, 'sending acceptDeposits');
      }
    }
    return { tx: null, decisions: [], skipped };
  }

  /**
   * Whether `tx` was mined and succeeded, reverted, or is not known to the node (pending or dropped).
   * @throws ChainError when the RPC fails
   */
  async outcome(tx: Hex): Promise<'success' | 'reverted' | 'unknown'> {
    try {
      const receipt = await this.clients.public.getTransactionReceipt({ hash: tx });
      return receipt.status;
    } catch (error) {
      if (error instanceof BaseError && error.name === 'TransactionReceiptNotFoundError')
        return 'unknown';
      throw chainErrorOf(error, 'reading an acceptance receipt');
    }
  }

  private refusal(error: unknown, what: string): ChainError {
    if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError))
      return new ChainError('acceptance_refused', `${what}: ${error.shortMessage.slice(0, 200)}`, {
        cause: error,
      });
    return chainErrorOf(error, what);
  }
}
