/**
 * @module Route configuration for the stock middleware: {@link privStarkRoutes} sets each route's
 * `extra.resourceId` to its key (`"GET /weather"`), which the proof is bound to, so a payment for
 * one route is refused at another.
 */

import type { RouteConfig, RoutesConfig } from '@x402/core/server';

import { DEVNET_NETWORK, SCHEME } from '../scheme/index.js';

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
  readonly description?: string;
  readonly mimeType?: string;
}

/**
 * The stock `RoutesConfig` for `priv-stark/v1` routes, each bound to its own resource id.
 * @example
 * app.use(paymentMiddleware(privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01' } }), server));
 */
export function privStarkRoutes(routes: Record<string, PrivStarkRoute>): RoutesConfig {
  const out: Record<string, RouteConfig> = {};
  for (const [key, route] of Object.entries(routes)) {
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

/** Request headers up to this size fit a `PAYMENT-SIGNATURE` carrying a proof (priv-stark-v1.md §3). */
export const MERCHANT_MAX_HEADER_BYTES = 256 * 1024;
