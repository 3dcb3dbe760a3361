/**
 * @module How the pool node answers what no route answered: an unknown route (404 `not_found`), a
 * store that fails (503 `pool_unavailable`), a request its schema refuses (400 `invalid_request`
 * with the schema's message), a body too large (413) or not JSON (415), the write routes' rate
 * limit (429 `rate_limited`); anything else is 500 `internal_error`, logged. Every body is
 * `{ error, message }` with a stable snake_case `error`.
 */

import type { FastifyError, FastifyInstance } from 'fastify';

import { PoolUnavailableError } from '../ledger/errors.js';
import { messageOf } from '../scheme/reasons.js';
import { HandOverFrameRefusal } from './refusal.js';

const UNAVAILABLE = {
  error: 'pool_unavailable',
  message: 'the pool store is unavailable',
} as const;

/** Sets the node's not-found handler and error handler. */
export function registerErrorReplies(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send({ error: 'not_found', message: 'no such route' }),
  );

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof PoolUnavailableError) {
      request.log.error({ err: error }, 'pool store unavailable');
      return reply.code(503).send(UNAVAILABLE);
    }
    // A hand-over frame its decoder refused: the reason a JSON body's proof would get.
    if (error instanceof HandOverFrameRefusal) {
      return reply.code(error.statusCode).send({ error: error.reason, message: error.message });
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
    // The write routes' rate limit (its Retry-After header is already set).
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
}
