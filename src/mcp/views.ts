/**
 * @module What the MCP tools answer, as their `outputSchema`s declare it: the policy and the usage of
 * its rolling 24-hour limit, a quote, a paid response, the balance, the payments and withdrawals,
 * merges and splits. Amounts are atomic units in decimal strings, times ISO 8601.
 */

import type { StoredPending } from '../client/index.js';
import type { PaymentOption } from './quote.js';
import type { SpendEntry } from './spend-ledger.js';

/** Spendable notes `get_balance` lists at most (the largest first). */
export const MAX_LISTED_NOTES = 100;

/** The 24-hour usage. Amounts are atomic units. */
export interface UsageView {
  readonly counted_24h: string;
  readonly remaining_24h: string;
  /** Reservations and payments out that the pool's log has not resolved yet. */
  readonly unresolved_payments: number;
}

/** The policy as the tools show it. */
export interface PolicyView {
  readonly policy: {
    readonly max_per_payment: string;
    readonly max_per_24h: string;
    readonly hosts: readonly string[] | '*';
    readonly recipients: readonly string[] | '*';
    readonly networks: readonly string[];
    readonly assets: readonly string[];
    readonly withdrawal_destinations: readonly string[];
  };
  readonly usage: UsageView;
}

/** A payment (or withdrawal) as the tools show it. */
export interface PaymentView {
  readonly id: string;
  /** `withdrawal`: an exit out of the pool to `pay_to`, a CAIP-10 account id. */
  readonly kind: 'payment' | 'withdrawal';
  /** `reserved` (being built), `pending` (out, not settled in the pool's log yet), `settled`, `expired` (never settled; the note is back). */
  readonly status: 'reserved' | 'pending' | 'settled' | 'expired';
  readonly amount: string;
  readonly asset: string;
  readonly network: string;
  readonly pay_to: string;
  readonly host: string | null;
  readonly url: string | null;
  readonly resource_id: string | null;
  readonly created_at: string;
  readonly expiry: string | null;
  /** The settlement in the pool's log (the merchant's claim is not taken). */
  readonly settlement_id: string | null;
}

/** What `quote_payment` answers. */
export interface QuoteView {
  readonly url: string;
  readonly status: number;
  readonly payment_required: boolean;
  readonly options: PaymentOption[];
  /** Index of the option `pay_and_fetch` would pay, `null` when none is payable by this wallet. */
  readonly selected: number | null;
  readonly payment: {
    readonly amount: string;
    readonly asset: string;
    readonly network: string;
    readonly pay_to: string;
    readonly expiry: string;
  } | null;
  /** Whether the policy allows paying it now (including the rolling 24-hour limit). */
  readonly allowed: boolean;
  readonly refusal: {
    readonly code: string;
    readonly rule: string | null;
    readonly message: string;
  } | null;
  /** Whether one spendable note covers it (v1 spends one note per payment). */
  readonly wallet_can_pay: boolean;
  readonly usage: UsageView;
}

/** What `pay_and_fetch` answers. */
export interface PaidView {
  readonly url: string;
  readonly status: number;
  readonly ok: boolean;
  readonly content_type: string;
  readonly body: string;
  readonly body_encoding: 'utf8' | 'base64';
  readonly bytes: number;
  readonly truncated: boolean;
  /** A redirect's target (redirects are not followed). */
  readonly location: string | null;
  readonly paid: boolean;
  readonly payment: PaymentView | null;
  /** The merchant's `PAYMENT-RESPONSE`: informational only. */
  readonly merchant_claim: { readonly success: boolean; readonly transaction: string } | null;
}

/** What `get_balance` answers. Amounts are atomic units. */
export interface BalanceView {
  readonly asset: string;
  readonly decimals: number;
  readonly network: string;
  readonly spendable: string;
  readonly pending: string;
  readonly unconfirmed: string;
  readonly total: string;
  readonly spendable_display: string;
  readonly notes: number;
  readonly largest_spendable_note: string;
  readonly checkpoint: number | null;
  readonly synced_at: string;
  /** The notes a payment, merge, split or withdrawal can spend now, the largest first (at most {@link MAX_LISTED_NOTES}). */
  readonly spendable_notes: readonly { readonly commitment: string; readonly value: string }[];
}

/** What `withdraw` answers. Amounts are atomic units. */
export interface WithdrawalView {
  /** Its entry in the spend ledger (as `list_payments` shows it). */
  readonly id: string;
  readonly status: 'settled';
  readonly amount: string;
  readonly asset: string;
  readonly network: string;
  readonly destination: string;
  /** The pool's id of the exit (its transition); the operator's payout follows. */
  readonly transaction: string;
  /** The change left in the wallet (0: the whole note left). */
  readonly change: string;
  /** What links the exit to the wallet's deposits (said, and confirmed, before it was made). */
  readonly warnings: readonly string[];
  readonly usage: UsageView;
}

/** A deposit into the pool's escrow from the server's EVM account. */
export interface DepositView {
  /** The escrow's index of the deposit (`null` while not mined). */
  readonly deposit: number | null;
  readonly amount: string;
  /** What the relayer took. */
  readonly fee: string;
  /** The EVM account that paid. */
  readonly depositor: string;
  readonly transaction: string | null;
  readonly mined: boolean;
  readonly network: string;
  readonly asset: string;
}

/** How many merges and splits this process has made in the last minute, and may. */
export interface TransitionRateView {
  readonly used_last_minute: number;
  readonly limit_per_minute: number;
}

/** What `merge_notes` answers. */
export interface MergeView {
  readonly transaction: string;
  /** The two notes spent. */
  readonly merged: readonly [string, string];
  /** The new note's value (their sum). */
  readonly value: string;
  readonly output_indexes: readonly [number, number];
  readonly rate: TransitionRateView;
}

/** What `split_note` answers. */
export interface SplitView {
  readonly transaction: string;
  /** The note spent. */
  readonly split: string;
  /** The two new notes' values: the amount asked for, and the rest. */
  readonly parts: readonly [string, string];
  readonly output_indexes: readonly [number, number];
  readonly rate: TransitionRateView;
}

/** Unix ms as the tools show a time. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Atomic units as whole units (`12345`, 6 decimals → `0.012345`). */
export function formatUnits(atomic: bigint, decimals: number): string {
  const digits = atomic.toString().padStart(decimals + 1, '0');
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${digits.slice(0, digits.length - decimals)}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A spend-ledger entry, a wallet's payment record or both (linked by the nullifier) as the tools
 * show it: the record's status wins, as it follows the pool's log.
 * @param network what the wallet pays in, for a record with no entry
 */
export function paymentView(
  entry: SpendEntry | undefined,
  record: StoredPending | undefined,
  network: { readonly asset: string; readonly network: string },
): PaymentView {
  const status = record
    ? record.status
    : entry!.status === 'left'
      ? 'pending'
      : (entry!.status as PaymentView['status']);
  return {
    id: entry?.id ?? `wallet:${record!.nullifier.slice(2, 18)}`,
    kind: entry?.kind ?? 'payment',
    status,
    amount: entry?.amount ?? record!.amount,
    asset: entry?.asset ?? network.asset,
    network: entry?.network ?? network.network,
    pay_to: entry?.payTo ?? record!.payTo,
    host: entry?.host || null,
    url: entry?.url || null,
    resource_id: record?.resourceId || null,
    created_at: iso(entry?.reservedAt ?? record!.createdAt),
    expiry:
      (record?.expiry ?? entry?.expiry) !== undefined
        ? iso((record?.expiry ?? entry!.expiry!) * 1000)
        : null,
    settlement_id: record?.settlementId ?? entry?.settlementId ?? null,
  };
}
