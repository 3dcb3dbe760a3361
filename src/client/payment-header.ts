/**
 * @module The `PAYMENT-SIGNATURE` header as the paying fetch sees it: its names, its encoding (the
 * stock client's bytes, faster), reading back what a request carries, and the size guard that turns
 * a merchant's 431 into a {@link PaymentHeaderTooLargeError}.
 */

import { decodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';

import { encodeBase64 } from '../scheme/encoding.js';
import { PaymentHeaderTooLargeError } from './errors.js';

/** Header names of x402 v2 (HTTP transport). */
export const PAYMENT_SIGNATURE_HEADER = 'PAYMENT-SIGNATURE';
export const PAYMENT_RESPONSE_HEADER = 'PAYMENT-RESPONSE';

const utf8 = new TextEncoder();

/**
 * The header's value for a v2 payload: base64 of its JSON in UTF-8, the bytes the stock client
 * sends (whose generic encoder builds a string per byte, ~6 ms for a proof-carrying payload).
 */
export function encodePaymentSignature(payload: PaymentPayload): string {
  return encodeBase64(utf8.encode(JSON.stringify(payload)));
}

/** The payment a `PAYMENT-SIGNATURE` value carries, `null` when it is not one. */
export function readPaymentSignature(value: string | null): PaymentPayload | null {
  if (value === null) return null;
  try {
    const payload = decodePaymentSignatureHeader(value) as unknown;
    return typeof payload === 'object' && payload !== null ? (payload as PaymentPayload) : null;
  } catch {
    return null;
  }
}

/** Bytes the header takes on the wire: name, `: ` and the (ASCII) value. */
export function paymentSignatureBytes(value: string): number {
  return PAYMENT_SIGNATURE_HEADER.length + 2 + value.length;
}

/**
 * A `fetch` that throws {@link PaymentHeaderTooLargeError} when a request carrying a payment is
 * answered 431 (the stock wrapper would return the 431 as is). The paying fetch puts it under the
 * stock `wrapFetchWithPayment` (within {@link compactFallback}); use it for a wrapper of your own
 * when no wallet is at hand to retry compactly.
 */
export function guardHeaderSize(inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const header = request.headers.get(PAYMENT_SIGNATURE_HEADER);
    const response = await inner(request);
    if (response.status !== 431 || header === null) return response;
    await response.body?.cancel().catch(() => undefined);
    const payload = readPaymentSignature(header)?.payload as { proofRef?: unknown } | undefined;
    throw new PaymentHeaderTooLargeError(
      paymentSignatureBytes(header),
      request.url,
      payload?.proofRef === undefined ? 'inline' : 'reference',
    );
  };
}
