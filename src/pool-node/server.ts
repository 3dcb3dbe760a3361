/**
 * @module The devnet pool node: the stand-in for a chain's read interface, on its own listener
 * (`priv-stark pool serve`, port 4021). Wallets download checkpoints, leaves and events from it and
 * rebuild the tree themselves — the node never serves one note's path, since asking for it would
 * reveal which note is yours. The operator shields funds through `POST /deposit` with a bearer
 * token. Requests are logged by method and route pattern only: no client address, no cursor.
 *
 * Routes: `GET /state`, `GET /checkpoints?after&limit`, `GET /leaves?from&limit`,
 * `GET /events?after&limit`, `POST /deposit`, `GET /health`, and the wallets' writes `POST /proofs`
 * (a hand-over, `handover-route.ts`) and `POST /transfers` (`transfer-route.ts`), rate-limited per
 * client. Every request is schema-checked
 * (400 `invalid_request`), a store that fails gives 503 `pool_unavailable`, and every error body is
 * `{ error, message }` with a stable snake_case `error`.
 */

import { createHash, timingSafeEqual } from 'node:crypto';

import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';

import { registerJsonBodyParser } from '../listener/json-body.js';
import { batchedStdout } from '../listener/batched-stdout.js';
import { serializeError } from '../listener/serialize-error.js';
import { PoolUnavailableError } from '../ledger/errors.js';
import { depositSchema, type DepositRequest } from './operator-schemas.js';
import {
  checkpointsSchema,
  eventsSchema,
  healthSchema,
  leavesSchema,
  stateSchema,
} from './read-schemas.js';
import { type AfterPage, type FromPage, limitOf, PAGE_LIMITS } from './schema-parts.js';
import type { Ledger } from '../ledger/ledger.js';
import { messageOf, statusOf } from '../scheme/reasons.js';
import { allowedOrigin, checkCorsOrigins } from './cors.js';
import { type HandOverLimits, registerHandOver } from './handover-route.js';
import { registerPayouts } from './payout-routes.js';
import { MIN_TOKEN_LENGTH } from './operator-token.js';

/** Options of {@link buildPoolNode}. */
export interface PoolNodeOptions {
  /** The ledger it serves. The node does not start or stop the ledger's checkpoint timer. */
  readonly ledger: Ledger;
  /** The operator's deposit token (compared in constant time; never logged). */
  readonly operatorToken: string;
  /** `false` for silence, or pino options (`level`, `stream`); default: info to stdout. */
  readonly logger?:
    | false
    | { readonly level?: string; readonly stream?: { write(line: string): unknown } };
  /** Largest request body, bytes (default 4096). */
  readonly bodyLimit?: number;
  /**
   * Origins whose pages may read the public GET routes (browser wallets): exact origins such as
   * `https://shop.example`, or `'*'` for any. Default none. Browser wallets on them may also hand
   * proofs over (`POST /proofs`, with its preflight). `POST /deposit` never answers CORS.
   */
  readonly corsOrigins?: readonly string[] | '*' | undefined;
  /** The hand-over route's per-client rate limit (default 120 per minute). */
  readonly handOver?: HandOverLimits | undefined;
  /** Counts each reply by route pattern, status and error code (the service's metrics). */
  readonly requests?:
    | { inc(labels: { route: string; status: string; reason: string }): void }
    | undefined;
  /** Request tracing (the service's, when traces are on): registered before anything else. */
  readonly instrument?: FastifyPluginAsync | undefined;
}

/**
 * The error code of a failed reply, read from its `{ error, message }` body (`null` for a success
 * or a body without one): the only field metrics and traces take from a reply.
 */
export function errorCodeOf(statusCode: number, payload: unknown): string | null {
  if (statusCode < 400 || typeof payload !== 'string') return null;
  try {
    const code = (JSON.parse(payload) as { error?: unknown } | null)?.error;
    return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? code : null;
  } catch {
    return null; // not JSON
  }
}

const UNAVAILABLE = {
  error: 'pool_unavailable',
  message: 'the pool store is unavailable',
} as const;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Request fields the logger may write: the method and the route pattern, never the address or query. */
const serializers = {
  err: serializeError,
  req: (request: FastifyRequest) => ({
    method: request.method,
    route: request.routeOptions?.url ?? 'unmatched',
  }),
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
};

/**
 * Builds the pool node (not listening yet: call `listen`, or `inject` in tests).
 * @throws RangeError when the operator token is shorter than {@link MIN_TOKEN_LENGTH}
 * @example
 * const node = await buildPoolNode({ ledger, operatorToken });
 * await node.listen({ port: 4021, host: '127.0.0.1' });
 */
export async function buildPoolNode(options: PoolNodeOptions): Promise<FastifyInstance> {
  const { ledger } = options;
  if (
    typeof options.operatorToken !== 'string' ||
    options.operatorToken.length < MIN_TOKEN_LENGTH
  ) {
    throw new RangeError(
      `"operatorToken" expected a string of at least ${MIN_TOKEN_LENGTH} characters`,
    );
  }
  const tokenHash = sha256(options.operatorToken);
  /** The operator's routes: 401 unless the bearer token is the operator's (constant time). */
  const operatorOnly = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!token || !timingSafeEqual(sha256(token), tokenHash))
      return reply
        .code(401)
        .send({ error: 'unauthorized', message: 'the operator token is required' });
    return undefined;
  };
  const corsOrigins = checkCorsOrigins(options.corsOrigins);
  const logger = (
    options.logger === false
      ? false
      : {
          level: options.logger?.level ?? 'info',
          serializers,
          stream: options.logger?.stream ?? batchedStdout(),
        }
  ) as NonNullable<FastifyServerOptions['logger']>;
  const app = Fastify({
    logger,
    // One line per reply from the onResponse hook below instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 4096,
    trustProxy: false,
    // Nothing is coerced or dropped: a number where a decimal string belongs is refused, not rounded.
    ajv: {
      customOptions: {
        coerceTypes: false,
        removeAdditional: false,
        allErrors: false,
        keywords: ['example'],
      },
    },
  });
  // First, so it sees every route and hook registered after it.
  if (options.instrument) await app.register(options.instrument);

  // JSON only: Fastify's plain-text parser would turn a text body into a schema error instead of a 415.
  app.removeContentTypeParser('text/plain');
  // The listeners' shared JSON parser (prototype poisoning found by a walk, not a text scan); a
  // refused body is the node's 400 invalid_request.
  registerJsonBodyParser(app, (error) =>
    Object.assign(new Error('the request body is not acceptable JSON', { cause: error }), {
      statusCode: 400,
    }),
  );
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        route: request.routeOptions?.url ?? 'unmatched',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'reply',
    );
  });

  if (corsOrigins) {
    // Read-only CORS: a page on an allowed origin may read what any wallet reads. Simple GETs need
    // no preflight; the hand-over route answers its own preflight; nothing else is cross-origin.
    app.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      if (corsOrigins !== '*') reply.header('vary', 'Origin');
      const allowed = allowedOrigin(corsOrigins, request.headers.origin);
      if (allowed !== null) reply.header('access-control-allow-origin', allowed);
    });
  }

  const requests = options.requests;
  if (requests) {
    // The error code of a failed reply, read from its body: the only field metrics take from it.
    app.addHook('onSend', async (request, reply, payload) => {
      requests.inc({
        route: request.routeOptions?.url ?? 'unmatched',
        status: String(reply.statusCode),
        reason: errorCodeOf(reply.statusCode, payload) ?? '',
      });
      return payload;
    });
  }

  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send({ error: 'not_found', message: 'no such route' }),
  );

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof PoolUnavailableError) {
      request.log.error({ err: error }, 'pool store unavailable');
      return reply.code(503).send(UNAVAILABLE);
    }
    if (error.validation) {
      return reply.code(400).send({
        error: 'invalid_request',
        message: `${error.validationContext ?? 'request'}${error.validation[0]?.instancePath ?? ''} ${error.validation[0]?.message ?? 'is invalid'}`,
      });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply
          .code(413)
          .send({ error: 'payload_too_large', message: 'the request body is too large' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply
          .code(415)
          .send({ error: 'unsupported_media_type', message: 'send application/json' });
      default:
        break;
    }
    const status = error.statusCode ?? 500;
    // The hand-over route's rate limit (its Retry-After header is already set).
    if (status === 429) {
      return reply.code(429).send({ error: 'rate_limited', message: messageOf('rate_limited') });
    }
    if (status >= 400 && status < 500) {
      return reply
        .code(400)
        .send({ error: 'invalid_request', message: 'the request is malformed' });
    }
    request.log.error({ err: error }, 'internal error');
    return reply.code(500).send({ error: 'internal_error', message: 'internal error' });
  });

  app.get('/health', { schema: healthSchema }, async (_request, reply) => {
    try {
      await ledger.store.ping();
      const state = await ledger.state();
      return {
        status: 'ok',
        kind: ledger.store.kind,
        leaves: state.size,
        checkpoint: state.checkpoint?.seq ?? null,
      };
    } catch (error) {
      if (!(error instanceof PoolUnavailableError)) throw error;
      return reply
        .code(503)
        .send({ status: 'unavailable', kind: ledger.store.kind, error: 'pool_unavailable' });
    }
  });

  app.get('/state', { schema: stateSchema }, async () => {
    const state = await ledger.state();
    return { network: ledger.network, asset: ledger.asset, ...state };
  });

  app.get<{ Querystring: AfterPage }>(
    '/checkpoints',
    { schema: checkpointsSchema },
    async (request, reply) => {
      const after = Number(request.query.after ?? 0);
      const limit = limitOf(request.query.limit, PAGE_LIMITS.checkpoints);
      if (typeof limit === 'string')
        return reply.code(400).send({ error: 'invalid_request', message: limit });
      const checkpoints = await ledger.checkpoints(after, limit);
      return { checkpoints, next: checkpoints.at(-1)?.seq ?? after };
    },
  );

  app.get<{ Querystring: FromPage }>(
    '/leaves',
    { schema: leavesSchema },
    async (request, reply) => {
      const from = Number(request.query.from ?? 0);
      const limit = limitOf(request.query.limit, PAGE_LIMITS.leaves);
      if (typeof limit === 'string')
        return reply.code(400).send({ error: 'invalid_request', message: limit });
      const leaves = await ledger.leaves(from, limit);
      return { from, leaves, next: from + leaves.length };
    },
  );

  app.get<{ Querystring: AfterPage }>(
    '/events',
    { schema: eventsSchema },
    async (request, reply) => {
      const after = Number(request.query.after ?? 0);
      const limit = limitOf(request.query.limit, PAGE_LIMITS.events);
      if (typeof limit === 'string')
        return reply.code(400).send({ error: 'invalid_request', message: limit });
      const events = await ledger.events(after, limit);
      return { events, next: events.at(-1)?.id ?? after };
    },
  );

  app.post<{ Body: DepositRequest }>(
    '/deposit',
    {
      schema: depositSchema,
      // Before any parsing: anonymous requests cost nothing.
      onRequest: operatorOnly,
    },
    async (request, reply) => {
      const result = await ledger.deposit(request.body);
      if (result.ok) {
        request.log.info({ index: result.index }, 'deposit appended');
        return { commitment: result.commitment, index: result.index, eventId: result.eventId };
      }
      switch (result.reason) {
        case 'amount_out_of_range':
        case 'duplicate_commitment':
        case 'tree_full':
          return reply
            .code(statusOf(result.reason))
            .send({ error: result.reason, message: result.message });
        default:
          return reply.code(400).send({ error: 'invalid_request', message: result.message });
      }
    },
  );

  await registerHandOver(app, { ledger, corsOrigins, limits: options.handOver });
  registerPayouts(app, {
    ledger,
    pageLimit: PAGE_LIMITS.events,
    authorize: operatorOnly,
  });

  return app;
}
