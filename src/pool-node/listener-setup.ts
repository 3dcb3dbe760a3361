/**
 * @module The pool node's Fastify listener before its routes: what it logs (one line per reply, by
 * method and route pattern only — no client address, no cursor, no body), its body limit, JSON
 * bodies only, and validation that coerces nothing. Requests are logged by route pattern only, so
 * the log never tells which leaves or events a wallet asked for.
 */

import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { LogController } from 'fastify';

import { batchedStdout } from '../listener/batched-stdout.js';
import { type JsonBodyError, registerJsonBodyParser } from '../listener/json-body.js';
import { serializeError } from '../listener/serialize-error.js';

/** Where the node logs: `false` for silence, or pino options; default info to stdout. */
export type PoolNodeLogger =
  | false
  | { readonly level?: string; readonly stream?: { write(line: string): unknown } };

/** Request fields the logger may write: the method and the route pattern, never the address or query. */
const serializers = {
  err: serializeError,
  req: (request: FastifyRequest) => ({
    method: request.method,
    route: request.routeOptions?.url ?? 'unmatched',
  }),
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
};

/** The listener's options: its logger, its body limit (default 4096 bytes), no proxy trusted. */
export function listenerOptions(options: {
  logger?: PoolNodeLogger | undefined;
  bodyLimit?: number | undefined;
}): FastifyServerOptions {
  const logger = (
    options.logger === false
      ? false
      : {
          level: options.logger?.level ?? 'info',
          serializers,
          stream: options.logger?.stream ?? batchedStdout(),
        }
  ) as NonNullable<FastifyServerOptions['logger']>;
  return {
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
  };
}

/** A JSON body the shared parser refused, as the node answers it: 400 `invalid_request`. */
export function jsonBodyRefusal(error: JsonBodyError): Error {
  return Object.assign(new Error('the request body is not acceptable JSON', { cause: error }), {
    statusCode: 400,
  });
}

/** JSON bodies only, parsed by the listeners' shared parser, and one log line per reply. */
export function registerBodiesAndLog(app: FastifyInstance): void {
  // JSON only: Fastify's plain-text parser would turn a text body into a schema error instead of a 415.
  app.removeContentTypeParser('text/plain');
  // The listeners' shared JSON parser (prototype poisoning found by a walk, not a text scan); a
  // refused body is the node's 400 invalid_request.
  registerJsonBodyParser(app, jsonBodyRefusal);
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
}
