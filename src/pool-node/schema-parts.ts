/**
 * @module The pieces every schema of the pool node's wire is built from (TypeBox): digests,
 * amounts, counts, the error body, a page's query and its bounds. Requests are checked as sent:
 * nothing is coerced, and unknown fields are refused by each body and query.
 */

import { type Static, Type } from 'typebox';

import type { DigestHex } from '../core/digest.js';

const DIGEST_PATTERN = '^0x[0-9a-f]{64}$';
const DIGEST_EXAMPLE = `0x${'1f'.repeat(32)}`;

/** A digest a wallet sends: `0x` + 64 lowercase hex digits (its canonical form is the ledger's check). */
export const digestText = (description?: string) =>
  Type.String({
    pattern: DIGEST_PATTERN,
    example: DIGEST_EXAMPLE,
    ...(description === undefined ? {} : { description }),
  });

/** A digest the node answers: the ledger's own, so typed as the ledger types it. */
export const digest = (description?: string) => Type.Unsafe<DigestHex>(digestText(description));

/**
 * A decimal amount in atomic units. Replies allow 40 digits (totals); what a wallet sends allows 32
 * (`{ pattern: SENT_AMOUNT }`), the ledger's range check follows.
 */
export const amount = (options: { pattern?: string; description?: string } = {}) =>
  Type.String({
    pattern: '^[0-9]{1,40}$',
    description: 'decimal atomic units',
    example: '1000000',
    ...options,
  });

/** The pattern of an amount a wallet sends. */
export const SENT_AMOUNT = '^[0-9]{1,32}$';

/** A count, an index or a cursor. */
export const count = (description?: string) =>
  Type.Integer({ minimum: 0, ...(description === undefined ? {} : { description }) });

/** One of a few strings (`{ type: 'string', enum }`), typed as their union. */
export const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({
    type: 'string',
    enum: values,
    ...(description === undefined ? {} : { description }),
  });

/** An expiry a wallet sends, unix seconds. */
export const expiry = () => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** A proof a wallet sends, bounded by its route's body limit. */
export const proofText = () =>
  // The canonical-base64 check refuses a proof over 128 KiB.
  Type.String({ description: 'canonical standard base64 of the proof bytes' });

/** The error body of every 4xx and 5xx. */
export const errorBody = (description = 'a stable snake_case reason and a generic message') =>
  Type.Object(
    { error: Type.String({ example: 'invalid_request' }), message: Type.String() },
    { description },
  );

/** The refusals every read route may answer. */
export const readErrors = () => ({
  400: errorBody('the request does not match the schema'),
  503: errorBody('the pool store is unavailable'),
});

/** A refusal of a wallet's write (`POST /transfers`, `POST /transitions`). */
export const writeRefusal = (description: string) =>
  Type.Object(
    {
      error: Type.String(),
      message: Type.String(),
      transaction: Type.Optional(Type.String()),
    },
    { description },
  );

/** A non-negative integer in a query string (queries are not coerced: every part is checked as sent). */
const queryInteger = (example: string) =>
  Type.String({
    pattern: '^(0|[1-9][0-9]{0,15})$',
    description: 'a non-negative integer',
    example,
  });

/** The query of a page read after a cursor (`?after=&limit=`). */
export const AfterPageQuery = Type.Object(
  { after: Type.Optional(queryInteger('0')), limit: Type.Optional(queryInteger('100')) },
  { additionalProperties: false },
);

/** The query of a page read after a cursor. */
export type AfterPage = Static<typeof AfterPageQuery>;

/** The query of a page read from an index (`?from=&limit=`). */
export const FromPageQuery = Type.Object(
  { from: Type.Optional(queryInteger('0')), limit: Type.Optional(queryInteger('100')) },
  { additionalProperties: false },
);
/** The query of a page read from an index. */
export type FromPage = Static<typeof FromPageQuery>;

/** A page number in a query string (ten digits at most: every page of a full tree fits). */
const pageNumber = () =>
  Type.String({
    pattern: '^(0|[1-9][0-9]{0,9})$',
    description: 'a fixed page: items page × size onwards (PAGE_SIZES)',
    example: '0',
  });

/**
 * The query of a public list: `?page=` — a fixed page, the same URL for every wallet — or the
 * older cursor `?after=&limit=`, kept for wallets from before fixed pages (not both).
 */
export const AfterOrPageQuery = Type.Object(
  {
    page: Type.Optional(pageNumber()),
    after: Type.Optional(queryInteger('0')),
    limit: Type.Optional(queryInteger('100')),
  },
  { additionalProperties: false },
);
/** The query of a public list read after a cursor, or by page. */
export type AfterOrPage = Static<typeof AfterOrPageQuery>;

/** The query of the leaves: `?page=`, or the older `?from=&limit=` (not both). */
export const FromOrPageQuery = Type.Object(
  {
    page: Type.Optional(pageNumber()),
    from: Type.Optional(queryInteger('0')),
    limit: Type.Optional(queryInteger('100')),
  },
  { additionalProperties: false },
);
/** The query of the leaves, from an index or by page. */
export type FromOrPage = Static<typeof FromOrPageQuery>;

/** A query that takes no field. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/** Query limits: a page never exceeds these. */
export const PAGE_LIMITS = {
  leaves: { default: 1024, max: 4096 },
  events: { default: 100, max: 1000 },
  checkpoints: { default: 100, max: 1000 },
} as const;

/** A page's `limit` query: its value, the default when absent, or the 400 message when out of bounds. */
export function limitOf(
  text: string | undefined,
  bounds: { default: number; max: number },
): number | string {
  if (text === undefined) return bounds.default;
  const value = Number(text);
  if (value < 1 || value > bounds.max)
    return `querystring/limit must be between 1 and ${bounds.max}`;
  return value;
}
