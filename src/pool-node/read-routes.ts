/**
 * @module The pool node's reads, open to anyone: `GET /health` (whether the store answers),
 * `GET /state` (the ledger's head), and the pages wallets rebuild the tree and find their notes
 * from — `GET /checkpoints?after&limit`, `GET /leaves?from&limit`, `GET /events?after&limit`. The
 * node never serves one note's path: asking for it would tell which note is yours.
 */

import type { FastifyInstance } from 'fastify';

import { PoolUnavailableError } from '../ledger/errors.js';
import type { Ledger } from '../ledger/ledger.js';
import {
  checkpointsSchema,
  eventsSchema,
  healthSchema,
  leavesSchema,
  stateSchema,
} from './read-schemas.js';
import { type AfterPage, type FromPage, limitOf, PAGE_LIMITS } from './schema-parts.js';

/** Registers `GET /health` and `GET /state`. */
export function registerHead(app: FastifyInstance, ledger: Ledger): void {
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
}

/** Registers the pages: `GET /checkpoints`, `GET /leaves`, `GET /events`. */
export function registerPages(app: FastifyInstance, ledger: Ledger): void {
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
}
