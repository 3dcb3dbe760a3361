/**
 * @module One-call payments with the stock `@x402/fetch`: {@link payingFetch} wraps `fetch` with
 * `wrapFetchWithPayment` over an `x402Client` holding the `priv-stark/v1` scheme, and turns a
 * merchant's 431 (its server refuses the proof-carrying `PAYMENT-SIGNATURE` header) into a
 * {@link PaymentHeaderTooLargeError} that says what the merchant must allow.
 */

import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentPayload } from '@x402/core/types';
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch';

import { encodeBase64 } from '../scheme/encoding.js';
import { PaymentHeaderTooLargeError } from './errors.js';
import { registerPrivStark } from './scheme.js';
import type { Wallet } from './wallet.js';

/** Header names of x402 v2 (HTTP transport). */
export const PAYMENT_SIGNATURE_HEADER = 'PAYMENT-SIGNATURE';
export const PAYMENT_RESPONSE_HEADER = 'PAYMENT-RESPONSE';

/**
 * A `fetch` that throws {@link PaymentHeaderTooLargeError} when a request carrying a payment is
 * answered 431. Pass it to `wrapFetchWithPayment` (the stock wrapper returns a 431 as is).
 */
export function guardHeaderSize(inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status === 431) {
      const request = input instanceof Request ? input : new Request(input, init);
      const header = request.headers.get(PAYMENT_SIGNATURE_HEADER);
      if (header !== null) {
        await response.body?.cancel().catch(() => undefined);
        throw new PaymentHeaderTooLargeError(
          header.length + PAYMENT_SIGNATURE_HEADER.length + 2,
          request.url,
        );
      }
    }
    return response;
  };
}

const utf8 = new TextEncoder();

/**
 * The stock HTTP client with a faster `PAYMENT-SIGNATURE` encoder: the same bytes (base64 of the
 * payload's JSON in UTF-8), but x402's generic encoder builds a string per byte, ~6 ms for a
 * ~75 KB proof-carrying payload; this one takes a fraction of a millisecond.
 */
export class PrivStarkHttpClient extends x402HTTPClient {
  override encodePaymentSignatureHeader(paymentPayload: PaymentPayload): Record<string, string> {
    if (paymentPayload.x402Version !== 2) return super.encodePaymentSignatureHeader(paymentPayload);
    return {
      [PAYMENT_SIGNATURE_HEADER]: encodeBase64(utf8.encode(JSON.stringify(paymentPayload))),
    };
  }
}

/** Options of {@link payingFetch}. */
export interface PayingFetchOptions {
  /** The fetch underneath (default `globalThis.fetch`). */
  readonly fetch?: typeof fetch;
  /** An `x402Client` to add the scheme to (default a new one with x402's default spend controls). */
  readonly client?: x402Client;
}

/**
 * `fetch` that pays a 402 from the wallet in one call, through the stock `@x402/fetch`.
 * @example
 * const pay = payingFetch(wallet);
 * const response = await pay('http://127.0.0.1:3000/weather');
 * settlementOf(response); // { success: true, transaction, network } as the merchant claims it
 */
export function payingFetch(wallet: Wallet, options: PayingFetchOptions = {}): typeof fetch {
  const client = registerPrivStark(options.client ?? new x402Client(), wallet);
  return wrapFetchWithPayment(
    guardHeaderSize(options.fetch),
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
