/**
 * @module `POST /proofs`: a wallet hands its spend proof to the pool operator's node before a
 * compact payment, and pays with the reference it gets back (docs/compact-payments.md). The ledger
 * refuses before storing anything (`Ledger.handOver`: shapes, this pool, ctx recomputed from the
 * payment sent with the proof, expiry, anchor, nullifier, then the proof itself), with a stable
 * reason of the registry and its status; hostile input is always a 4xx.
 *
 * Abuse bounds: a body limit of one proof; a rate limit per client, keyed on a salted hash of the
 * peer address kept in memory only (the salt is drawn at start; nothing is written or logged); the
 * ledger's per-nullifier and total limits, with `Retry-After` when the store is full. The route
 * reads nothing else of the request: no trace headers, no cookies. Browser wallets on the node's
 * CORS origins may call it, with a preflight on this route only.
 */

import { createHash, randomBytes } from 'node:crypto';

import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { Ledger } from '../ledger/ledger.js';
import { decodeProof, HANDOVER_BODY_LIMIT_BYTES, messageOf } from '../scheme/index.js';
import { allowedOrigin, type CorsOrigins } from './cors.js';
import { claimedInputs, refuse } from './refusal.js';
import { type HandOverRequest, handOverSchema } from './handover-schema.js';
import { registerTransfer } from './transfer-route.js';
import { registerTransition } from './transition-route.js';

/** The per-client rate limit of the route. */
export interface HandOverLimits {
  /** Hand-overs per window and client (default 120). */
  readonly max: number;
  /** The window, ms (default 60000). */
  readonly timeWindowMs: number;
}

/**
 * Registers `POST /proofs` and, in the same scope (rate limit, CORS), `POST /transfers`
 * (`transfer-route.ts`) and `POST /transitions` (`transition-route.ts`), with their CORS
 * preflights, on the pool node.
 */
export async function registerHandOver(
  app: FastifyInstance,
  options: { ledger: Ledger; corsOrigins: CorsOrigins; limits?: HandOverLimits | undefined },
): Promise<void> {
  const { ledger, corsOrigins } = options;
  const limits = options.limits ?? { max: 120, timeWindowMs: 60_000 };
  // The client key: the peer address hashed with a salt of this process, never stored as is.
  const salt = randomBytes(16);
  const clientKey = (request: FastifyRequest) =>
    createHash('sha256').update(salt).update(request.ip).digest('base64url');

  const cors = (request: FastifyRequest, reply: FastifyReply) => {
    if (corsOrigins === null) return;
    if (corsOrigins !== '*') reply.header('vary', 'Origin');
    const allowed = allowedOrigin(corsOrigins, request.headers.origin);
    if (allowed === null) return;
    reply.header('access-control-allow-origin', allowed);
    // A browser wallet reads when to retry (429 rate_limited, 503 proof_store_full).
    reply.header('access-control-expose-headers', 'retry-after');
  };

  await app.register(async (scope) => {
    await scope.register(rateLimit, {
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
    });

    if (corsOrigins !== null) {
      for (const route of ['/proofs', '/transfers', '/transitions']) {
        scope.options(route, async (request, reply) => {
          cors(request, reply);
          return reply
            .code(204)
            .header('access-control-allow-methods', 'POST')
            .header('access-control-allow-headers', 'content-type')
            .header('access-control-max-age', '600')
            .send();
        });
      }
    }

    registerTransfer(scope, {
      ledger,
      rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs },
      cors,
    });
    registerTransition(scope, {
      ledger,
      rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs },
      cors,
    });

    scope.post<{ Body: HandOverRequest }>(
      '/proofs',
      {
        schema: handOverSchema,
        bodyLimit: HANDOVER_BODY_LIMIT_BYTES,
        config: { rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } },
        onRequest: async (request, reply) => cors(request, reply),
      },
      async (request, reply) => {
        const body = request.body;
        const proof = decodeProof(body.proof);
        if (!proof.ok) return refuse(reply, proof.reason);
        const result = await ledger.handOver({
          proof: proof.bytes,
          publicInputs: claimedInputs(body),
          payment: {
            scheme: body.scheme,
            network: body.network,
            asset: body.asset,
            payTo: body.payTo,
            amount: body.amount,
            resourceId: body.resourceId,
            expiry: body.expiry,
          },
        });
        if (!result.ok) return refuse(reply, result.reason);
        return reply
          .code(result.stored ? 201 : 200)
          .send({ reference: result.reference, expires: Math.floor(result.expiresAt / 1000) });
      },
    );
  });
}
