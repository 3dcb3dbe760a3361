/**
 * @module One-call payments with the stock `@x402/fetch`: {@link payingFetch} wraps `fetch` with
 * `wrapFetchWithPayment` over an `x402Client` holding the `priv-stark/v1` scheme. The wallet pays
 * compactly where the merchant lists `reference` (the proof handed over to the pool node, a header
 * of about 2 KB), inline otherwise; under the stock wrapper sits {@link compactFallback}, which
 * turns an inline payment a merchant refuses for its size (431, or nginx's 400) compact and sends
 * it once more, and a refused compact one into a {@link PaymentHeaderTooLargeError}.
 */

import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentPayload } from '@x402/core/types';
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch';

import { compactFallback } from './compact-fallback.js';
import { followEpochs } from './epoch-follower.js';
import {
  encodePaymentSignature,
  PAYMENT_RESPONSE_HEADER,
  PAYMENT_SIGNATURE_HEADER,
} from './payment-header.js';
import { registerPrivStark } from './scheme.js';
import { withoutTraceHeaders } from './trace-headers.js';
import type { Wallet } from './wallet.js';

export { compactFallback } from './compact-fallback.js';
export {
  guardHeaderSize,
  PAYMENT_RESPONSE_HEADER,
  PAYMENT_SIGNATURE_HEADER,
} from './payment-header.js';

/**
 * The stock HTTP client with a faster `PAYMENT-SIGNATURE` encoder: the same bytes (base64 of the
 * payload's JSON in UTF-8), but x402's generic encoder builds a string per byte, ~6 ms for a
 * ~75 KB proof-carrying payload; this one takes a fraction of a millisecond.
 */
export class PrivStarkHttpClient extends x402HTTPClient {
  override encodePaymentSignatureHeader(paymentPayload: PaymentPayload): Record<string, string> {
    if (paymentPayload.x402Version !== 2) return super.encodePaymentSignatureHeader(paymentPayload);
    return { [PAYMENT_SIGNATURE_HEADER]: encodePaymentSignature(paymentPayload) };
  }
}

/** Options of {@link payingFetch}. */
export interface PayingFetchOptions {
  /** The fetch to merchants underneath (default `globalThis.fetch`; hand-overs take the wallet's own). */
  readonly fetch?: typeof fetch;
  /** An `x402Client` to add the scheme to (default a new one with x402's default spend controls). */
  readonly client?: x402Client;
  /**
   * Keep the wallet's anchor current in the background (`EpochFollower`: one sync per epoch, at a
   * random point of the window where every wallet reads), so a payment never shows an anchor that
   * names the wallet's last sync (default true; nothing runs on a pool without an epoch grid).
   */
  readonly followEpochs?: boolean;
}

/**
 * `fetch` that pays a 402 from the wallet in one call, through the stock `@x402/fetch`: compactly
 * where the merchant lists `reference`, and an inline payment refused for its size once more
 * compactly ({@link compactFallback}). Starts the wallet's epoch follower ({@link followEpochs})
 * unless told not to.
 * @example
 * const pay = payingFetch(wallet);
 * const response = await pay('http://127.0.0.1:3000/weather');
 * settlementOf(response); // { success: true, transaction, network } as the merchant claims it
 */
export function payingFetch(wallet: Wallet, options: PayingFetchOptions = {}): typeof fetch {
  if (options.followEpochs !== false) followEpochs(wallet);
  const client = registerPrivStark(options.client ?? new x402Client(), wallet);
  return wrapFetchWithPayment(
    compactFallback(wallet, withoutTraceHeaders(options.fetch ?? globalThis.fetch)),
    new PrivStarkHttpClient(client),
  ) as typeof fetch;
}

/**
 * The merchant's claim about the settlement (`PAYMENT-RESPONSE`), or `null`. Informational only:
 * the wallet resolves payments from the pool's log, never from this header.
 */
export function settlementOf(
  response: Response,
): { success: boolean; transaction: string; network: string; errorReason?: string } | null {
  const header = response.headers.get(PAYMENT_RESPONSE_HEADER);
  if (!header) return null;
  try {
    return decodePaymentResponseHeader(header) as {
      success: boolean;
      transaction: string;
      network: string;
      errorReason?: string;
    };
  } catch {
    return null;
  }
}
