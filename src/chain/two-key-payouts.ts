/**
 * @module The payout rail's side of two-key payouts (docs/chain.md, "Two-key payouts"): whether
 * the escrow was deployed with them (`twoKeyPayouts()`, fixed for its life), and, once per pass,
 * the latest attestation's unpaid root read from the escrow with the set the attester recorded
 * under it (`attested-sets.ts`). A withdrawal is payable only when that set holds it with the same
 * destination and amount; its proof is built from the set. The set is checked against the root on
 * chain before use: a database that lost or altered a row yields no proof (the payout waits), never
 * a wrong one.
 */

import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  decodeFunctionData,
  getAddress,
  type Hex,
  type PublicClient,
  parseTransaction,
} from 'viem';

import type { AttestedSets } from '../ledger/attested-sets.js';
import type { PayoutAttempt } from '../ledger/payout-journal.js';
import { chainErrorOf } from './chain-errors.js';
import { privStarkEscrowAbi } from './contract-artifacts.js';
import {
  type UnpaidWithdrawal,
  unpaidProof,
  unpaidRoot,
  verifyUnpaid,
} from './unpaid-withdrawals.js';

/**
 * Whether `escrow` requires two-key payouts. An escrow whose code has no such view (one deployed
 * before the mode existed) reverts the call: it has no mode, so `false`.
 * @throws ChainError when the RPC fails
 */
export async function readTwoKeyMode(client: PublicClient, escrow: Address): Promise<boolean> {
  try {
    return await client.readContract({
      address: escrow,
      abi: privStarkEscrowAbi,
      functionName: 'twoKeyPayouts',
    });
  } catch (error) {
    const noView =
      error instanceof BaseError &&
      error.walk(
        (e) =>
          e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError,
      );
    if (noView) return false;
    throw chainErrorOf(error, 'reading the payout mode');
  }
}

/** The latest attestation's unpaid set, as one pass sees it. */
export interface AttestedView {
  /** The attested checkpoint (0: none yet). */
  readonly seq: number;
  readonly unpaidRoot: Hex;
  /** Its withdrawals, `null` when no matching set is recorded here. */
  readonly set: readonly UnpaidWithdrawal[] | null;
}

/** Reads the latest attestation at `blockNumber` and the set recorded under its root. */
export async function readAttestedView(
  client: PublicClient,
  escrow: Address,
  sets: AttestedSets,
  blockNumber: bigint,
): Promise<AttestedView> {
  const latest = await client.readContract({
    address: escrow,
    abi: privStarkEscrowAbi,
    functionName: 'latestAttestation',
    blockNumber,
  });
  const seq = Number(latest.seq);
  if (seq === 0) return { seq, unpaidRoot: latest.unpaidRoot, set: null };
  const recorded = await sets.byRoot(latest.unpaidRoot);
  if (recorded === null) return { seq, unpaidRoot: latest.unpaidRoot, set: null };
  const set = recorded.withdrawals.map((w) => ({
    withdrawalId: w.withdrawalId as Hex,
    to: getAddress(w.to),
    amount: BigInt(w.amount),
  }));
  const intact = unpaidRoot(set).toLowerCase() === latest.unpaidRoot.toLowerCase();
  return { seq, unpaidRoot: latest.unpaidRoot, set: intact ? set : null };
}

/**
 * The proof of `withdrawal` under the view's root, or `null` when the latest attestation does not
 * hold it with this destination and amount (not attested yet, or no set recorded).
 */
export function proofIn(view: AttestedView, withdrawal: UnpaidWithdrawal): Hex[] | null {
  if (view.set === null) return null;
  return unpaidProof(view.set, withdrawal);
}

/** Whether `attempt`'s last transaction carries a proof that `attested`'s root rejects. */
export function staleProof(attempt: PayoutAttempt | undefined, attested: AttestedView): boolean {
  const raw = attempt?.transactions.at(-1)?.raw;
  if (raw === undefined) return false;
  const data = parseTransaction(raw as Hex).data;
  if (data === undefined) return false;
  try {
    const decoded = decodeFunctionData({ abi: privStarkEscrowAbi, data });
    if (decoded.functionName !== 'payoutWithProof') return false;
    const [withdrawalId, to, amount, , proof] = decoded.args;
    return !verifyUnpaid(attested.unpaidRoot, { withdrawalId, to, amount }, proof);
  } catch {
    return false;
  }
}
