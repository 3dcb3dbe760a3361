/**
 * @module The public log in fixed pages: page `p` of a list holds its items `p × size` onwards
 * ({@link PAGE_SIZES}), so every wallet asks the same URLs whatever it has read, and a wallet
 * filters out what it already holds. A page the published head has filled never changes:
 * `Cache-Control: public, max-age=31536000, immutable`, for any HTTP cache or mirror to keep. The
 * last page, still filling, is `public, no-cache` with a strong `ETag` drawn from the published
 * head (no row read), so a cache revalidates it at each read and the node answers 304 while no
 * checkpoint came: a wallet never gets a tail older than the head it was shown — it could not
 * check that head's root against its leaves otherwise — and a checkpoint every few seconds would
 * outdate any max-age anyway. Cursor reads (`?after=`, `?from=`) name one wallet's place: `no-store`.
 */

import type { FastifyReply, FastifyRequest } from 'fastify';

import { ARCHIVE_PAGE_SIZE } from '../ledger/proof-archive.js';
import type { StoreState } from '../ledger/store.js';

/**
 * Items per fixed page of each public list; the archive's are positions of the events list, each
 * with its event's proof when it has one.
 */
export const PAGE_SIZES = {
  leaves: 4096,
  events: 1000,
  checkpoints: 1000,
  archive: ARCHIVE_PAGE_SIZE,
} as const;

/** A list of the public log served in fixed pages. */
export type PublicList = keyof typeof PAGE_SIZES;

/** A full page: kept for a year, never revalidated. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page still filling: stored, revalidated at every read. */
export const REVALIDATE = 'public, no-cache';
/** A cursor's reply, or the head: nothing for a cache to keep. */
export const NO_STORE = 'no-store';

/** Where a page lies in its list: the first item's place, how many items it holds, whether full. */
export interface PageWindow {
  /** Items before the page (a leaf index, or the position / seq the page reads after). */
  readonly at: number;
  /** Items of the page the published head holds. */
  readonly count: number;
  readonly full: boolean;
}

/** How many items of `list` the published `head` holds. */
export function publishedCount(list: PublicList, head: StoreState): number {
  if (list === 'leaves') return head.size;
  if (list === 'events' || list === 'archive') return head.events;
  return head.checkpoint?.seq ?? 0;
}

/** Page `page` of `list` under the published `head`. */
export function pageWindow(list: PublicList, page: number, head: StoreState): PageWindow {
  const size = PAGE_SIZES[list];
  const at = page * size;
  const published = publishedCount(list, head);
  return { at, count: Math.max(0, Math.min(size, published - at)), full: published >= at + size };
}

/** The strong validator of a filling page: its list, its number and the head that fixes it. */
function pageTag(list: PublicList, page: number, head: StoreState): string {
  return `"${list}.${page}.${head.checkpoint?.seq ?? 0}.${head.root.slice(2, 18)}"`;
}

/** Whether an `If-None-Match` header names `tag` (or `*`); weak forms compare too (RFC 9110). */
function matches(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(',')
    .map((part) => part.trim().replace(/^W\//, ''))
    .some((part) => part === tag || part === '*');
}

/**
 * Sets a page's caching headers.
 * @returns true when the request already holds this filling page: answer 304 without a body
 */
export function cachePage(
  request: FastifyRequest,
  reply: FastifyReply,
  list: PublicList,
  page: number,
  head: StoreState,
  window: PageWindow,
): boolean {
  if (window.full) {
    reply.header('cache-control', IMMUTABLE);
    return false;
  }
  const tag = pageTag(list, page, head);
  reply.header('cache-control', REVALIDATE).header('etag', tag);
  return matches(request.headers['if-none-match'], tag);
}

/**
 * A list's query read: a fixed page, or the older cursor with its limit (or the 400 message).
 * @param cursor the cursor's value (`after` or `from`), `undefined` when absent
 */
export function listRead(
  query: { readonly page?: string | undefined; readonly limit?: string | undefined },
  cursor: string | undefined,
  limitOf: (text: string | undefined) => number | string,
): { page: number } | { at: number; limit: number } | string {
  if (query.page !== undefined) {
    if (cursor !== undefined || query.limit !== undefined)
      return 'querystring/page cannot be combined with a cursor or a limit';
    return { page: Number(query.page) };
  }
  const limit = limitOf(query.limit);
  return typeof limit === 'string' ? limit : { at: Number(cursor ?? 0), limit };
}
