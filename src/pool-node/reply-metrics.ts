/**
 * @module What the pool node's metrics and traces read of a reply: its route pattern, its status
 * and the stable `error` code of its `{ error, message }` body — nothing else.
 */

import type { FastifyInstance } from 'fastify';

/** Counts replies by route pattern, status and error code (the service's metrics). */
export interface ReplyCounter {
  inc(labels: { route: string; status: string; reason: string }): void;
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

/** Counts each reply of `app` in `requests`. */
export function registerReplyMetrics(app: FastifyInstance, requests: ReplyCounter): void {
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
