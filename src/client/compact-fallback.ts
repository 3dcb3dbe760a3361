/**
 * @module The paying fetch's answer to a merchant that refuses the large header of an inline
 * payment (its server or a proxy in front of it: Node answers 431, nginx and others 400): the
 * wallet hands the same proof over to the pool node under the same pending record
 * (`Wallet.handOver`, over the wallet's hand-over transport) and the request is sent once more with
 * the compact header. It sits under the stock `wrapFetchWithPayment`, which still does the paying;
 * a compact payment that is refused too ends in {@link PaymentHeaderTooLargeError}.
 */

import type { PaymentPayload } from '@x402/core/types';

import { PoolNodeError } from '../pool-node/client.js';
import {
  type PaymentRequirements,
  type PrivStarkPayload,
  SCHEME,
  X402_VERSION,
} from '../scheme/index.js';
import {
  encodePaymentSignature,
  guardHeaderSize,
  PAYMENT_RESPONSE_HEADER,
  PAYMENT_SIGNATURE_HEADER,
  readPaymentSignature,
} from './payment-header.js';
import type { Wallet } from './wallet.js';

/** An inline payment of the wallet's, as a request carries it. */
interface InlinePayment {
  readonly envelope: PaymentPayload;
  readonly payload: PrivStarkPayload;
  readonly requirements: PaymentRequirements;
}

/**
 * The inline payment a header carries, when it is one of this wallet's still pending: only a
 * payment the wallet made (and has not seen resolved) is handed over, never a header set by
 * someone else.
 */
function inlinePaymentOf(wallet: Wallet, header: string | null): InlinePayment | null {
  const envelope = readPaymentSignature(header);
  if (envelope === null || envelope.x402Version !== X402_VERSION) return null;
  const accepted = envelope.accepted as unknown as PaymentRequirements | undefined;
  const payload = envelope.payload as unknown as PrivStarkPayload | undefined;
  if (typeof accepted !== 'object' || accepted === null) return null;
  if (typeof payload !== 'object' || payload === null) return null;
  if (accepted.scheme !== SCHEME || accepted.network !== wallet.network.network) return null;
  if (typeof payload.proof !== 'string' || payload.proofRef !== undefined) return null;
  const pending = wallet
    .payments()
    .some((p) => p.nullifier === payload.nullifier && p.status === 'pending');
  return pending ? { envelope, payload, requirements: accepted } : null;
}

/**
 * Did the merchant refuse the request's headers? 431 always; 400 unless the merchant read the
 * payment (a `PAYMENT-RESPONSE` says it did: that 400 is the merchant's own answer).
 */
function headerRefused(response: Response): boolean {
  return (
    response.status === 431 ||
    (response.status === 400 && !response.headers.has(PAYMENT_RESPONSE_HEADER))
  );
}

/**
 * The `fetch` to put under `wrapFetchWithPayment`: a request carrying an inline payment of
 * `wallet` that is refused 431 (or 400) is sent once more compactly, the proof handed over to the
 * pool node first. The note stays locked by the one pending record it already has.
 *
 * - The hand-over refused or failing after a 431: its error (`PoolNodeError` with the node's
 *   reason) is thrown; the payment stays pending, as any payment whose outcome is unknown.
 * - After a 400 whose hand-over is refused because the nullifier is spent, the 400 was the
 *   merchant's own answer to a payment it settled: it is returned as is.
 * - The compact retry answered 431: {@link PaymentHeaderTooLargeError} (`transport: 'reference'`).
 * @example
 * const pay = wrapFetchWithPayment(compactFallback(wallet), registerPrivStark(new x402Client(), wallet));
 */
export function compactFallback(
  wallet: Wallet,
  inner: typeof fetch = globalThis.fetch,
): typeof fetch {
  const guarded = guardHeaderSize(inner);
  return async (input, init) => {
    const request = new Request(input, init);
    const inline = inlinePaymentOf(wallet, request.headers.get(PAYMENT_SIGNATURE_HEADER));
    if (inline === null) return guarded(request);
    // Kept before the body is sent: the retry sends the same request.
    const retry = request.clone();
    const response = await inner(request);
    if (!headerRefused(response)) {
      await retry.body?.cancel().catch(() => undefined);
      return response;
    }
    let compact: PrivStarkPayload;
    try {
      compact = await wallet.handOver(inline.payload, inline.requirements, request.url);
    } catch (error) {
      await retry.body?.cancel().catch(() => undefined);
      if (
        response.status === 400 &&
        error instanceof PoolNodeError &&
        error.code === 'nullifier_already_spent'
      )
        return response;
      await response.body?.cancel().catch(() => undefined);
      throw error;
    }
    await response.body?.cancel().catch(() => undefined);
    retry.headers.set(
      PAYMENT_SIGNATURE_HEADER,
      encodePaymentSignature({
        ...inline.envelope,
        payload: compact as unknown as PaymentPayload['payload'],
      }),
    );
    return guarded(retry);
  };
}
