/**
 * @module The facilitator's HTTP listener: `build(opts)` returns a Fastify instance with exactly
 * `POST /verify`, `POST /settle` and `GET /health`. Routes are schema-first (TypeBox, with a type
 * provider); one error handler and one not-found handler turn everything else into x402-shaped
 * JSON with a reason of the registry. Auth and the rate limit run in `onRequest`, before the body
 * is read.
 */

import { randomUUID } from 'node:crypto';

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';

import type { Facilitator } from '../facilitator/index.js';
import {
  BODY_LIMIT_BYTES,
  FacilitatorRequestSchema,
  type Reason,
  SettleResponseSchema,
  VerifyResponseSchema,
} from '../scheme/index.js';
import { ANONYMOUS, type AuthMode, bearerToken, type Caller } from './auth.js';
import { onClientError } from './client-errors.js';
import { ReasonError, reasonOf } from './errors.js';
import { type HealthSource, registerHealth } from './health.js';
import { registerJsonBodyParser } from './json-body.js';
import { type LogSettings, loggerOptions } from './logging.js';
import type { FacilitatorMetrics } from './metrics.js';
import { registerRateLimit } from './rate-limit.js';
import { failureReply, type Reply, replyKindOf, settleReply, verifyReply } from './replies.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook of `/verify` and `/settle`. */
    caller: Caller | null;
    /** The reason the reply carries (`null` for success), for the log line and metrics. */
    x402Reason: Reason | null;
  }
}

/** Options of {@link build}. */
export interface BuildOptions {
  readonly facilitator: Facilitator;
  readonly health: HealthSource;
  /** API keys, or `{ mode: 'off' }` (`--insecure-no-auth`; the caller checks the host is loopback). */
  readonly auth: AuthMode;
  /** A shared rate-limit store (PostgreSQL); in memory when absent. */
  readonly rateLimitStore?: Parameters<typeof registerRateLimit>[1]['store'];
  readonly metrics?: FacilitatorMetrics | undefined;
  /** `false` for silence (tests), or pino settings. */
  readonly logger?: false | LogSettings;
  /** Request tracing (the service's, when traces are on): registered before anything else. */
  readonly instrument?: FastifyPluginAsync | undefined;
}

const SCHEMAS = {
  verify: {
    body: FacilitatorRequestSchema,
    response: {
      200: VerifyResponseSchema,
      '4xx': VerifyResponseSchema,
      '5xx': VerifyResponseSchema,
    },
  },
  settle: {
    body: FacilitatorRequestSchema,
    response: {
      200: SettleResponseSchema,
      '4xx': SettleResponseSchema,
      '5xx': SettleResponseSchema,
    },
  },
} as const;

function send(request: FastifyRequest, reply: FastifyReply, out: Reply): FastifyReply {
  request.x402Reason = out.reason;
  return reply.code(out.status).send(out.body);
}

/** The network a settle failure names: the request's, once its body was parsed. */
function networkOf(body: unknown): string {
  const requirements = (body as { paymentRequirements?: { network?: unknown } } | null | undefined)
    ?.paymentRequirements;
  return typeof requirements?.network === 'string' && requirements.network.length <= 128
    ? requirements.network
    : '';
}

/**
 * Builds the facilitator's listener (not listening yet: `listen()`, or `inject()` in tests).
 * @example
 * const app = await build({ facilitator, health, auth: { mode: 'keys', keys } });
 * await app.listen({ port: 4020, host: '127.0.0.1' });
 */
export async function build(options: BuildOptions): Promise<FastifyInstance> {
  const { facilitator, metrics } = options;
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(options.logger),
    // One line per reply from our onResponse hook instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: false,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    requestTimeout: 60_000,
    // Node answers an HTTP/1.1 request without a Host header itself, 400 with an empty body; the
    // listener uses no Host, so such a request goes on to the routes and gets an x402 reply.
    http: { requireHostHeader: false },
    // Requests the HTTP parser could not read, and paths that are not valid URLs, are answered in
    // the x402 shape too (Fastify's defaults answer these with their own JSON).
    clientErrorHandler: onClientError,
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      // A path that does not decode names no route.
      const reason: Reason =
        error.code === 'FST_ERR_BAD_URL' ? 'not_found' : reasonOf(error).reason;
      send(request, reply, failureReply(replyKindOf(request.url), reason));
    },
    // Nothing is coerced, dropped or defaulted: a number where a string belongs is refused.
    ajv: {
      customOptions: {
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allErrors: false,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // First, so it sees every route and hook registered after it.
  if (options.instrument) await app.register(options.instrument);
  registerJsonBodyParser(app);
  app.decorateRequest('caller', null);
  app.decorateRequest('x402Reason', null);

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // While shutting down, finish what arrives on open connections but close them after.
    if (closing) reply.header('connection', 'close');
    // An unknown route is refused before its body is read: Fastify would parse it first and
    // answer a bad or oversized body with 400 or 413 instead of 404.
    if (request.is404) throw new ReasonError('not_found');
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics?.requests.inc({
      route,
      status: String(reply.statusCode),
      reason: request.x402Reason ?? '',
    });
    request.log.info(
      {
        route,
        status: reply.statusCode,
        reason: request.x402Reason ?? undefined,
        ms: Math.round(reply.elapsedTime),
      },
      'reply',
    );
  });

  app.setErrorHandler((error, request, reply) => {
    const { reason, fault } = reasonOf(error);
    if (fault) request.log.error({ err: error }, 'request failed');
    if (reason === 'unauthorized') reply.header('www-authenticate', 'Bearer');
    return send(
      request,
      reply,
      failureReply(replyKindOf(request.url), reason, { network: networkOf(request.body) }),
    );
  });
  app.setNotFoundHandler((request, reply) =>
    send(request, reply, failureReply(replyKindOf(request.url), 'not_found')),
  );

  const authenticate = async (request: FastifyRequest) => {
    if (options.auth.mode === 'off') {
      request.caller = ANONYMOUS;
      return;
    }
    const token = bearerToken(request.headers.authorization);
    const caller = token === null ? null : options.auth.keys.find(token);
    if (!caller) throw new ReasonError('unauthorized');
    request.caller = caller;
  };

  await registerRateLimit(app, {
    callerOf: (request) => request.caller,
    store: options.rateLimitStore,
  });

  app.post(
    '/verify',
    { schema: SCHEMAS.verify, onRequest: authenticate },
    async (request, reply) => {
      const stop = metrics?.verifySeconds.startTimer();
      try {
        return send(
          request,
          reply,
          verifyReply(await facilitator.verify(request.body, request.caller?.policy)),
        );
      } finally {
        // Faults are timed too (the error handler answers them).
        stop?.();
      }
    },
  );

  app.post(
    '/settle',
    { schema: SCHEMAS.settle, onRequest: authenticate },
    async (request, reply) => {
      const stop = metrics?.settleSeconds.startTimer();
      try {
        return send(
          request,
          reply,
          settleReply(await facilitator.settle(request.body, request.caller?.policy)),
        );
      } finally {
        // Faults are timed too (the error handler answers them).
        stop?.();
      }
    },
  );

  registerHealth(app, options.health);
  return app;
}
