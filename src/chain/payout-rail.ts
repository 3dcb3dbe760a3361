/**
 * @module The payout rail on an EVM chain (docs/chain.md, "Payouts"): pays a withdrawal with the
 * escrow's `payout(withdrawalId, to, amount, deadline)`, signed by the payout key.
 *
 * - **Durable first.** A nonce is reserved for one withdrawal, then each transaction signed for it
 *   (the first and every replacement) is stored raw before it is broadcast (`payout-signing.ts`).
 *   After a restart the stored bytes are broadcast again; nothing is signed anew for a nonce that
 *   has a transaction, and no nonce serves two withdrawals.
 * - **Replacement.** A transaction not mined `replaceAfterBlocks` blocks after it was signed, and
 *   outbid by the market, is replaced: same nonce and call, each fee cap raised by the price bump,
 *   never above the ceiling (`payout-fees.ts`). Every open nonce is broadcast again each pass, so a
 *   dropped transaction's gap is filled.
 * - **Outcome.** Paid once any transaction signed for the withdrawal paid it in a final block, or
 *   the escrow says `isPaid` at the final block (another transaction paid it: the second reverts
 *   with `WithdrawalAlreadyPaid`). Failed only once every attempt is over at a final block (its
 *   transaction reverted, or its nonce was used by another, or its deadline passed) and either the
 *   last one's deadline passed unpaid, or the payout reverts for this destination while it passes
 *   for another (a blacklisted destination), or `maxRevertedAttempts` attempts reverted; when it
 *   reverts for every destination (a paused token or escrow, the cap, the custody) it waits.
 * - **Gas.** Below the minimum balance, or with fees above the ceiling, nothing new is signed; the
 *   transactions already signed keep being broadcast.
 * - **Two-key payouts** (`two-key-payouts.ts`). A withdrawal is signed for only once the latest
 *   attestation's unpaid set holds it, with its proof (`payoutWithProof`); until then it waits
 *   (`awaiting_attestation`) and the attester is asked to attest. An attempt that reverted with
 *   a proof the latest root no longer accepts (a newer attestation landed first) does not count
 *   towards the reverted attempts that fail a payout. A destination is judged refused by the
 *   token itself (a transfer from the escrow to it fails at the final block, one to the payout
 *   key passes): the payout call cannot be aimed elsewhere, its proof binds the destination.
 */

import { type Address, type Hex, isAddressEqual, type LocalAccount, type PublicClient } from 'viem';

import type { AttestedSets } from '../ledger/attested-sets.js';
import type { Lease, PayoutAttempt, PayoutJournal } from '../ledger/payout-journal.js';
import { gasLimitFor } from './gas-limit.js';
import type {
  PayoutFailure,
  PayoutOrder,
  PayoutProgress,
  PayoutRail,
  PayoutWait,
  RailPass,
  RailStatus,
} from '../pool-node/payout-rail.js';
import { failpoint } from './failpoint.js';
import type { Finality } from './finality.js';
import { type AttemptState, attemptState, isDead } from './payout-attempts.js';
import {
  type ChainView,
  isPaidAt,
  type PayoutCall,
  paidReference,
  readChainView,
  simulatePayout,
} from './payout-chain.js';
import {
  DEFAULT_FEE_BUMP_PERCENT,
  type Fees,
  offeredFees,
  outbid,
  replacementFees,
} from './payout-fees.js';
import {
  destinationAddress,
  feesOf,
  firstTransaction,
  replacementOf,
  type SigningContext,
  signStoreSend,
} from './payout-signing.js';
import { broadcast } from './payout-chain.js';
import { type AttestedView, proofIn, readAttestedView, staleProof } from './two-key-payouts.js';
import { tokenTransferPasses } from './token-transfer.js';

/** How the rail pays. */
export interface EvmPayoutRailOptions {
  readonly client: PublicClient;
  /** The payout key (it holds the escrow's `PAYOUT_ROLE`). */
  readonly account: LocalAccount;
  readonly chainId: number;
  readonly escrow: Address;
  /** The escrow's token (never a destination). */
  readonly token: Address;
  readonly journal: PayoutJournal;
  /** When a block is final (`{ confirmations: 1 }`: the latest). */
  readonly finality: Finality;
  /** The ceiling on the fee per gas, wei. */
  readonly maxFeePerGas: bigint;
  /** Below this balance (wei) nothing new is signed. */
  readonly minGasBalance: bigint;
  /** A payout's deadline, seconds after the block it was signed at (default 86 400). */
  readonly deadlineSeconds?: number;
  /** Blocks after its signing before a transaction outbid by the market is replaced (default 3). */
  readonly replaceAfterBlocks?: number;
  /** The price bump of a replacement, percent (default 10). */
  readonly feeBumpPercent?: number;
  /**
   * Attempts reverted in final blocks after which the payout is failed (its refund note) rather than
   * signed again while a simulation passes (default 3).
   */
  readonly maxRevertedAttempts?: number;
  /** Where the `Paid` events are searched from (the escrow's deployment block; default 0). */
  readonly fromBlock?: bigint;
  /** Unix ms (default `Date.now`). */
  readonly clock?: () => number;
  /** What it signed, replaced and broadcast again (hashes and nonces only, never the bytes). */
  readonly onEvent?: (event: RailEvent) => void;
  /** The escrow requires two-key payouts: the attested sets to prove from. */
  readonly twoKey?: TwoKeyOptions | undefined;
}

/** Two-key payouts' part of the rail. */
export interface TwoKeyOptions {
  /** Where the attester recorded its unpaid sets (the same database). */
  readonly sets: AttestedSets;
  /** Called when a withdrawal waits for an attestation (the wiring asks the attester, throttled). */
  readonly onUnattested?: (() => void) | undefined;
}

/** What the rail did. */
export interface RailEvent {
  readonly kind: 'signed' | 'replaced' | 'rebroadcast';
  readonly withdrawalId: string;
  readonly nonce: number;
  readonly hash: string;
  readonly broadcast: string;
}

/** The gas limit of a transaction signed with no estimate (its nonce must be filled anyway). */
const FALLBACK_GAS = 300_000n;

/** One pass of this rail. */
interface EvmPass extends RailPass {
  readonly view: ChainView;
  /** What a new transaction offers now; `null` above the ceiling. */
  readonly market: Fees | null;
  /** Why nothing new may be signed in this pass, or `null`. */
  readonly hold: PayoutWait | null;
  /** Two-key payouts: the latest attestation's set at the latest block; `null` without the mode. */
  readonly attested: AttestedView | null;
}

const pending = (wait: PayoutWait): PayoutProgress => ({ state: 'pending', wait });
const failed = (reason: PayoutFailure): PayoutProgress => ({ state: 'failed', reason });

/** The payout rail on one EVM chain, for one payout key. */
export class EvmPayoutRail implements PayoutRail {
  readonly name: string;
  private gasBalance: bigint | null = null;
  private readonly clock: () => number;

  constructor(private readonly options: EvmPayoutRailOptions) {
    this.name = `eip155:${options.chainId}:${options.account.address}`;
    this.clock = options.clock ?? Date.now;
  }

  refusal(destination: string): PayoutFailure | null {
    const to = destinationAddress(destination, this.options.chainId);
    if (to === null) return 'unpayable_destination';
    const { escrow, token } = this.options;
    if (/^0x0{40}$/.test(to) || isAddressEqual(to, escrow) || isAddressEqual(to, token))
      return 'unpayable_destination';
    return null;
  }

  status(): RailStatus {
    const balance = this.gasBalance;
    return {
      name: this.name,
      gasBalance: balance === null ? null : balance.toString(),
      minGasBalance: this.options.minGasBalance.toString(),
      gasLow: balance !== null && balance < this.options.minGasBalance,
    };
  }

  async beginPass(lease: Lease): Promise<RailPass> {
    const { client, account, finality, maxFeePerGas, minGasBalance } = this.options;
    const view = await readChainView(client, account.address, finality);
    this.gasBalance = view.gasBalance;
    const market = offeredFees(view.baseFee, view.tip, maxFeePerGas);
    const hold: PayoutWait | null =
      view.gasBalance < minGasBalance ? 'gas_low' : market === null ? 'gas_above_ceiling' : null;
    const twoKey = this.options.twoKey;
    const attested = twoKey
      ? await readAttestedView(client, this.options.escrow, twoKey.sets, view.latest.number)
      : null;
    const pass: EvmPass = { lease, view, market, hold, attested };
    await this.keepGoing(pass);
    return pass;
  }

  async advance(order: PayoutOrder, railPass: RailPass): Promise<PayoutProgress> {
    const pass = railPass as EvmPass;
    const to = destinationAddress(order.destination, this.options.chainId);
    if (to === null || this.refusal(order.destination) !== null)
      return failed('unpayable_destination');
    const attempts = await this.options.journal.attempts(this.name, order.withdrawalId);
    const states: AttemptState[] = [];
    for (const attempt of attempts) {
      const state = await attemptState(
        this.options.client,
        this.options.escrow,
        attempt,
        pass.view,
      );
      if (state.kind === 'paid') return this.paid(state.hash, state.final);
      states.push(state);
    }
    const last = states.at(-1);
    const lastAttempt = attempts.at(-1);
    if (last?.kind === 'unsigned' && lastAttempt)
      return this.signReserved(lastAttempt, order, to, pass);
    if (last !== undefined && !isDead(last)) return pending('in_flight');
    return this.afterEveryAttempt(order, to, pass, attempts, states);
  }

  /** A payment found: recorded once final (the crash point `payout:after-mined` is just before). */
  private paid(hash: Hex | null, final: boolean): PayoutProgress {
    if (!final) return pending('awaiting_finality');
    failpoint('payout:after-mined');
    return { state: 'paid', reference: hash ?? '' };
  }

  /** Every attempt is over (or there is none): paid by someone, failed for good, or a new attempt. */
  private async afterEveryAttempt(
    order: PayoutOrder,
    to: Address,
    pass: EvmPass,
    attempts: readonly PayoutAttempt[],
    states: readonly AttemptState[],
  ): Promise<PayoutProgress> {
    const { client, escrow, fromBlock } = this.options;
    const id = order.withdrawalId as Hex;
    if (await isPaidAt(client, escrow, id, pass.view.final.number)) {
      const reference = await paidReference(
        client,
        escrow,
        id,
        fromBlock ?? 0n,
        pass.view.final.number,
      );
      return this.paid(reference, true);
    }
    if (await isPaidAt(client, escrow, id, pass.view.latest.number))
      return pending('awaiting_finality');
    if (states.at(-1)?.kind === 'expired') return failed('deadline_passed');
    const reverted = this.countedReverts(attempts, states, pass);
    // Every attempt is dead and none paid (checked just above at the final block): failing it
    // refunds the exit and can never pay it twice. Signing again forever would keep the exit from
    // its owner, and the operator records no step by hand in a chain pool.
    if (reverted >= (this.options.maxRevertedAttempts ?? 3))
      return failed('every_attempt_reverted');
    const deadline = pass.view.latest.timestamp + BigInt(this.options.deadlineSeconds ?? 86_400);
    const call = this.callFor(order, to, deadline, pass);
    if (call === null) {
      this.options.twoKey?.onUnattested?.();
      return pending('awaiting_attestation');
    }
    const simulation = await simulatePayout(client, call);
    if (!simulation.ok) return this.refusedNow(call, pass);
    if (pass.hold !== null) return pending(pass.hold);
    return this.startAttempt(call, simulation.gas, pass);
  }

  /**
   * A payout that reverts at the latest block: failed for good only when, at the final block, it
   * reverts for this destination and passes for another (the payout key's own address).
   */
  private async refusedNow(call: PayoutCall, pass: EvmPass): Promise<PayoutProgress> {
    const { client, account, escrow, token } = this.options;
    const final = pass.view.final.number;
    const atFinal = await simulatePayout(client, call, final);
    if (atFinal.ok) return pending('rail_refusing');
    if (call.proof !== undefined) {
      // The proof binds the destination: the token itself is asked instead.
      const transfer = { client, token, from: escrow, amount: call.amount, blockNumber: final };
      const refused =
        !(await tokenTransferPasses({ ...transfer, to: call.to })) &&
        (await tokenTransferPasses({ ...transfer, to: account.address }));
      return refused ? failed('destination_refused') : pending('rail_refusing');
    }
    const control = await simulatePayout(client, { ...call, to: account.address }, final);
    return control.ok ? failed('destination_refused') : pending('rail_refusing');
  }

  /**
   * Reverted attempts that count towards failing the payout: with two-key payouts, not one whose
   * proof the latest root rejects (a newer attestation landed before it: no fault of the payout).
   */
  private countedReverts(
    attempts: readonly PayoutAttempt[],
    states: readonly AttemptState[],
    pass: EvmPass,
  ): number {
    let count = 0;
    for (const [i, state] of states.entries()) {
      if (state.kind !== 'reverted') continue;
      if (pass.attested === null || !staleProof(attempts[i], pass.attested)) count++;
    }
    return count;
  }

  /** A new attempt: a nonce reserved for the withdrawal, then its transaction signed, stored, sent. */
  private async startAttempt(
    call: PayoutCall,
    gas: bigint,
    pass: EvmPass,
  ): Promise<PayoutProgress> {
    const { journal } = this.options;
    const now = this.clock();
    const attempt = await journal.reserveNonce(
      pass.lease,
      call.withdrawalId,
      pass.view.nonces.pending,
      Number(call.deadline),
      now,
    );
    return this.signFirst(attempt, call, gasLimitFor(gas), pass);
  }

  /** A nonce reserved before a crash, nothing signed for it: signed now (a gap must not stay). */
  private async signReserved(
    attempt: PayoutAttempt,
    order: PayoutOrder,
    to: Address,
    pass: EvmPass,
  ): Promise<PayoutProgress> {
    if (pass.hold !== null) return pending(pass.hold);
    // A nonce reserved must be filled: with no proof now, an empty one (it reverts, harmlessly).
    const deadline = BigInt(attempt.deadline);
    const call = this.callFor(order, to, deadline, pass) ?? {
      ...this.baseCall(order, to, deadline),
      proof: [],
    };
    const simulation = await simulatePayout(this.options.client, call);
    return this.signFirst(
      attempt,
      call,
      simulation.ok ? gasLimitFor(simulation.gas) : FALLBACK_GAS,
      pass,
    );
  }

  private async signFirst(
    attempt: PayoutAttempt,
    call: PayoutCall,
    gas: bigint,
    pass: EvmPass,
  ): Promise<PayoutProgress> {
    if (pass.market === null) return pending('gas_above_ceiling');
    const { signed, broadcast: outcome } = await signStoreSend(
      this.signing(pass),
      firstTransaction(call, attempt.nonce, gas, pass.market),
    );
    this.emit('signed', attempt.withdrawalId, signed.nonce, signed.hash, outcome);
    return pending('in_flight');
  }

  /**
   * The transactions of open nonces (not mined at the latest block): replaced when stuck and
   * outbid, else broadcast again (the node keeps one copy; a dropped one comes back).
   */
  private async keepGoing(pass: EvmPass): Promise<void> {
    const { journal, client, maxFeePerGas } = this.options;
    const replaceAfter = BigInt(this.options.replaceAfterBlocks ?? 3);
    const bump = this.options.feeBumpPercent ?? DEFAULT_FEE_BUMP_PERCENT;
    for (const attempt of await journal.openAttempts(this.name, pass.view.nonces.latest)) {
      const best = attempt.transactions.at(-1);
      if (best === undefined) continue;
      const stuck = pass.view.latest.number - BigInt(best.signedBlock) >= replaceAfter;
      const fees =
        stuck && pass.hold !== 'gas_low' && outbid(feesOf(best), pass.market)
          ? replacementFees(feesOf(best), pass.market, maxFeePerGas, bump)
          : null;
      if (fees !== null) {
        const replacement = replacementOf(attempt.withdrawalId, best, fees);
        const { signed, broadcast: outcome } = await signStoreSend(this.signing(pass), replacement);
        this.emit('replaced', attempt.withdrawalId, signed.nonce, signed.hash, outcome);
        continue;
      }
      const outcome = await broadcast(client, best.raw as Hex);
      if (outcome === 'sent')
        this.emit('rebroadcast', attempt.withdrawalId, best.nonce, best.hash, outcome);
    }
  }

  /** The plain call (no proof). */
  private baseCall(order: PayoutOrder, to: Address, deadline: bigint): PayoutCall {
    return {
      escrow: this.options.escrow,
      from: this.options.account.address,
      withdrawalId: order.withdrawalId as Hex,
      to,
      amount: BigInt(order.amount),
      deadline,
    };
  }

  /** The call, with two-key payouts with its proof; `null` when the latest attestation lacks it. */
  private callFor(
    order: PayoutOrder,
    to: Address,
    deadline: bigint,
    pass: EvmPass,
  ): PayoutCall | null {
    const call = this.baseCall(order, to, deadline);
    if (pass.attested === null) return call;
    const proof = proofIn(pass.attested, call);
    return proof === null ? null : { ...call, proof };
  }

  private signing(pass: EvmPass): SigningContext {
    const { client, account, chainId, journal } = this.options;
    return {
      client,
      account,
      chainId,
      journal,
      lease: pass.lease,
      now: this.clock(),
      block: pass.view.latest.number,
    };
  }

  private emit(
    kind: RailEvent['kind'],
    withdrawalId: string,
    nonce: number,
    hash: string,
    outcome: string,
  ): void {
    this.options.onEvent?.({ kind, withdrawalId, nonce, hash, broadcast: outcome });
  }
}
