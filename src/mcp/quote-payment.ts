/**
 * @module `quote_payment`: what paying a URL would cost and whether the policy allows it now,
 * nothing paid. A host the policy does not allow is not contacted; a 402 is read without paying
 * (quote.ts), and the option this wallet would pay is checked as a payment would be, the rolling
 * 24-hour limit included.
 */

import { expiryFor } from '../scheme/index.js';
import type { AgentContext } from './agent-context.js';
import { ToolError } from './errors.js';
import { hostOf, type Policy } from './policy.js';
import { noPayableOption, type PaymentOption, payableIndex, readPaymentRequired } from './quote.js';
import { type FetchInput, merchantFetch, parseTarget, requestInit } from './request.js';
import { largestSpendableNote } from './spendable-notes.js';
import { iso, type QuoteView, type UsageView } from './views.js';

/** `quote_payment`: what paying would cost and whether the policy allows it; nothing is paid. */
export async function quotePayment(ctx: AgentContext, input: FetchInput): Promise<QuoteView> {
  const url = parseTarget(input.url);
  const init = requestInit(input);
  const policy = await ctx.policy.current();
  const usage = ctx.policy.usage(policy);
  const empty = { options: [], selected: null, payment: null, wallet_can_pay: false, usage };
  const hostRefusal = ctx.policy.hostRefusal(policy, url);
  if (hostRefusal) {
    // The host is not contacted at all.
    return {
      url: url.href,
      status: 0,
      payment_required: false,
      allowed: false,
      refusal: { code: hostRefusal.code, rule: hostRefusal.rule, message: hostRefusal.message },
      ...empty,
    };
  }
  const response = await fetchUnpaid(ctx, url, init);
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
  const index = payableIndex(required.options, ctx.wallet.network.network);
  if (index < 0) {
    const refusal = noPayableOption(required.options, ctx.wallet.network.network);
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
  return payableQuote(ctx, { policy, url, options: required.options, index, usage });
}

/**
 * The URL fetched without paying.
 * @throws ToolError `fetch_failed` when the merchant cannot be reached
 */
async function fetchUnpaid(ctx: AgentContext, url: URL, init: RequestInit): Promise<Response> {
  try {
    return await merchantFetch(ctx.fetchImpl)(url.href, init);
  } catch (error) {
    throw new ToolError(
      'fetch_failed',
      `could not reach ${hostOf(url)}: ${(error as Error).message.slice(0, 200)}`,
      { cause: error },
    );
  }
}

/** The quote of a 402 with an option this wallet pays (`index`): its cost, the policy's verdict. */
function payableQuote(
  ctx: AgentContext,
  quoted: {
    readonly policy: Policy;
    readonly url: URL;
    readonly options: PaymentOption[];
    readonly index: number;
    readonly usage: UsageView;
  },
): QuoteView {
  const { policy, url, options, index, usage } = quoted;
  const option = options[index]!;
  const amount = BigInt(option.amount);
  const refusal = ctx.policy.paymentRefusal(policy, {
    url,
    network: option.network,
    asset: option.asset,
    payTo: option.pay_to,
    amount,
  });
  const canPay = largestSpendableNote(ctx.wallet) >= amount;
  return {
    url: url.href,
    status: 402,
    payment_required: true,
    options,
    selected: index,
    payment: {
      amount: option.amount,
      asset: option.asset,
      network: option.network,
      pay_to: option.pay_to,
      expiry: iso(expiryFor(Math.floor(ctx.clock() / 1000), option.max_timeout_seconds) * 1000),
    },
    allowed: refusal === null,
    refusal: refusal ? { code: refusal.code, rule: refusal.rule, message: refusal.message } : null,
    wallet_can_pay: canPay,
    usage,
  };
}
