/**
 * @module What the MCP tools do, apart from the protocol: quote a 402, pay one within the policy,
 * read the balance, the policy and the payments. A payment goes only one way — the stock
 * `@x402/fetch` over an `x402Client` holding the `priv-stark/v1` scheme client, to the merchant,
 * whose facilitator verifies and settles it. Around the scheme client sits the policy: the rules
 * are checked and the amount reserved in the spend ledger (persisted) before the wallet builds
 * anything; a refusal or a failure before the payload exists releases the reservation and leaves
 * the wallet untouched. A payment counts as made only when the pool's log shows it (the wallet's
 * pending record); until then it stays reserved, and an unsettled one returns to the balance at
 * its expiry.
 *
 * Besides paying, the wallet's notes can move by transitions (`POST /transitions` on the pool node,
 * proven by the wallet): a withdrawal out of the pool to a destination the policy lists, which is
 * spending (checked and reserved in the spend ledger like a payment, then settled by the pool's
 * receipt), and merges and splits, which keep the value in the wallet and are not spending but are
 * rate-limited per process.
 */

import { type Wallet, WalletError } from '../client/index.js';
import { parseAmount } from '../scheme/index.js';
import type { AgentContext } from './agent-context.js';
import { ToolError } from './errors.js';
import { type PayBounds, payAndFetch } from './pay-and-fetch.js';
import { PolicyEvaluation } from './policy-evaluation.js';
import { quotePayment } from './quote-payment.js';
import { type WithdrawalInput, withdraw } from './withdrawal.js';
import * as readTools from './read-tools.js';
import { spendableNotes } from './spendable-notes.js';
import { SpendBookkeeping } from './spend-bookkeeping.js';
import type { LedgerFile } from './spend-ledger-file.js';
import type { SpendLedger } from './spend-ledger.js';
import type { PolicyTightening } from './policy.js';
import type { PolicySource } from './policy-file.js';
import type { FetchInput } from './request.js';
import type {
  BalanceView,
  MergeView,
  PaidView,
  PaymentView,
  PolicyView,
  QuoteView,
  SplitView,
  TransitionRateView,
  WithdrawalView,
} from './views.js';

/** Merges and splits (`merge_notes`, `split_note`) allowed per rolling minute, by default. */
export const DEFAULT_TRANSITIONS_PER_MINUTE = 6;

/** Options of {@link PaymentAgent}. */
export interface AgentOptions {
  readonly wallet: Wallet;
  readonly policy: PolicySource;
  /** The spend ledger's file (`ledger`: the option's name is public, so it stays). */
  readonly ledger: LedgerFile;
  /** The fetch to merchants (default `globalThis.fetch`). */
  readonly fetch?: typeof fetch | undefined;
  /** How often the wallet is synced while waiting for a settlement, ms. */
  readonly pollMs?: number | undefined;
  /** Unix ms. */
  readonly clock?: (() => number) | undefined;
  /**
   * Merges and splits allowed in any rolling minute, in this process (default
   * {@link DEFAULT_TRANSITIONS_PER_MINUTE}; 0: none). Withdrawals are bounded by the policy instead.
   */
  readonly transitionsPerMinute?: number | undefined;
}

/** The tools' logic. */
export class PaymentAgent {
  readonly wallet: Wallet;
  private readonly policy: PolicyEvaluation;
  private readonly context: AgentContext;
  private readonly bookkeeping: SpendBookkeeping;
  private readonly fetchImpl: typeof fetch;
  private readonly clock: () => number;
  private readonly transitionsPerMinute: number;
  /** When this process's recent merges and splits started (unix ms, oldest first). */
  private readonly transitionTimes: number[] = [];

  constructor(options: AgentOptions) {
    this.wallet = options.wallet;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.clock = options.clock ?? Date.now;
    this.bookkeeping = new SpendBookkeeping(
      options.wallet,
      options.ledger,
      this.clock,
      options.pollMs ?? 250,
    );
    this.policy = new PolicyEvaluation(options.policy, this.bookkeeping.spendLedger);
    this.context = {
      wallet: this.wallet,
      policy: this.policy,
      bookkeeping: this.bookkeeping,
      fetchImpl: this.fetchImpl,
      clock: this.clock,
    };
    const perMinute = options.transitionsPerMinute ?? DEFAULT_TRANSITIONS_PER_MINUTE;
    if (!Number.isSafeInteger(perMinute) || perMinute < 0)
      throw new RangeError('transitionsPerMinute must be a whole number, 0 or more');
    this.transitionsPerMinute = perMinute;
  }

  private get spendLedger(): SpendLedger {
    return this.bookkeeping.spendLedger;
  }

  /**
   * Links what a previous run left reserved to the wallet's records (or releases it), then syncs.
   * Call once before serving.
   */
  start(): Promise<void> {
    return this.bookkeeping.start();
  }

  /**
   * Syncs the wallet with the pool and follows its payment records in the spend ledger (and, for
   * withdrawals of unknown outcome, their notes).
   */
  sync(): Promise<void> {
    return this.bookkeeping.sync();
  }

  /** `get_policy`. */
  getPolicy(): Promise<PolicyView> {
    return readTools.getPolicy(this.context);
  }

  /** `tighten_policy`. */
  async tightenPolicy(change: PolicyTightening): Promise<PolicyView & { changed: string[] }> {
    return this.policy.tighten(change);
  }

  /** `get_balance`, after a sync. */
  getBalance(): Promise<BalanceView> {
    return readTools.getBalance(this.context);
  }

  /**
   * `list_payments`: the newest first, after a sync; this server's and the wallet's own — not the
   * wallet's splits (transfers to its own address: ready notes), which move no value out of it.
   */
  listPayments(limit: number): Promise<PaymentView[]> {
    return readTools.listPayments(this.context, limit);
  }

  /**
   * `withdraw`: exits `amount` out of the pool to `destination`, within the policy (listed
   * destination, `maxPerPayment`, and `maxPer24h` as a reservation in the spend ledger); the change
   * stays in the wallet.
   */
  withdraw(input: WithdrawalInput): Promise<WithdrawalView> {
    return withdraw(this.context, input);
  }

  /** This process's merges and splits in the last minute, and the limit. */
  private transitionRate(now = this.clock()): TransitionRateView {
    while (this.transitionTimes.length > 0 && this.transitionTimes[0]! <= now - 60_000)
      this.transitionTimes.shift();
    return {
      used_last_minute: this.transitionTimes.length,
      limit_per_minute: this.transitionsPerMinute,
    };
  }

  /**
   * Takes one of the minute's merges and splits (synchronously: concurrent calls cannot pass the
   * limit together), or refuses.
   * @returns the slot, to give back when nothing was sent
   * @throws ToolError `rate_limited`
   */
  private takeTransition(): number {
    const now = this.clock();
    const { used_last_minute } = this.transitionRate(now);
    if (used_last_minute >= this.transitionsPerMinute) {
      const wait =
        this.transitionsPerMinute === 0
          ? null
          : Math.max(1, Math.ceil((this.transitionTimes[0]! + 60_000 - now) / 1000));
      throw new ToolError(
        'rate_limited',
        this.transitionsPerMinute === 0
          ? 'this server allows no merges or splits (its limit is 0 per minute)'
          : `this server allows at most ${this.transitionsPerMinute} merges and splits per minute; the next one is possible in ${wait} s`,
      );
    }
    this.transitionTimes.push(now);
    return now;
  }

  private giveBack(slot: number): void {
    const at = this.transitionTimes.indexOf(slot);
    if (at !== -1) this.transitionTimes.splice(at, 1);
  }

  /**
   * Runs a merge or split in one of the minute's slots; the slot is given back when nothing was
   * sent (the sync failed, or the wallet refused before sending).
   */
  private async inSlot<T>(
    work: (send: <R>(transition: () => Promise<R>) => Promise<R>) => Promise<T>,
  ): Promise<T> {
    const slot = this.takeTransition();
    let sent = false;
    try {
      return await work((transition) => {
        sent = true;
        return transition();
      });
    } catch (error) {
      if (!sent || error instanceof WalletError) this.giveBack(slot);
      throw error;
    }
  }

  /**
   * `merge_notes`: merges two of the wallet's notes into one (default: the two smallest spendable).
   * Not spending: the value stays in the wallet; rate-limited per process.
   */
  async mergeNotes(commitments?: readonly [string, string]): Promise<MergeView> {
    return this.inSlot(async (send) => {
      await this.sync();
      const notes = commitments
        ? commitments.map((c) => this.wallet.notes().find((n) => n.commitment === c))
        : spendableNotes(this.wallet)
            .sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1))
            .slice(0, 2);
      const pair = commitments ?? notes.map((n) => n!.commitment as string);
      // Unknown notes, or fewer than two: the wallet refuses, saying why.
      const receipt = await send(() =>
        this.wallet.mergeNotes(pair.length === 2 ? (pair as [string, string]) : undefined),
      );
      const value = notes.reduce((sum, n) => sum + BigInt(n?.value ?? 0), 0n);
      await this.sync().catch(() => undefined);
      return {
        transaction: receipt.transaction,
        merged: pair as [string, string],
        value: value.toString(),
        output_indexes: receipt.outputIndexes,
        rate: this.transitionRate(),
      };
    });
  }

  /**
   * `split_note`: splits one of the wallet's notes into `amount` and the rest (each at least
   * `MIN_OUTPUT_VALUE`). Not spending: the value stays in the wallet; rate-limited per process.
   */
  async splitNote(commitment: string, amount: string): Promise<SplitView> {
    const first = parseAmount(amount);
    if (first === null || first === 0n)
      throw new ToolError(
        'invalid_amount',
        'the amount must be atomic units: a positive decimal integer string below 2^62',
      );
    return this.inSlot(async (send) => {
      await this.sync();
      const note = this.wallet.notes().find((n) => n.commitment === commitment);
      const receipt = await send(() => this.wallet.splitPrivately(commitment, first));
      await this.sync().catch(() => undefined);
      return {
        transaction: receipt.transaction,
        split: commitment,
        parts: [first.toString(), (BigInt(note?.value ?? 0) - first).toString()],
        output_indexes: receipt.outputIndexes,
        rate: this.transitionRate(),
      };
    });
  }

  /** `quote_payment`: what paying would cost and whether the policy allows it; nothing is paid. */
  quote(input: FetchInput): Promise<QuoteView> {
    return quotePayment(this.context, input);
  }

  /** `pay_and_fetch`: pays the URL's 402 within the policy and returns the response. */
  payAndFetch(input: FetchInput, options: PayBounds = {}): Promise<PaidView> {
    return payAndFetch(this.context, input, options);
  }
}
