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
 */

import { x402Client } from '@x402/core/client';
import type {
  PaymentPayloadContext,
  PaymentPayloadResult,
  PaymentRequirements,
  SchemeNetworkClient,
} from '@x402/core/types';
import { wrapFetchWithPayment } from '@x402/fetch';

import {
  compactFallback,
  PAYMENT_SIGNATURE_HEADER,
  PoolNodeError,
  PrivStarkSchemeClient,
  settlementOf,
  type StoredPending,
  type Wallet,
} from '../client/index.js';
import {
  expiryFor,
  type PaymentRequirements as ProfileRequirements,
  resourceIdOf,
  SCHEME,
  TRANSFER_RESOURCE_ID,
} from '../scheme/index.js';
import { PolicyRefusal, ToolError } from './errors.js';
import type { LedgerFile } from './ledger-file.js';
import type { SpendEntry, SpendLedger } from './ledger.js';
import { checkPayment, hostAllowed, hostOf, type Policy, type PolicyTightening } from './policy.js';
import type { PolicySource } from './policy-file.js';
import { payableIndex, type PaymentOption, readPaymentRequired } from './quote.js';
import {
  bodyText,
  type FetchInput,
  merchantFetch,
  parseTarget,
  readBounded,
  recordedUrl,
  requestInit,
} from './request.js';

/** Bounds of `pay_and_fetch`. */
export const DEFAULT_MAX_BYTES = 64 * 1024;
export const MAX_MAX_BYTES = 1024 * 1024;
export const DEFAULT_WAIT_MS = 10_000;
export const MAX_WAIT_MS = 60_000;

/** Options of {@link PaymentAgent}. */
export interface AgentOptions {
  readonly wallet: Wallet;
  readonly policy: PolicySource;
  readonly ledger: LedgerFile;
  /** The fetch to merchants (default `globalThis.fetch`). */
  readonly fetch?: typeof fetch | undefined;
  /** How often the wallet is synced while waiting for a settlement, ms. */
  readonly pollMs?: number | undefined;
  /** Unix ms. */
  readonly clock?: (() => number) | undefined;
}

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
  };
  readonly usage: UsageView;
}

/** A payment as the tools show it. */
export interface PaymentView {
  readonly id: string;
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
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Atomic units as whole units (`12345`, 6 decimals → `0.012345`). */
export function formatUnits(atomic: bigint, decimals: number): string {
  const digits = atomic.toString().padStart(decimals + 1, '0');
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${digits.slice(0, digits.length - decimals)}${fraction ? `.${fraction}` : ''}`;
}

/**
 * The `priv-stark/v1` scheme client with the policy around it, for one tool call: one payment at
 * most, checked and reserved before the wallet builds it.
 */
class PolicedScheme implements SchemeNetworkClient {
  readonly scheme = SCHEME;
  /** Why creating the payment failed (x402 rewraps the error; this keeps the original). */
  failure: unknown = null;
  entry: SpendEntry | null = null;
  readonly findDefaultAsset: PrivStarkSchemeClient['findDefaultAsset'];

  constructor(
    private readonly inner: PrivStarkSchemeClient,
    private readonly policy: PolicySource,
    private readonly ledger: LedgerFile,
    private readonly url: URL,
  ) {
    this.findDefaultAsset = inner.findDefaultAsset;
  }

  async createPaymentPayload(
    x402Version: number,
    requirements: PaymentRequirements,
    context?: PaymentPayloadContext,
  ): Promise<PaymentPayloadResult> {
    try {
      if (this.entry !== null)
        throw new ToolError(
          'payment_repeated',
          'the merchant asked for a second payment in one call; nothing more was paid',
        );
      const policy = await this.policy.current();
      // From here to the reservation nothing awaits: the check and the reservation are one step.
      const amount = /^[0-9]{1,19}$/.test(requirements.amount) ? BigInt(requirements.amount) : -1n;
      if (amount < 0n)
        throw new ToolError('unpayable_requirements', "the merchant's amount is not atomic units");
      const refusal = checkPayment(policy, {
        url: this.url,
        network: requirements.network,
        asset: requirements.asset,
        payTo: requirements.payTo,
        amount,
      });
      if (refusal) throw refusal;
      const entry = this.ledger.ledger.reserve(
        {
          amount,
          network: requirements.network,
          asset: requirements.asset,
          payTo: requirements.payTo,
          host: hostOf(this.url),
          url: recordedUrl(this.url),
        },
        policy.maxPer24h,
      );
      this.entry = entry;
      try {
        await this.ledger.save();
      } catch (error) {
        this.ledger.ledger.release(entry.id);
        throw new ToolError(
          'ledger_unwritable',
          'the spend ledger could not be written, so nothing was paid',
          { cause: error },
        );
      }
      let result: PaymentPayloadResult;
      const known = new Set(this.inner.wallet.payments().map((p) => p.nullifier as string));
      try {
        // The wallet enforces the policy's per-payment maximum as its spend cap too.
        result = await this.inner.createPaymentPayload(x402Version, requirements, {
          ...context,
          maxAmountPerPayment: policy.maxPerPayment.toString(),
        });
      } catch (error) {
        // Nothing left the wallet (it removes its record when proving fails or the pool node
        // refuses the hand-over) — unless a hand-over failed without a clear answer: the node may
        // hold the proof, the wallet keeps the payment pending, and so does the ledger.
        const kept = this.keptRecord(known, requirements);
        if (kept) this.ledger.ledger.markLeft(entry.id, kept.nullifier, kept.expiry);
        else this.ledger.ledger.release(entry.id);
        await this.ledger.save().catch(() => undefined);
        throw error;
      }
      const payload = result.payload as { nullifier: string; expiry: number };
      this.ledger.ledger.markLeft(entry.id, payload.nullifier, payload.expiry);
      // Should this save fail, the next start links the reservation to the wallet's record.
      await this.ledger.save().catch(() => undefined);
      return result;
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  /**
   * The pending record a failed payment left in the wallet: new since `known`, for these
   * requirements, linked to no entry of the ledger.
   */
  private keptRecord(
    known: ReadonlySet<string>,
    requirements: PaymentRequirements,
  ): StoredPending | undefined {
    const linked = new Set(this.ledger.ledger.entries().map((e) => e.nullifier));
    const resourceId = resourceIdOf(requirements as unknown as ProfileRequirements);
    return this.inner.wallet
      .payments()
      .find(
        (p) =>
          p.status === 'pending' &&
          !known.has(p.nullifier) &&
          !linked.has(p.nullifier) &&
          p.amount === requirements.amount &&
          p.payTo === requirements.payTo &&
          p.resourceId === resourceId,
      );
  }
}

/** The tools' logic. */
export class PaymentAgent {
  readonly wallet: Wallet;
  private readonly policySource: PolicySource;
  private readonly ledgerFile: LedgerFile;
  private readonly fetchImpl: typeof fetch;
  private readonly pollMs: number;
  private readonly clock: () => number;

  constructor(options: AgentOptions) {
    this.wallet = options.wallet;
    this.policySource = options.policy;
    this.ledgerFile = options.ledger;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.pollMs = options.pollMs ?? 250;
    this.clock = options.clock ?? Date.now;
  }

  private get ledger(): SpendLedger {
    return this.ledgerFile.ledger;
  }

  /**
   * Links what a previous run left reserved to the wallet's records (or releases it), then syncs.
   * Call once before serving.
   */
  async start(): Promise<void> {
    if (this.ledger.recover(this.wallet.payments())) await this.ledgerFile.save();
    await this.sync().catch(() => undefined);
  }

  /** Syncs the wallet with the pool and follows its payment records in the ledger. */
  async sync(): Promise<void> {
    await this.wallet.sync();
    const changed = this.ledger.reconcile(this.wallet.payments());
    if (this.ledger.prune() || changed) await this.ledgerFile.save();
  }

  private usage(policy: Policy): UsageView {
    const counted = this.ledger.counted();
    const remaining = policy.maxPer24h > counted ? policy.maxPer24h - counted : 0n;
    const unresolved = this.ledger
      .entries()
      .filter((e) => e.status === 'reserved' || e.status === 'left').length;
    return {
      counted_24h: counted.toString(),
      remaining_24h: remaining.toString(),
      unresolved_payments: unresolved,
    };
  }

  private policyView(policy: Policy): PolicyView {
    return {
      policy: {
        max_per_payment: policy.maxPerPayment.toString(),
        max_per_24h: policy.maxPer24h.toString(),
        hosts: policy.hosts,
        recipients: policy.recipients,
        networks: policy.networks,
        assets: policy.assets,
      },
      usage: this.usage(policy),
    };
  }

  /** `get_policy`. */
  async getPolicy(): Promise<PolicyView> {
    return this.policyView(await this.policySource.current());
  }

  /** `tighten_policy`. */
  async tightenPolicy(change: PolicyTightening): Promise<PolicyView & { changed: string[] }> {
    const { policy, changed } = await this.policySource.tighten(change);
    return { ...this.policyView(policy), changed };
  }

  /** `get_balance`, after a sync. */
  async getBalance(): Promise<BalanceView> {
    await this.sync();
    const balance = this.wallet.balance();
    const notes = this.wallet.notes();
    const largest = this.largestSpendableNote();
    const { asset, decimals, network } = this.wallet.network;
    return {
      asset,
      decimals,
      network,
      spendable: balance.spendable.toString(),
      pending: balance.pending.toString(),
      unconfirmed: balance.unconfirmed.toString(),
      total: balance.total.toString(),
      spendable_display: `${formatUnits(balance.spendable, decimals)} ${asset}`,
      notes: notes.length,
      largest_spendable_note: largest.toString(),
      checkpoint: this.wallet.checkpoint?.seq ?? null,
      synced_at: iso(this.clock()),
    };
  }

  /** The largest note a payment can spend now (in a checkpoint, not locked): v1 spends one note. */
  private largestSpendableNote(): bigint {
    const anchored = this.wallet.checkpoint?.size ?? 0;
    const locked = this.wallet.lockedNotes();
    let largest = 0n;
    for (const note of this.wallet.notes())
      if (note.index < anchored && !locked.has(note.commitment) && BigInt(note.value) > largest)
        largest = BigInt(note.value);
    return largest;
  }

  private paymentView(
    entry: SpendEntry | undefined,
    record: StoredPending | undefined,
  ): PaymentView {
    const status = record
      ? record.status
      : entry!.status === 'left'
        ? 'pending'
        : (entry!.status as PaymentView['status']);
    return {
      id: entry?.id ?? `wallet:${record!.nullifier.slice(2, 18)}`,
      status,
      amount: entry?.amount ?? record!.amount,
      asset: entry?.asset ?? this.wallet.network.asset,
      network: entry?.network ?? this.wallet.network.network,
      pay_to: entry?.payTo ?? record!.payTo,
      host: entry?.host ?? null,
      url: entry?.url ?? null,
      resource_id: record?.resourceId || null,
      created_at: iso(entry?.reservedAt ?? record!.createdAt),
      expiry:
        (record?.expiry ?? entry?.expiry) !== undefined
          ? iso((record?.expiry ?? entry!.expiry!) * 1000)
          : null,
      settlement_id: record?.settlementId ?? entry?.settlementId ?? null,
    };
  }

  /**
   * `list_payments`: the newest first, after a sync; this server's and the wallet's own — not the
   * wallet's splits (transfers to its own address: ready notes), which move no value out of it.
   */
  async listPayments(limit: number): Promise<PaymentView[]> {
    await this.sync();
    const own = this.wallet.address;
    const records = this.wallet
      .payments()
      .filter((r) => !(r.resourceId === TRANSFER_RESOURCE_ID && r.payTo === own));
    const byNullifier = new Map(records.map((r) => [r.nullifier as string, r]));
    const views: { at: number; view: PaymentView }[] = [];
    const shown = new Set<string>();
    for (const entry of this.ledger.entries()) {
      if (entry.status === 'released') continue;
      const record = entry.nullifier === undefined ? undefined : byNullifier.get(entry.nullifier);
      if (record) shown.add(record.nullifier);
      views.push({ at: entry.reservedAt, view: this.paymentView(entry, record) });
    }
    for (const record of records)
      if (!shown.has(record.nullifier))
        views.push({ at: record.createdAt, view: this.paymentView(undefined, record) });
    return views
      .sort((a, b) => b.at - a.at)
      .slice(0, limit)
      .map((v) => v.view);
  }

  /** A 402 must offer something this wallet pays; anything else is refused before paying. */
  private preflight(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const request = new Request(input, init);
      const response = await inner(request);
      if (response.status === 402 && !request.headers.has(PAYMENT_SIGNATURE_HEADER)) {
        const required = readPaymentRequired(response);
        if (payableIndex(required.options, this.wallet.network.network) < 0)
          throw this.noPayableOption(required.options);
      }
      return response;
    };
  }

  private noPayableOption(options: readonly PaymentOption[]): ToolError {
    const offered = options.map((o) => `${o.scheme} on ${o.network}`).join(', ') || 'nothing';
    return new ToolError(
      'no_payable_option',
      `the merchant offers ${offered}; this wallet pays ${SCHEME} on ${this.wallet.network.network}`,
    );
  }

  /** `quote_payment`: what paying would cost and whether the policy allows it; nothing is paid. */
  async quote(input: FetchInput): Promise<QuoteView> {
    const url = parseTarget(input.url);
    const init = requestInit(input);
    const policy = await this.policySource.current();
    const usage = this.usage(policy);
    const empty = { options: [], selected: null, payment: null, wallet_can_pay: false, usage };
    if (!hostAllowed(policy, url)) {
      // The host is not contacted at all.
      const refusal = new PolicyRefusal(
        'host_not_allowed',
        'hosts',
        `the policy does not allow paying ${hostOf(url)}: it is not in the policy's hosts`,
      );
      return {
        url: url.href,
        status: 0,
        payment_required: false,
        allowed: false,
        refusal: { code: refusal.code, rule: refusal.rule, message: refusal.message },
        ...empty,
      };
    }
    let response: Response;
    try {
      response = await merchantFetch(this.fetchImpl)(url.href, init);
    } catch (error) {
      throw new ToolError(
        'fetch_failed',
        `could not reach ${hostOf(url)}: ${(error as Error).message.slice(0, 200)}`,
        { cause: error },
      );
    }
    if (response.status !== 402) {
      await response.body?.cancel().catch(() => undefined);
      return {
        url: url.href,
        status: response.status,
        payment_required: false,
        allowed: true,
        refusal: null,
        ...empty,
      };
    }
    const required = readPaymentRequired(response);
    const index = payableIndex(required.options, this.wallet.network.network);
    if (index < 0) {
      const refusal = this.noPayableOption(required.options);
      return {
        url: url.href,
        status: 402,
        payment_required: true,
        allowed: false,
        refusal: { code: refusal.code, rule: null, message: refusal.message },
        ...empty,
        options: required.options,
      };
    }
    const option = required.options[index]!;
    const amount = BigInt(option.amount);
    let refusal: PolicyRefusal | null = checkPayment(policy, {
      url,
      network: option.network,
      asset: option.asset,
      payTo: option.pay_to,
      amount,
    });
    const counted = this.ledger.counted();
    if (!refusal && counted + amount > policy.maxPer24h) {
      refusal = new PolicyRefusal(
        'rolling_24h_limit',
        'maxPer24h',
        `paying ${amount} would take the last 24 hours' spending to ${counted + amount}, above the policy's maxPer24h of ${policy.maxPer24h}`,
      );
    }
    const canPay = this.largestSpendableNote() >= amount;
    return {
      url: url.href,
      status: 402,
      payment_required: true,
      options: required.options,
      selected: index,
      payment: {
        amount: option.amount,
        asset: option.asset,
        network: option.network,
        pay_to: option.pay_to,
        expiry: iso(expiryFor(Math.floor(this.clock() / 1000), option.max_timeout_seconds) * 1000),
      },
      allowed: refusal === null,
      refusal: refusal
        ? { code: refusal.code, rule: refusal.rule, message: refusal.message }
        : null,
      wallet_can_pay: canPay,
      usage,
    };
  }

  /** `pay_and_fetch`: pays the URL's 402 within the policy and returns the response. */
  async payAndFetch(
    input: FetchInput,
    options: { maxBytes?: number | undefined; waitMs?: number | undefined } = {},
  ): Promise<PaidView> {
    const url = parseTarget(input.url);
    const init = requestInit(input);
    const maxBytes = Math.min(MAX_MAX_BYTES, Math.max(0, options.maxBytes ?? DEFAULT_MAX_BYTES));
    const waitMs = Math.min(MAX_WAIT_MS, Math.max(0, options.waitMs ?? DEFAULT_WAIT_MS));
    const policy = await this.policySource.current();
    if (!hostAllowed(policy, url)) {
      throw new PolicyRefusal(
        'host_not_allowed',
        'hosts',
        `the policy does not allow paying ${hostOf(url)}: it is not in the policy's hosts; nothing was fetched or paid`,
      );
    }
    const scheme = new PolicedScheme(
      new PrivStarkSchemeClient(this.wallet),
      this.policySource,
      this.ledgerFile,
      url,
    );
    const network = this.wallet.network.network as `${string}:${string}`;
    // x402's own caps are replaced by the policy (checked in the scheme above, and passed to the wallet as its cap).
    const client = new x402Client().register(network, scheme).setSpendControls(false);
    // Compact where the merchant lists `reference` (the wallet decides); an inline payment refused
    // for its size is handed over and sent once more, under the same pending record.
    const pay = wrapFetchWithPayment(
      compactFallback(this.wallet, this.preflight(merchantFetch(this.fetchImpl))),
      client,
    );
    let response: Response;
    try {
      response = await pay(url.href, init);
    } catch (error) {
      if (scheme.failure !== null) throw scheme.failure;
      const left = scheme.entry === null ? '' : this.leftNote(scheme.entry.id);
      if (
        error instanceof ToolError ||
        error instanceof PoolNodeError ||
        (error as { code?: unknown }).code === 'payment_header_too_large'
      ) {
        if (left) (error as Error).message += left;
        throw error;
      }
      throw new ToolError(
        'fetch_failed',
        `the request to ${hostOf(url)} failed: ${(error as Error).message.slice(0, 200)}${left}`,
        { cause: error },
      );
    }
    let read: { bytes: Uint8Array; truncated: boolean };
    try {
      read = await readBounded(response, maxBytes);
    } catch (error) {
      const left = scheme.entry === null ? '' : this.leftNote(scheme.entry.id);
      throw new ToolError(
        'fetch_failed',
        `the response from ${hostOf(url)} could not be read (HTTP ${response.status})${left}`,
        { cause: error },
      );
    }
    const { bytes, truncated } = read;
    const contentType = (response.headers.get('content-type') ?? '').slice(0, 200);
    const claim = settlementOf(response);
    let payment: PaymentView | null = null;
    const entry = scheme.entry;
    if (entry) {
      if (response.status !== 402) await this.waitForResolution(entry.id, waitMs);
      payment = this.entryView(entry.id);
      if (response.status === 402) {
        const reason = (() => {
          try {
            return readPaymentRequired(response).error;
          } catch {
            return null;
          }
        })();
        throw new ToolError(
          'payment_not_accepted',
          `the merchant answered 402 to the payment${reason ? ` (${reason})` : ''}: nothing was delivered. The payment of ${entry.amount} stays pending until the pool's clock passes its expiry (${payment.expiry}) with no settlement, then its note returns to the balance; it counts against the 24-hour limit until then`,
        );
      }
    }
    const text = bodyText(bytes, contentType);
    return {
      url: url.href,
      status: response.status,
      ok: response.ok,
      content_type: contentType,
      body: text.body,
      body_encoding: text.encoding,
      bytes: bytes.length,
      truncated,
      location:
        response.status >= 300 && response.status < 400
          ? (response.headers.get('location') ?? '').slice(0, 2000) || null
          : null,
      paid: entry !== null,
      payment,
      merchant_claim: claim
        ? {
            success: claim.success === true,
            transaction: String(claim.transaction ?? '').slice(0, 200),
          }
        : null,
    };
  }

  private entryView(id: string): PaymentView {
    const entry = this.ledger.entries().find((e) => e.id === id)!;
    const record =
      entry.nullifier === undefined
        ? undefined
        : this.wallet.payments().find((p) => p.nullifier === entry.nullifier);
    return this.paymentView(entry, record);
  }

  private leftNote(id: string): string {
    const view = this.entryView(id);
    return view.status === 'pending'
      ? ` — the payment of ${view.amount} was handed out and stays pending until the pool's log settles it or its expiry (${view.expiry}) passes`
      : '';
  }

  /** Syncs until the pool's log resolves the payment or `waitMs` passes. */
  private async waitForResolution(id: string, waitMs: number): Promise<void> {
    const deadline = this.clock() + waitMs;
    for (;;) {
      await this.sync().catch(() => undefined);
      const entry = this.ledger.entries().find((e) => e.id === id);
      if (entry?.status !== 'left' || this.clock() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }
}
