/**
 * @module Which browser pages may talk to the pool node: origins as operators write them
 * (`--pool-cors`, `POOL_CORS_ORIGINS`), checked once, the one question the routes ask, and the
 * answers: read-only CORS on the GET routes (simple requests, no preflight), and on the wallets'
 * writes (`POST /proofs`, `/transfers`, `/transitions`) their preflights and allow-origin headers.
 * Nothing else is cross-origin: `POST /deposit` and the payout routes never answer CORS.
 */

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The allowed origins: exact origins, `'*'` for any, or none. */
export type CorsOrigins = ReadonlySet<string> | '*' | null;

/**
 * Reads a CORS origin list as operators write it: `*`, or comma-separated exact origins. Empty
 * means none. Each origin is checked when the node is built ({@link checkCorsOrigins}).
 */
export function parseCorsOrigins(text: string | undefined): readonly string[] | '*' | undefined {
  const trimmed = text?.trim();
  if (!trimmed) return undefined;
  if (trimmed === '*') return '*';
  return trimmed
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin.length > 0);
}

/**
 * The allowed origins of a configuration.
 * @throws RangeError for anything that is not an origin (scheme, host, optional port)
 */
export function checkCorsOrigins(origins: readonly string[] | '*' | undefined): CorsOrigins {
  if (origins === undefined) return null;
  if (origins === '*') return '*';
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // refused below
    }
    if (!parsed || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol)) {
      throw new RangeError(
        `"corsOrigins" expected origins like https://shop.example (scheme, host, optional port), got ${JSON.stringify(origin).slice(0, 80)}`,
      );
    }
  }
  return origins.length === 0 ? null : new Set(origins);
}

/**
 * The `Access-Control-Allow-Origin` value for a request's `Origin`, or `null` when the page may not
 * read the reply. With an origin list, replies vary by `Origin`.
 */
export function allowedOrigin(origins: CorsOrigins, origin: string | undefined): string | null {
  if (origins === null) return null;
  if (origins === '*') return '*';
  return typeof origin === 'string' && origins.has(origin) ? origin : null;
}

/**
 * Read-only CORS: a page on an allowed origin may read what any wallet reads. Simple GETs need no
 * preflight; the write routes answer their own ({@link registerWritePreflights}).
 */
export function registerReadCors(app: FastifyInstance, origins: CorsOrigins): void {
  if (origins === null) return;
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    if (origins !== '*') reply.header('vary', 'Origin');
    const allowed = allowedOrigin(origins, request.headers.origin);
    if (allowed !== null) reply.header('access-control-allow-origin', allowed);
  });
}

/** The CORS headers of a write route's reply (and its preflight) for the request's origin. */
export type WriteCors = (request: FastifyRequest, reply: FastifyReply) => void;

/** The write routes' CORS headers under `origins`. */
export function writeCors(origins: CorsOrigins): WriteCors {
  return (request, reply) => {
    if (origins === null) return;
    if (origins !== '*') reply.header('vary', 'Origin');
    const allowed = allowedOrigin(origins, request.headers.origin);
    if (allowed === null) return;
    reply.header('access-control-allow-origin', allowed);
    // A browser wallet reads when to retry (429 rate_limited, 503 proof_store_full).
    reply.header('access-control-expose-headers', 'retry-after');
  };
}

/** The preflights of the write `routes` (none without origins): a JSON `POST` may follow. */
export function registerWritePreflights(
  scope: FastifyInstance,
  origins: CorsOrigins,
  routes: readonly string[],
  cors: WriteCors,
): void {
  if (origins === null) return;
  for (const route of routes) {
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
