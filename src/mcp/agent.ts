/**
 * @module What the MCP tools do, apart from the protocol: `PaymentAgent`, a facade over parts with
 * one concern each, built once over the context they share (agent-context.ts) —
 *
 * - policy evaluation (policy-evaluation.ts): the policy in force, its 24-hour usage, the refusals
 *   shown or thrown before anything is fetched;
 * - the spend ledger's bookkeeping (spend-bookkeeping.ts): reservations written before the wallet
 *   builds anything, the spend ledger following the wallet's records after each sync and restart;
 * - the tools that read (read-tools.ts): the balance, the payments, the policy;
 * - payment execution: `quote_payment` (quote-payment.ts), `pay_and_fetch` (pay-and-fetch.ts, over
 *   the policed scheme client of policed-scheme.ts), `withdraw` (withdrawal.ts), `merge_notes` and
 *   `split_note` (note-transitions.ts, rate-limited per process), `deposit` (deposit.ts: from the
 *   operator's EVM account into a chain pool's escrow).
 *
 * A payment goes only one way — the stock `@x402/fetch` to the merchant, whose facilitator verifies
 * and settles it — and counts as made only when the pool's log shows it.
 */

import type { Wallet } from '../client/index.js';
import type { AgentContext } from './agent-context.js';
import {
  DEFAULT_TRANSITIONS_PER_MINUTE,
  mergeNotes,
  splitNote,
  TransitionRate,
} from './note-transitions.js';
import { type PayBounds, payAndFetch } from './pay-and-fetch.js';
import type { PolicyTightening } from './policy.js';
import { PolicyEvaluation } from './policy-evaluation.js';
import type { PolicySource } from './policy-file.js';
import { quotePayment } from './quote-payment.js';
import * as readTools from './read-tools.js';
import type { FetchInput } from './request.js';
import { SpendBookkeeping } from './spend-bookkeeping.js';
import type { LedgerFile } from './spend-ledger-file.js';
import type {
  BalanceView,
  DepositView,
  MergeView,
  PaidView,
  PaymentView,
  PolicyView,
  QuoteView,
  SplitView,
  WithdrawalView,
} from './views.js';
import { type DepositConfig, type DepositInput, deposit } from './deposit.js';
import { type WithdrawalInput, withdraw } from './withdrawal.js';

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
  /**
   * The EVM account and RPC the `deposit` tool pays from (the operator's configuration, never a
   * tool's input); without them `deposit` is refused.
   */
  readonly deposits?: DepositConfig | undefined;
}

/** The tools' logic: each method one call into the part that owns it. */
export class PaymentAgent {
  readonly wallet: Wallet;
  private readonly context: AgentContext;
  private readonly transitionRate: TransitionRate;
  private readonly deposits: DepositConfig | undefined;

  constructor(options: AgentOptions) {
    this.wallet = options.wallet;
    this.deposits = options.deposits;
    const clock = options.clock ?? Date.now;
    const bookkeeping = new SpendBookkeeping(
      options.wallet,
      options.ledger,
      clock,
      options.pollMs ?? 250,
    );
    this.context = {
      wallet: options.wallet,
      policy: new PolicyEvaluation(options.policy, bookkeeping.spendLedger),
      bookkeeping,
      fetchImpl: options.fetch ?? globalThis.fetch,
      clock,
    };
    this.transitionRate = new TransitionRate(
      options.transitionsPerMinute ?? DEFAULT_TRANSITIONS_PER_MINUTE,
      clock,
    );
  }

  /**
   * Links what a previous run left reserved to the wallet's records (or releases it), then syncs.
   * Call once before serving.
   */
  start(): Promise<void> {
    return this.context.bookkeeping.start();
  }

  /**
   * Syncs the wallet with the pool and follows its payment records in the spend ledger (and, for
   * withdrawals of unknown outcome, their notes).
   */
  sync(): Promise<void> {
    return this.context.bookkeeping.sync();
  }

  /** `get_policy`. */
  getPolicy(): Promise<PolicyView> {
    return readTools.getPolicy(this.context);
  }

  /** `tighten_policy`. */
  tightenPolicy(change: PolicyTightening): Promise<PolicyView & { changed: string[] }> {
    return this.context.policy.tighten(change);
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

  /**
   * `deposit`: pays into the pool's escrow from the configured EVM account, by signature through
   * the pool's relayer, within the policy's caps.
   */
  deposit(input: DepositInput): Promise<DepositView> {
    return deposit(this.context, this.deposits, input);
  }

  /**
   * `merge_notes`: merges two of the wallet's notes into one (default: the two smallest spendable).
   * Not spending: the value stays in the wallet; rate-limited per process.
   */
  mergeNotes(commitments?: readonly [string, string]): Promise<MergeView> {
    return mergeNotes(this.context, this.transitionRate, commitments);
  }

  /**
   * `split_note`: splits one of the wallet's notes into `amount` and the rest (each at least
   * `MIN_OUTPUT_VALUE`). Not spending: the value stays in the wallet; rate-limited per process.
   */
  splitNote(commitment: string, amount: string): Promise<SplitView> {
    return splitNote(this.context, this.transitionRate, commitment, amount);
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
