/**
 * @module The pool node's reads, open to anyone: `GET /health` (whether the store answers; in a
 * chain pool also how its deposit watcher follows the chain),
 * `GET /state` (the published head), and the public log wallets rebuild the tree and find their
 * notes from — `GET /checkpoints`, `/leaves`, `/events`, each by fixed page (`?page=`, the same
 * URL for every wallet: `public-pages.ts`) or by the older cursor (`?after=&limit=`,
 * `?from=&limit=`). Everything served is what the latest checkpoint published (`public-log.ts` in
 * the ledger): no leaf, event or total moves between checkpoints, so nothing here times an
 * arrival. The node never serves one note's path: asking for it would tell which note is yours.
 */

import type { FastifyInstance } from 'fastify';

import type { ParameterSetInfo } from '../core/index.js';
import { PoolUnavailableError } from '../ledger/errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { chainStatusBody } from './chain-status-schema.js';
import type { DepositSource } from './deposit-source.js';
import { cachePage, listRead, NO_STORE, pageWindow } from './public-pages.js';
import {
  checkpointsSchema,
  eventsSchema,
  healthSchema,
  leavesSchema,
  stateSchema,
} from './read-schemas.js';
import { type AfterOrPage, type FromOrPage, limitOf, PAGE_LIMITS } from './schema-parts.js';

/**
 * Registers `GET /health` and `GET /state`; in a chain pool `/health` adds the deposit source's
 * status (`chain`), and answers 200 whatever the chain's state.
 */
export function registerHead(
  app: FastifyInstance,
  ledger: Ledger,
  source?: DepositSource,
  transitionSets?: readonly ParameterSetInfo[],
): void {
  // What a wallet needs to choose a set; the same fields as the facilitator's `parameterSets`.
  const sets = transitionSets && {
    transitionParameterSets: transitionSets.map((set) => ({
      id: set.id,
      prover: set.prover,
      conjecturedBits: set.conjecturedBits,
      provenListDecodingBits: set.provenListDecodingBits,
      provenUniqueDecodingBits: set.provenUniqueDecodingBits,
    })),
  };
  app.get('/health', { schema: healthSchema }, async (_request, reply) => {
    const chain = source ? { chain: chainStatusBody(source.status()) } : {};
    try {
      await ledger.store.ping();
      const state = await ledger.publishedState();
      return {
        status: 'ok',
        kind: ledger.store.kind,
        leaves: state.size,
        checkpoint: state.checkpoint?.seq ?? null,
        ...sets,
        ...chain,
      };
    } catch (error) {
      if (!(error instanceof PoolUnavailableError)) throw error;
      return reply.code(503).send({
        status: 'unavailable',
        kind: ledger.store.kind,
        error: 'pool_unavailable',
        ...chain,
      });
    }
  });

  app.get('/state', { schema: stateSchema }, async (_request, reply) => {
    const state = await ledger.publishedState();
    reply.header('cache-control', 'no-cache');
    const { epochMs, anchorDelayMs } = ledger.epoch;
    return { network: ledger.network, asset: ledger.asset, ...state, epochMs, anchorDelayMs };
  });
}

/** Registers the public log: `GET /checkpoints`, `GET /leaves`, `GET /events`. */
export function registerPages(app: FastifyInstance, ledger: Ledger): void {
  app.get<{ Querystring: AfterOrPage }>(
    '/checkpoints',
    { schema: checkpointsSchema },
    async (request, reply) => {
      const read = listRead(request.query, request.query.after, (text) =>
        limitOf(text, PAGE_LIMITS.checkpoints),
      );
      if (typeof read === 'string')
        return reply.code(400).send({ error: 'invalid_request', message: read });
      if ('at' in read) {
        reply.header('cache-control', NO_STORE);
        const checkpoints = await ledger.checkpoints(read.at, read.limit);
        return { checkpoints, next: checkpoints.at(-1)?.seq ?? read.at };
      }
      const head = await ledger.publishedState();
      const window = pageWindow('checkpoints', read.page, head);
      if (cachePage(request, reply, 'checkpoints', read.page, head, window))
        return reply.code(304).send();
      const checkpoints = window.count > 0 ? await ledger.checkpoints(window.at, window.count) : [];
      const { epochMs, anchorDelayMs } = ledger.epoch;
      return { checkpoints, next: checkpoints.at(-1)?.seq ?? window.at, epochMs, anchorDelayMs };
    },
  );

  app.get<{ Querystring: FromOrPage }>(
    '/leaves',
    { schema: leavesSchema },
    async (request, reply) => {
      const read = listRead(request.query, request.query.from, (text) =>
        limitOf(text, PAGE_LIMITS.leaves),
      );
      if (typeof read === 'string')
        return reply.code(400).send({ error: 'invalid_request', message: read });
      const head = await ledger.publishedState();
      if ('at' in read) {
        reply.header('cache-control', NO_STORE);
        const count = Math.max(0, Math.min(read.limit, head.size - read.at));
        const leaves = count > 0 ? await ledger.leaves(read.at, count) : [];
        return { from: read.at, leaves, next: read.at + leaves.length };
      }
      const window = pageWindow('leaves', read.page, head);
      if (cachePage(request, reply, 'leaves', read.page, head, window))
        return reply.code(304).send();
      const leaves = window.count > 0 ? await ledger.leaves(window.at, window.count) : [];
      return { from: window.at, leaves, next: window.at + leaves.length };
    },
  );

  app.get<{ Querystring: AfterOrPage }>(
    '/events',
    { schema: eventsSchema },
    async (request, reply) => {
      const read = listRead(request.query, request.query.after, (text) =>
        limitOf(text, PAGE_LIMITS.events),
      );
      if (typeof read === 'string')
        return reply.code(400).send({ error: 'invalid_request', message: read });
      if ('at' in read) {
        reply.header('cache-control', NO_STORE);
        const events = await ledger.publishedEvents(read.at, read.limit);
        return { events, next: events.at(-1)?.id ?? read.at };
      }
      const head = await ledger.publishedState();
      const window = pageWindow('events', read.page, head);
      if (cachePage(request, reply, 'events', read.page, head, window))
        return reply.code(304).send();
      const events = window.count > 0 ? await ledger.publishedEvents(window.at, window.count) : [];
      return { events, next: events.at(-1)?.id ?? window.at };
    },
  );
}
