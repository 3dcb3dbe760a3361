/**
 * @module The chain's half of `priv-stark audit` (docs/audit.md, "The audit"): what the escrow
 * says — its deposits and their fate, its payouts, its attestations, its balance — read from the
 * auditor's own RPC, and held against what the pool's public log says of money (the log audit's
 * facts, `src/audit/log-audit.ts`):
 *
 * - every deposit the log shielded is an accepted deposit of the escrow, of the same amount
 *   (`cm = H_NOTE(amount, pre)` recomputed from the chain); none was declined or reclaimed;
 * - every accepted deposit is shielded within the shield deadline;
 * - every `Paid` pays a withdrawal of the log, to its destination, its amount; none is also
 *   refunded;
 * - each attestation's paid-out total is no more than the `Paid` events by its block;
 * - the escrow's balance covers what the log owes (deposits less payouts) and the deposits it
 *   still holds for their depositors (pending or declined).
 */

import {
  type Address,
  BaseError,
  getAddress,
  type Hex,
  isAddressEqual,
  type PublicClient,
  ResponseBodyTooLargeError,
} from 'viem';

import type { AttestedClaim, Finding, LogFacts } from '../audit/index.js';
import type { CoreHash } from '../core/witness.js';
import { commitmentOf } from '../core/witness.js';
import { chainErrorOf } from './chain-errors.js';
import { privStarkEscrowAbi } from './contract-artifacts.js';
import { readEscrowEvents } from './escrow-events.js';
import { destinationAddress } from './payout-signing.js';

/** An attestation with the block that took it. */
export interface ChainAttestation extends AttestedClaim {
  readonly block: number;
  readonly unpaidRoot: Hex;
}

/** A deposit of the escrow and where it stands. */
export interface EscrowDeposit {
  readonly index: number;
  readonly amount: bigint;
  readonly pre: Hex;
  readonly state: 'pending' | 'accepted' | 'declined' | 'reclaimed';
  /** Unix seconds of its acceptance (accepted deposits). */
  readonly acceptedAt: number | null;
}

/** What the audit reads from the chain. */
export interface ChainFacts {
  readonly chainId: number;
  readonly deposits: readonly EscrowDeposit[];
  readonly paid: readonly {
    readonly withdrawalId: Hex;
    readonly to: Address;
    readonly amount: bigint;
    readonly block: number;
  }[];
  readonly attestations: readonly ChainAttestation[];
  /** The escrow's token balance. */
  readonly balance: bigint;
  /** The block everything was read at, and its time (unix seconds). */
  readonly block: number;
  readonly time: number;
}

/** Blocks per `eth_getLogs` (RPCs refuse wide ranges). */
const LOG_RANGE = 10_000;

type Paid = ChainFacts['paid'][number];
type Pending = EscrowDeposit & { acceptedBlock?: number };

/** The escrow's deposit events, payouts and attestations in blocks `from..to`, into the maps. */
async function readRange(
  client: PublicClient,
  escrow: Address,
  [from, to]: readonly [number, number],
  out: { deposits: Map<number, Pending>; paid: Paid[]; attestations: ChainAttestation[] },
): Promise<void> {
  const range = {
    address: escrow,
    abi: privStarkEscrowAbi,
    fromBlock: BigInt(from),
    toBlock: BigInt(to),
  } as const;
  // Every read before anything is applied: a range that fails leaves `out` as it was, so it can
  // be read again in halves.
  const [events, paidLogs, attestedLogs] = [
    await readEscrowEvents(client, escrow, from, to),
    await client.getContractEvents({ ...range, eventName: 'Paid' }),
    await client.getContractEvents({ ...range, eventName: 'Attested' }),
  ];
  for (const e of events) {
    if (e.kind === 'deposited') {
      const { index, pre } = e;
      out.deposits.set(index, {
        index,
        amount: BigInt(e.amount),
        pre: pre as Hex,
        state: 'pending',
        acceptedAt: null,
      });
      continue;
    }
    const d = out.deposits.get(e.index);
    if (d)
      out.deposits.set(e.index, {
        ...d,
        state: e.kind,
        ...(e.kind === 'accepted' ? { acceptedBlock: e.block } : {}),
      });
  }
  for (const log of paidLogs) {
    const {
      withdrawalId,
      to: payee,
      amount,
    } = log.args as { withdrawalId: Hex; to: Address; amount: bigint };
    out.paid.push({ withdrawalId, to: payee, amount, block: Number(log.blockNumber) });
  }
  for (const log of attestedLogs) {
    const a = log.args as {
      seq: bigint;
      root: Hex;
      logDigest: Hex;
      unpaidRoot: Hex;
      totals: readonly bigint[];
    };
    const [d, w, p, r] = a.totals;
    out.attestations.push({
      seq: Number(a.seq),
      root: a.root,
      logDigest: a.logDigest,
      unpaidRoot: a.unpaidRoot,
      totals: [d!, w!, p!, r!],
      block: Number(log.blockNumber),
    });
  }
}

/** Ranges read again in halves at most, per audit, before the RPC's refusal is final. */
const SPLITS_MAX = 64;

/**
 * Whether a failed read may succeed over fewer blocks: a reply over the client's size cap, or the
 * RPC's own refusal (too many results, too wide a range) — not an RPC that does not answer.
 */
function narrowerMayPass(error: unknown): boolean {
  if (error instanceof BaseError && error.walk((e) => e instanceof ResponseBodyTooLargeError))
    return true;
  return chainErrorOf(error, 'eth_getLogs').code !== 'rpc_unreachable';
}

/**
 * {@link readRange}, read again in halves while a range's reply is too large for the client or
 * the RPC refuses it (an escrow with thousands of deposits in one range is megabytes of logs).
 */
async function readSplitting(
  client: PublicClient,
  escrow: Address,
  [from, to]: readonly [number, number],
  out: Parameters<typeof readRange>[3],
  splits: { count: number },
): Promise<void> {
  try {
    await readRange(client, escrow, [from, to], out);
  } catch (error) {
    if (from === to || splits.count >= SPLITS_MAX || !narrowerMayPass(error)) throw error;
    splits.count++;
    const middle = Math.floor((from + to) / 2);
    await readSplitting(client, escrow, [from, middle], out, splits);
    await readSplitting(client, escrow, [middle + 1, to], out, splits);
  }
}

/** Each deposit with the time of the block that accepted it. */
async function withAcceptanceTimes(
  client: PublicClient,
  deposits: Iterable<Pending>,
): Promise<EscrowDeposit[]> {
  const times = new Map<number, number>();
  const out: EscrowDeposit[] = [];
  for (const { acceptedBlock, ...d } of deposits) {
    if (acceptedBlock !== undefined && !times.has(acceptedBlock))
      times.set(
        acceptedBlock,
        Number((await client.getBlock({ blockNumber: BigInt(acceptedBlock) })).timestamp),
      );
    out.push({ ...d, acceptedAt: acceptedBlock === undefined ? null : times.get(acceptedBlock)! });
  }
  return out;
}

const BALANCE_OF = [
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'account', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const;

/**
 * Reads the escrow's deposits, payouts, attestations and balance from `fromBlock` (its deployment)
 * to the latest block.
 * @throws ChainError when the RPC fails
 */
export async function readChainFacts(
  client: PublicClient,
  escrow: Address,
  fromBlock: number,
): Promise<ChainFacts> {
  try {
    const [latest, chainId] = await Promise.all([client.getBlock(), client.getChainId()]);
    const to = Number(latest.number);
    const out = {
      deposits: new Map<number, Pending>(),
      paid: [] as Paid[],
      attestations: [] as ChainAttestation[],
    };
    const splits = { count: 0 };
    for (let from = fromBlock; from <= to; from += LOG_RANGE)
      await readSplitting(client, escrow, [from, Math.min(to, from + LOG_RANGE - 1)], out, splits);
    const token = await client.readContract({
      address: escrow,
      abi: privStarkEscrowAbi,
      functionName: 'token',
    });
    const balance = await client.readContract({
      address: getAddress(token),
      abi: BALANCE_OF,
      functionName: 'balanceOf',
      args: [escrow],
      blockNumber: latest.number,
    });
    return {
      chainId,
      deposits: await withAcceptanceTimes(client, out.deposits.values()),
      paid: out.paid,
      attestations: out.attestations,
      balance,
      block: to,
      time: Number(latest.timestamp),
    };
  } catch (error) {
    throw chainErrorOf(error, 'reading the escrow');
  }
}

/** The chain's findings against the log's facts. */
export function chainFindings(
  core: CoreHash,
  log: LogFacts,
  chain: ChainFacts,
  options: { readonly shieldDeadlineS: number },
): Finding[] {
  const findings: Finding[] = [];
  const byCommitment = new Map<string, EscrowDeposit>(
    chain.deposits.map((d) => [commitmentOf(core, d.amount.toString(), d.pre), d]),
  );
  for (const [commitment, shielded] of log.deposits) {
    const onChain = byCommitment.get(commitment);
    const event = shielded.event;
    if (onChain === undefined || onChain.state === 'pending')
      findings.push({
        code: 'unbacked_deposit',
        evidence: {
          event,
          commitment,
          amount: shielded.amount.toString(),
          index: onChain?.index ?? null,
        },
      });
    else if (onChain.state === 'declined' || onChain.state === 'reclaimed')
      findings.push({
        code: 'shielded_reclaimed_deposit',
        evidence: { event, index: onChain.index, state: onChain.state },
      });
    else if (onChain.amount !== shielded.amount)
      findings.push({
        code: 'deposit_mismatch',
        evidence: {
          event,
          index: onChain.index,
          log: shielded.amount.toString(),
          chain: onChain.amount.toString(),
        },
      });
  }
  for (const [commitment, d] of byCommitment)
    if (
      d.state === 'accepted' &&
      !log.deposits.has(commitment) &&
      (d.acceptedAt ?? 0) + options.shieldDeadlineS <= chain.time
    )
      findings.push({
        code: 'unshielded_accepted_deposit',
        evidence: { index: d.index, amount: d.amount.toString(), acceptedAt: d.acceptedAt },
      });
  findings.push(...payoutFindings(log, chain));
  return findings;
}

/** Payouts against withdrawals, the paid-out totals, and the escrow's balance. */
function payoutFindings(log: LogFacts, chain: ChainFacts): Finding[] {
  const findings: Finding[] = [];
  for (const p of chain.paid) {
    const w =
      log.withdrawals.get(p.withdrawalId.toLowerCase()) ?? log.withdrawals.get(p.withdrawalId);
    const evidence = {
      withdrawalId: p.withdrawalId,
      to: p.to,
      amount: p.amount.toString(),
      block: p.block,
    };
    if (w === undefined) {
      findings.push({ code: 'payout_without_withdrawal', evidence });
      continue;
    }
    const to = destinationAddress(w.destination, chain.chainId);
    if (to === null || !isAddressEqual(to, p.to) || w.amount !== p.amount)
      findings.push({
        code: 'payout_mismatch',
        evidence: { ...evidence, destination: w.destination, withdrawn: w.amount.toString() },
      });
    if (w.refunded)
      findings.push({
        code: 'paid_and_refunded',
        evidence: { withdrawalId: p.withdrawalId, event: w.event },
      });
  }
  for (const a of chain.attestations) {
    const paidBy = chain.paid.filter((p) => p.block <= a.block).reduce((s, p) => s + p.amount, 0n);
    if (a.totals[2] > paidBy)
      findings.push({
        code: 'totals_mismatch',
        evidence: {
          seq: a.seq,
          total: 'paidOut',
          attested: a.totals[2].toString(),
          chain: paidBy.toString(),
        },
      });
  }
  const deposited = [...log.deposits.values()].reduce((s, d) => s + d.amount, 0n);
  const paidOut = chain.paid.reduce((s, p) => s + p.amount, 0n);
  const held = chain.deposits
    .filter((d) => d.state === 'pending' || d.state === 'declined')
    .reduce((s, d) => s + d.amount, 0n);
  const owed = deposited - paidOut + held;
  if (chain.balance < owed)
    findings.push({
      code: 'totals_mismatch',
      evidence: {
        total: 'escrowBalance',
        balance: chain.balance.toString(),
        owed: owed.toString(),
      },
    });
  return findings;
}
