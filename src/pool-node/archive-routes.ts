/**
 * @module The proof archive's public reads (docs/audit.md, "Proof archive"): `GET /archive?page=`
 * — the proofs of the published events of a fixed page of positions, served like the public log's
 * pages (`public-pages.ts`: immutable once full, revalidated while filling), or 410
 * `archive_pruned` once the page passed the retention (a page is pruned whole, never in part) —
 * and `GET /archive/state`, how far it reaches; and `GET /digests?page=`, the log digest the node
 * recorded after each checkpoint (`log-digest-timer.ts`). Positions, proofs and digests only:
 * nothing times an arrival, and a proof is zero-knowledge.
 */

import type { FastifyInstance } from 'fastify';

import type { Ledger } from '../ledger/ledger.js';
import { archivePageSchema, archiveStateSchema, digestsPageSchema } from './archive-schema.js';
import { cachePage, IMMUTABLE, NO_STORE, PAGE_SIZES, pageWindow } from './public-pages.js';

/** Registers `GET /archive`, `GET /archive/state` and `GET /digests`. */
export function registerArchive(app: FastifyInstance, ledger: Ledger): void {
  app.get<{ Querystring: { page: string } }>(
    '/digests',
    { schema: digestsPageSchema },
    async (request, reply) => {
      const size = PAGE_SIZES.checkpoints;
      const at = Number(request.query.page) * size;
      const digests = await ledger.store.logDigests(at, size);
      // Recorded in order with no gaps: a page of a full thousand never changes; a shorter one
      // grows with the digester, so nothing keeps it.
      reply.header('cache-control', digests.length === size ? IMMUTABLE : NO_STORE);
      return { digests, next: digests.at(-1)?.seq ?? at };
    },
  );

  app.get<{ Querystring: { page: string } }>(
    '/archive',
    { schema: archivePageSchema },
    async (request, reply) => {
      const page = Number(request.query.page);
      const [head, gaps] = await Promise.all([ledger.publishedState(), ledger.archiveState()]);
      const window = pageWindow('archive', page, head);
      if (window.at + PAGE_SIZES.archive <= gaps.prunedThrough) {
        reply.header('cache-control', IMMUTABLE);
        return reply.code(410).send({
          error: 'archive_pruned',
          message: 'this page of proofs is past the retention and was pruned',
        });
      }
      if (cachePage(request, reply, 'archive', page, head, window)) return reply.code(304).send();
      const proofs = window.count > 0 ? await ledger.archivedProofs(window.at, window.count) : [];
      return {
        from: window.at,
        proofs: proofs.map(({ id, root, ctx, proof, refund }) => ({
          id,
          root,
          ctx,
          refund,
          proof: Buffer.from(proof).toString('base64'),
        })),
        next: window.at + window.count,
      };
    },
  );

  app.get('/archive/state', { schema: archiveStateSchema }, async (_request, reply) => {
    const [head, gaps] = await Promise.all([ledger.publishedState(), ledger.archiveState()]);
    reply.header('cache-control', 'no-cache');
    return {
      pageSize: PAGE_SIZES.archive,
      events: head.events,
      ...gaps,
      retentionDays: ledger.proofRetentionMs / 86_400_000,
    };
  });
}
