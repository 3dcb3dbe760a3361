/**
 * @module Posting the operator's attestation (docs/audit.md, "Attestations"): the escrow's
 * `attest(seq, root, logDigest, totals, unpaidRoot)`, sent with the attester key, simulated first
 * and waited for. The escrow keeps one latest attestation and refuses one not later than it
 * (`AttestationNotNewer`): another pool-node instance attested this checkpoint first, which is
 * an answer (`already_attested`), not a failure. Any other revert (the key lacks the role) is
 * `attestation_refused`; an RPC failure its `chain-errors.ts` code.
 */

import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  type PublicClient,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

import { ChainError, chainErrorOf } from './chain-errors.js';
import { privStarkEscrowAbi } from './contract-artifacts.js';
import { gasLimitFor } from './gas-limit.js';
import type { ChainClients } from './rpc-client.js';

/** The operator's claim at one checkpoint, as `attest` takes it. */
export interface AttestationClaim {
  readonly seq: number;
  readonly root: Hex;
  readonly logDigest: Hex;
  /** Deposited, withdrawn, paid out, refunded (atomic units). */
  readonly totals: readonly [bigint, bigint, bigint, bigint];
  readonly unpaidRoot: Hex;
}

/** What posting a claim came to. */
export type AttestationSent =
  | {
      readonly outcome: 'attested';
      readonly tx: Hex;
      readonly block: bigint;
      readonly gasUsed: bigint;
    }
  /** The escrow's latest attestation is of this checkpoint or a later one. */
  | { readonly outcome: 'already_attested'; readonly latestSeq: number };

/** The escrow's latest attested checkpoint (0 before the first). */
export async function latestAttestedSeq(client: PublicClient, escrow: Address): Promise<number> {
  try {
    const latest = await client.readContract({
      address: escrow,
      abi: privStarkEscrowAbi,
      functionName: 'latestAttestation',
    });
    return Number(latest.seq);
  } catch (error) {
    throw chainErrorOf(error, 'reading the latest attestation');
  }
}

/** The escrow's revert name and arguments, when `error` is a revert. */
function revertOf(error: unknown): { name: string; args: readonly unknown[] } | null {
  if (!(error instanceof BaseError)) return null;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return null;
  return { name: reverted.data?.errorName ?? 'revert', args: reverted.data?.args ?? [] };
}

/** The attester's sender. */
export class AttestationSender {
  constructor(
    private readonly clients: ChainClients,
    private readonly chainId: number,
    readonly escrow: Address,
    private readonly account: PrivateKeyAccount,
    /** How long a sent attestation is waited for, ms. */
    private readonly receiptTimeoutMs = 120_000,
  ) {}

  /** The attester's address (public: it is in every `Attested` event). */
  get address(): Address {
    return this.account.address;
  }

  /**
   * Simulates, sends and waits for `attest(claim)`.
   * @throws ChainError `attestation_refused` when the escrow refuses it otherwise than as not newer
   *   (the key lacks the attester role) or the mined transaction reverted; an RPC failure's code
   */
  async send(claim: AttestationClaim): Promise<AttestationSent> {
    const call = {
      address: this.escrow,
      abi: privStarkEscrowAbi,
      functionName: 'attest',
      args: [BigInt(claim.seq), claim.root, claim.logDigest, claim.totals, claim.unpaidRoot],
      account: this.account,
    } as const;
    let request: unknown;
    let gas: bigint;
    try {
      ({ request } = await this.clients.public.simulateContract(call));
      gas = gasLimitFor(await this.clients.public.estimateContractGas(call));
    } catch (error) {
      const revert = revertOf(error);
      if (revert?.name === 'AttestationNotNewer')
        return { outcome: 'already_attested', latestSeq: Number(revert.args[1] ?? 0) };
      if (revert)
        throw new ChainError('attestation_refused', `the escrow refused attest: ${revert.name}`, {
          cause: error,
        });
      throw chainErrorOf(error, 'simulating attest');
    }
    let tx: Hex;
    try {
      tx = await this.clients.wallet(this.account, this.chainId).writeContract({
        ...(request as Parameters<ReturnType<ChainClients['wallet']>['writeContract']>[0]),
        gas,
      });
    } catch (error) {
      throw chainErrorOf(error, 'sending attest');
    }
    let receipt: Awaited<ReturnType<PublicClient['waitForTransactionReceipt']>>;
    try {
      receipt = await this.clients.public.waitForTransactionReceipt({
        hash: tx,
        timeout: this.receiptTimeoutMs,
      });
    } catch (error) {
      throw chainErrorOf(error, 'waiting for the attestation');
    }
    if (receipt.status !== 'success')
      throw new ChainError('attestation_refused', `the attestation ${tx} reverted when mined`);
    return { outcome: 'attested', tx, block: receipt.blockNumber, gasUsed: receipt.gasUsed };
  }
}
