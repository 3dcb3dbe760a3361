/**
 * @module The wire of the proof archive's reads (TypeBox): `GET /archive?page=` and
 * `GET /archive/state`.
 */

import { type Static, Type } from 'typebox';

import { count, digest, errorBody, NoQuery, proofText, readErrors } from './schema-parts.js';

/** The query of an archive page: its number, nothing else (the same URL for every reader). */
const ArchivePageQuery = Type.Object(
  {
    page: Type.String({
      pattern: '^(0|[1-9][0-9]{0,12})$',
      description: 'a fixed page: positions 100 × page + 1 onwards (PAGE_SIZES.archive)',
      example: '0',
    }),
  },
  { additionalProperties: false },
);

/** What an archive page answers. */
export const ArchivePageSchema = Type.Object({
  from: count('the positions before the page'),
  proofs: Type.Array(
    Type.Object({
      id: count('the position of the event the proof was applied with'),
      root: digest('the checkpoint root the proof is anchored to'),
      ctx: digest('the context digest it was verified against (a payment’s, a transition’s)'),
      refund: Type.Union([digest(), Type.Null()], {
        description:
          'a merge’s or split’s refund note (a note of 0, never appended), the public input its event does not show; null otherwise',
      }),
      proof: proofText(),
    }),
    {
      description:
        'one proof per settlement, transition and withdrawal of the page, by position; a deposit or refund has none',
    },
  ),
  next: count('the positions the page covers, with those before it'),
});

/** An archive page as a reader gets it. */
export type ArchivePage = Static<typeof ArchivePageSchema>;

/** What `GET /archive/state` answers. */
export const ArchiveStateSchema = Type.Object({
  pageSize: count('positions per page'),
  events: count('positions published (the archive covers the same)'),
  prunedThrough: count(
    'positions at or below this were pruned, past the retention (whole pages: 410 archive_pruned)',
  ),
  legacyThrough: count(
    'the highest position of an event applied before the archive existed (0: none)',
  ),
  retentionDays: Type.Number({ description: 'how long a proof is kept after it is published' }),
});

/** The archive's state as a reader gets it. */
export type ArchiveStateReply = Static<typeof ArchiveStateSchema>;

/** `GET /archive?page=`. */
export const archivePageSchema = {
  description:
    'the proofs the published events were applied with, by position: page p holds positions 100p + 1 onwards (immutable once full; 410 once pruned)',
  querystring: ArchivePageQuery,
  response: {
    200: ArchivePageSchema,
    410: errorBody('archive_pruned: the page is past the retention'),
    ...readErrors(),
  },
};

/** `GET /archive/state`. */
export const archiveStateSchema = {
  description: 'how far the archive reaches: page size, published positions and its two gaps',
  querystring: NoQuery,
  response: { 200: ArchiveStateSchema, ...readErrors() },
};

/** What `GET /digests?page=` answers. */
export const DigestsPageSchema = Type.Object({
  digests: Type.Array(
    Type.Object({
      seq: count('the checkpoint'),
      events: count('the events published up to it'),
      digest: digest('the log digest after them (docs/audit.md)'),
    }),
  ),
  next: count('the seq to read after'),
});

/** A page of recorded log digests. */
export type DigestsPage = Static<typeof DigestsPageSchema>;

/** `GET /digests?page=`. */
export const digestsPageSchema = {
  description:
    'the log digest the node recorded after each checkpoint: page p holds seq 1000p + 1 onwards (immutable once full)',
  querystring: Type.Object(
    {
      page: Type.String({
        pattern: '^(0|[1-9][0-9]{0,9})$',
        description: 'a fixed page: checkpoints 1000 × page + 1 onwards',
        example: '0',
      }),
    },
    { additionalProperties: false },
  ),
  response: { 200: DigestsPageSchema, ...readErrors() },
};
