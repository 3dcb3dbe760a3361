/**
 * @module What of a payment leaves the merchant for the facilitator (docs/privacy.md, "Notes"):
 * the payload the stock client built, less what the facilitator needs not see — the resource URL's
 * query string and fragment (a user's id, a search, a session), the resource's description and the
 * payload's extensions. The proof binds the route's resource id, never these, so the facilitator
 * verifies and settles the same payment.
 */

import type { PaymentPayload } from '@x402/core/types';

/** `url` without its query string and fragment (unchanged when it does not parse as a URL). */
export function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString();
  } catch {
    // Not an absolute URL: cut at the first '?' or '#'.
    return url.replace(/[?#].*$/s, '');
  }
}

/** The payload as it goes to the facilitator's `/verify` and `/settle`. */
export function facilitatorPayload(payload: PaymentPayload): PaymentPayload {
  const {
    extensions: _extensions,
    resource,
    ...rest
  } = payload as PaymentPayload & {
    extensions?: unknown;
  };
  if (!resource) return rest as PaymentPayload;
  const { description: _description, url, ...kept } = resource;
  return {
    ...rest,
    resource: { ...kept, url: withoutQuery(url) },
  } as PaymentPayload;
}
