/**
 * @module Route configuration for the stock middleware: {@link privStarkRoutes} sets each route's
 * `extra.resourceId` to its key (`"GET /weather"`), which the proof is bound to, so a payment for
 * one route is refused at another. It also bounds what it puts into the requirements that the
 * stock client copies into every `PAYMENT-SIGNATURE` (the resource id, the description), so a
 * compact payment's header stays within `COMPACT_HEADER_MAX_BYTES` and passes stock servers and
 * proxies on their defaults.
 */

import type { RouteConfig, RoutesConfig } from '@x402/core/server';

import {
  CONTEXT_FIELD_MAX_BYTES,
  DEVNET_NETWORK,
  ROUTE_DESCRIPTION_MAX_BYTES,
  SCHEME,
} from '../scheme/index.js';

const utf8 = new TextEncoder();

/** One paid route in short form. */
export interface PrivStarkRoute {
  /** The merchant's shielded address (`pstark1…`). */
  readonly payTo: string;
  /** `"$0.01"`, `"0.01"` or `{ asset, amount }` in atomic units. */
  readonly price: RouteConfig['accepts'] extends infer A
    ? A extends { price: infer P }
      ? P
      : never
    : never;
  readonly network?: string;
  readonly maxTimeoutSeconds?: number;
  /** `upfront` (default: settle before the handler) or `authorization` (verify, handler, settle). */
  readonly flow?: 'upfront' | 'authorization';
  /** At most `ROUTE_DESCRIPTION_MAX_BYTES` (256) bytes as JSON writes it, in UTF-8. */
  readonly description?: string;
  readonly mimeType?: string;
}

/**
 * The stock `RoutesConfig` for `priv-stark/v1` routes, each bound to its own resource id.
 * @throws RangeError for a route key over 256 bytes in UTF-8 (the resource id's bound) or a
 *   description over {@link ROUTE_DESCRIPTION_MAX_BYTES} bytes as JSON writes it
 * @example
 * app.use(paymentMiddleware(privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01' } }), server));
 */
export function privStarkRoutes(routes: Record<string, PrivStarkRoute>): RoutesConfig {
  const out: Record<string, RouteConfig> = {};
  for (const [key, route] of Object.entries(routes)) {
    const keyBytes = utf8.encode(key).length;
    if (keyBytes > CONTEXT_FIELD_MAX_BYTES.resourceId)
      throw new RangeError(
        `route ${JSON.stringify(key.slice(0, 40))}…: its key is the payment's resource id, at most ${CONTEXT_FIELD_MAX_BYTES.resourceId} bytes in UTF-8, got ${keyBytes}`,
      );
    if (route.description !== undefined) {
      // Counted as the header carries it: JSON escapes (a quote, a control character) included.
      const bytes = utf8.encode(JSON.stringify(route.description)).length - 2;
      if (bytes > ROUTE_DESCRIPTION_MAX_BYTES)
        throw new RangeError(
          `route ${JSON.stringify(key.slice(0, 40))}: the description travels in every payment's header, at most ${ROUTE_DESCRIPTION_MAX_BYTES} bytes (as JSON, in UTF-8), got ${bytes}`,
        );
    }
    out[key] = {
      accepts: {
        scheme: SCHEME,
        network: (route.network ?? DEVNET_NETWORK.network) as `${string}:${string}`,
        payTo: route.payTo,
        price: route.price,
        maxTimeoutSeconds: route.maxTimeoutSeconds ?? 300,
        extra: { resourceId: key, ...(route.flow ? { paymentFlow: route.flow } : {}) },
      },
      ...(route.description ? { description: route.description } : {}),
      ...(route.mimeType ? { mimeType: route.mimeType } : {}),
    };
  }
  return out;
}

/**
 * Request headers up to this size fit a `PAYMENT-SIGNATURE` carrying a proof inline
 * (priv-stark-v1.md §3). Only for a merchant that opts into inline payments
 * (`PrivStarkSchemeServer({ proofTransports: ['inline', 'reference'] })`), on every server and
 * proxy in front of it; compact payments (the default) pass stock limits.
 */
export const MERCHANT_MAX_HEADER_BYTES = 256 * 1024;
