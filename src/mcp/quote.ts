/**
 * @module A merchant's 402, read without paying: its payment options (strings from the merchant
 * are bounded and checked, never trusted) and the one this wallet would pay — the first
 * `priv-stark/v1` option on the wallet's network, as the x402 client selects it.
 */

import { x402Client, x402HTTPClient } from '@x402/core/client';

import { isAmount, SCHEME } from '../scheme/index.js';
import { ToolError } from './errors.js';

/** One option of a 402, as the tools show it. */
export interface PaymentOption {
  readonly scheme: string;
  readonly network: string;
  readonly asset: string;
  /** Atomic units, as the merchant wrote it (checked by {@link payableIndex}). */
  readonly amount: string;
  readonly pay_to: string;
  readonly max_timeout_seconds: number;
  /** The route the payment is bound to (`extra.resourceId`), if any. */
  readonly resource_id: string | null;
  /** `extra.paymentFlow` (`upfront`, `authorization`, …), if the merchant names one. */
  readonly payment_flow: string | null;
}

/** The x402 `PaymentRequired` a 402 carries. */
export interface PaymentRequiredInfo {
  readonly options: PaymentOption[];
  /** The requirement objects as the merchant sent them, for x402. */
  readonly raw: readonly Record<string, unknown>[];
  /** The merchant's `error` (why a paid request was answered 402 again), bounded. */
  readonly error: string | null;
}

const httpClient = new x402HTTPClient(new x402Client());

function bounded(value: unknown, max = 200): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/**
 * Reads the payment requirements of a 402 (`PAYMENT-REQUIRED`, x402 v2).
 * @throws ToolError `invalid_payment_required`
 */
export function readPaymentRequired(response: Response): PaymentRequiredInfo {
  let required: { accepts?: unknown; error?: unknown };
  try {
    required = httpClient.getPaymentRequiredResponse((name) =>
      response.headers.get(name),
    ) as unknown as { accepts?: unknown; error?: unknown };
  } catch {
    throw new ToolError(
      'invalid_payment_required',
      'the merchant answered 402 without a readable PAYMENT-REQUIRED header (x402 v2)',
    );
  }
  if (typeof required !== 'object' || required === null || !Array.isArray(required.accepts))
    throw new ToolError('invalid_payment_required', "the merchant's 402 lists no payment options");
  const raw = required.accepts
    .slice(0, 20)
    .filter((a): a is Record<string, unknown> => typeof a === 'object' && a !== null);
  const options = raw.map((a) => {
    const extra =
      typeof a.extra === 'object' && a.extra !== null ? (a.extra as Record<string, unknown>) : {};
    return {
      scheme: bounded(a.scheme, 60),
      network: bounded(a.network, 100),
      asset: bounded(a.asset, 100),
      amount: bounded(a.amount, 40),
      pay_to: bounded(a.payTo, 200),
      max_timeout_seconds:
        typeof a.maxTimeoutSeconds === 'number' && Number.isSafeInteger(a.maxTimeoutSeconds)
          ? a.maxTimeoutSeconds
          : 0,
      resource_id: typeof extra.resourceId === 'string' ? extra.resourceId.slice(0, 200) : null,
      payment_flow: typeof extra.paymentFlow === 'string' ? extra.paymentFlow.slice(0, 40) : null,
    };
  });
  return {
    options,
    raw,
    error: typeof required.error === 'string' ? required.error.slice(0, 200) : null,
  };
}

const FLOWS = new Set([null, 'authorization', 'upfront', 'escrow']);

/**
 * The option this wallet pays, or -1: among the `priv-stark/v1` options on its network with a flow
 * x402 knows, the first without a flow or with `authorization` if there is one (x402's client
 * prefers those), else the first.
 */
export function payableIndex(options: readonly PaymentOption[], network: string): number {
  const payable = options
    .map((o, i) => ({ o, i }))
    .filter(
      ({ o }) =>
        o.scheme === SCHEME &&
        o.network === network &&
        isAmount(o.amount) &&
        o.max_timeout_seconds > 0 &&
        FLOWS.has(o.payment_flow),
    );
  const preferred =
    payable.find(({ o }) => o.payment_flow === null || o.payment_flow === 'authorization') ??
    payable[0];
  return preferred?.i ?? -1;
}

/** The refusal of a 402 that offers nothing this wallet pays (`no_payable_option`). */
export function noPayableOption(options: readonly PaymentOption[], network: string): ToolError {
  const offered = options.map((o) => `${o.scheme} on ${o.network}`).join(', ') || 'nothing';
  return new ToolError(
    'no_payable_option',
    `the merchant offers ${offered}; this wallet pays ${SCHEME} on ${network}`,
  );
}
