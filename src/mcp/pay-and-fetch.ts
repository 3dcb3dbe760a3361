/**
 * @module `pay_and_fetch`: pays a URL's 402 within the policy and returns the response. A payment
 * goes only one way — the stock `@x402/fetch` over an `x402Client` holding the policed
 * `priv-stark/v1` scheme client (policed-scheme.ts), to the merchant, whose facilitator verifies
 * and settles it. It counts as made only when the pool's log shows it (the wallet's pending
 * record): the tool waits a bounded time for that; until then it stays reserved, and an unsettled
 * one returns to the balance at its expiry.
 */

import { x402Client } from '@x402/core/client';
import { wrapFetchWithPayment } from '@x402/fetch';

import {
  compactFallback,
  PAYMENT_SIGNATURE_HEADER,
  PoolNodeError,
  PrivStarkSchemeClient,
  settlementOf,
} from '../client/index.js';
import type { AgentContext } from './agent-context.js';
import { ToolError } from './errors.js';
import { PolicedScheme } from './policed-scheme.js';
import { hostOf } from './policy.js';
import { noPayableOption, payableIndex, readPaymentRequired } from './quote.js';
import {
  bodyText,
  type FetchInput,
  merchantFetch,
  parseTarget,
  readBounded,
  requestInit,
} from './request.js';
import type { SpendEntry } from './spend-ledger.js';
import type { PaidView, PaymentView } from './views.js';

/** Bounds of `pay_and_fetch`. */
export const DEFAULT_MAX_BYTES = 64 * 1024;
export const MAX_MAX_BYTES = 1024 * 1024;
export const DEFAULT_WAIT_MS = 10_000;
export const MAX_WAIT_MS = 60_000;

/** How much of the response `pay_and_fetch` returns, and how long it waits for the pool's log. */
export interface PayBounds {
  readonly maxBytes?: number | undefined;
  readonly waitMs?: number | undefined;
}

/** `pay_and_fetch`: pays the URL's 402 within the policy and returns the response. */
export async function payAndFetch(
  ctx: AgentContext,
  input: FetchInput,
  options: PayBounds = {},
): Promise<PaidView> {
  const url = parseTarget(input.url);
  const init = requestInit(input);
  const maxBytes = Math.min(MAX_MAX_BYTES, Math.max(0, options.maxBytes ?? DEFAULT_MAX_BYTES));
  const waitMs = Math.min(MAX_WAIT_MS, Math.max(0, options.waitMs ?? DEFAULT_WAIT_MS));
  const policy = await ctx.policy.current();
  const refusal = ctx.policy.hostRefusal(policy, url, '; nothing was fetched or paid');
  if (refusal) throw refusal;
  const scheme = new PolicedScheme(
    new PrivStarkSchemeClient(ctx.wallet),
    ctx.policy,
    ctx.bookkeeping,
    url,
  );
  const response = await fetchPaying(ctx, scheme, url, init);
  const { bytes, truncated } = await readResponse(ctx, scheme.entry, url, response, maxBytes);
  const contentType = (response.headers.get('content-type') ?? '').slice(0, 200);
  const claim = settlementOf(response);
  const entry = scheme.entry;
  const payment = entry === null ? null : await paymentOutcome(ctx, entry, response, waitMs);
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

/**
 * The URL fetched through x402's client, its 402 paid by the policed scheme.
 * @throws the scheme's own failure as it was (a refusal, an unwritable spend ledger, the wallet's
 *   error); a ToolError, PoolNodeError or a header too large as they are; ToolError `fetch_failed`
 *   otherwise — each saying so when the payment was handed out
 */
async function fetchPaying(
  ctx: AgentContext,
  scheme: PolicedScheme,
  url: URL,
  init: RequestInit,
): Promise<Response> {
  const network = ctx.wallet.network.network as `${string}:${string}`;
  // x402's own caps are replaced by the policy (checked in the policed scheme, and passed to the
  // wallet as its cap).
  const client = new x402Client().register(network, scheme).setSpendControls(false);
  // Compact where the merchant lists `reference` (the wallet decides); an inline payment refused
  // for its size is handed over and sent once more, under the same pending record.
  const pay = wrapFetchWithPayment(
    compactFallback(ctx.wallet, preflight(ctx, merchantFetch(ctx.fetchImpl))),
    client,
  );
  try {
    return await pay(url.href, init);
  } catch (error) {
    if (scheme.failure !== null) throw scheme.failure;
    const left = leftNote(ctx, scheme.entry);
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
}

/** A 402 must offer something this wallet pays; anything else is refused before paying. */
function preflight(ctx: AgentContext, inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await inner(request);
    if (response.status === 402 && !request.headers.has(PAYMENT_SIGNATURE_HEADER)) {
      const required = readPaymentRequired(response);
      if (payableIndex(required.options, ctx.wallet.network.network) < 0)
        throw noPayableOption(required.options, ctx.wallet.network.network);
    }
    return response;
  };
}

/**
 * The response's body, at most `maxBytes`.
 * @throws ToolError `fetch_failed` when it cannot be read
 */
async function readResponse(
  ctx: AgentContext,
  entry: SpendEntry | null,
  url: URL,
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  try {
    return await readBounded(response, maxBytes);
  } catch (error) {
    throw new ToolError(
      'fetch_failed',
      `the response from ${hostOf(url)} could not be read (HTTP ${response.status})${leftNote(ctx, entry)}`,
      { cause: error },
    );
  }
}

/**
 * The payment as the pool's log shows it once the merchant answered: waited for (up to `waitMs`)
 * when the merchant delivered.
 * @throws ToolError `payment_not_accepted` when the merchant answered the payment with a 402
 */
async function paymentOutcome(
  ctx: AgentContext,
  entry: SpendEntry,
  response: Response,
  waitMs: number,
): Promise<PaymentView> {
  if (response.status !== 402) await ctx.bookkeeping.waitForResolution(entry.id, waitMs);
  const payment = ctx.bookkeeping.entryView(entry.id);
  if (response.status !== 402) return payment;
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

/** What a failure's message adds when the payment was handed out and stays pending ('' if not). */
function leftNote(ctx: AgentContext, entry: SpendEntry | null): string {
  if (entry === null) return '';
  const view = ctx.bookkeeping.entryView(entry.id);
  return view.status === 'pending'
    ? ` — the payment of ${view.amount} was handed out and stays pending until the pool's log settles it or its expiry (${view.expiry}) passes`
    : '';
}
