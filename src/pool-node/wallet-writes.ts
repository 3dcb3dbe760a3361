/**
 * @module The wallets' writes in one scope: `POST /proofs` (a hand-over, `handover-route.ts`),
 * `POST /transfers` (`transfer-route.ts`) and `POST /transitions` (`transition-route.ts`), under
 * one per-client rate limit, the body limit of one proof, and the node's CORS origins (with a
 * preflight on these routes only).
 *
 * The rate limit is keyed on a salted hash of the peer address kept in memory only (the salt is
 * drawn at start; nothing is written or logged); each route counts its own requests against the
 * same limit. A hand-over relayed by a merchant with its API key is limited per key instead
 * (`relayed-handovers.ts`). The routes read nothing else of the request: no trace headers, no
 * cookies.
 */

import { createHash, randomBytes } from 'node:crypto';

import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';

import type { Ledger } from '../ledger/ledger.js';
import type { RateLimitStoreClass } from '../listener/shared-rate-limit.js';
import { messageOf } from '../scheme/index.js';
import { type CorsOrigins, registerWritePreflights, writeCors } from './cors.js';
import { registerHandOver } from './handover-route.js';
import { handOverRateLimit, type RelayKeys } from './relayed-handovers.js';
import type { PayoutRail } from './payout-rail.js';
import { registerTransfer } from './transfer-route.js';
import { registerTransition } from './transition-route.js';

/**
 * Counters and salt shared by the workers of one service (`priv-stark start --workers N`): the
 * counts live in the primary process, the salt is drawn there once.
 */
export interface SharedLimits {
  readonly store: RateLimitStoreClass;
  readonly clientSalt: Uint8Array;
}

/** The per-client rate limit of the wallets' writes. */
export interface HandOverLimits {
  /** Requests per window and client, per route (default 120). */
  readonly max: number;
  /** The window, ms (default 60000). */
  readonly timeWindowMs: number;
}

/**
 * The rate limit plugin's options: per client, its headers only `Retry-After`, its refusal ours
 * (the chain routes' relay, `chain-routes.ts`, takes the same).
 */
export function rateLimitOptions(limits: HandOverLimits): RateLimitPluginOptions {
  return rateLimitWithKey(limits, saltedClientKey());
}

/**
 * The client key: the peer address hashed with a salt, never stored as is — drawn here, or the
 * one every worker of the service shares (so one client has one key whichever worker it reaches).
 */
function saltedClientKey(salt: Uint8Array = randomBytes(16)): (request: FastifyRequest) => string {
  return (request) => createHash('sha256').update(salt).update(request.ip).digest('base64url');
}

function rateLimitWithKey(
  limits: HandOverLimits,
  clientKey: (request: FastifyRequest) => string,
): RateLimitPluginOptions {
  return {
    global: false,
    hook: 'onRequest',
    max: limits.max,
    timeWindow: limits.timeWindowMs,
    keyGenerator: clientKey,
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    addHeaders: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
      'retry-after': true,
    },
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      error: 'rate_limited',
      message: messageOf('rate_limited'),
      retryAfter: context.after,
    }),
  };
}

/** Registers the wallets' writes, their rate limit and their CORS preflights on the pool node. */
export async function registerWalletWrites(
  app: FastifyInstance,
  options: {
    ledger: Ledger;
    corsOrigins: CorsOrigins;
    limits?: HandOverLimits | undefined;
    payoutRail?: Pick<PayoutRail, 'refusal'> | undefined;
    relayKeys?: RelayKeys | undefined;
    shared?: SharedLimits | undefined;
  },
): Promise<void> {
  const { ledger, corsOrigins } = options;
  const limits = options.limits ?? { max: 120, timeWindowMs: 60_000 };
  const clientKey = saltedClientKey(options.shared?.clientSalt);
  const pluginOptions: RateLimitPluginOptions = {
    ...rateLimitWithKey(limits, clientKey),
    ...(options.shared ? { store: options.shared.store } : {}),
  };
  const cors = writeCors(corsOrigins);
  const route = { ledger, rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs }, cors };

  await app.register(async (scope) => {
    await scope.register(rateLimit, pluginOptions);
    registerWritePreflights(scope, corsOrigins, ['/proofs', '/transfers', '/transitions'], cors);
    registerTransfer(scope, route);
    registerTransition(scope, { ...route, payoutRail: options.payoutRail });
    await registerHandOver(scope, {
      ...route,
      // Relayed by a merchant: per API key (`relayed-handovers.ts`).
      rateLimit: handOverRateLimit(options.relayKeys, limits, clientKey),
      relayKeys: options.relayKeys,
    });
  });
}
