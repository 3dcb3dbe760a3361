/**
 * @module The error registry of the HTTP layer: one error class carrying a reason of the profile's
 * registry (`src/scheme/reasons.ts`), and the one mapping from anything thrown while serving a
 * request — Fastify's own errors (bad JSON, body too large, schema validation, media type), rate
 * limiting, a pool outage, a bug — to a reason. Driver and framework messages never reach a
 * caller: replies carry the registry's generic message only.
 */

import { PoolUnavailableError } from '../ledger/errors.js';
import { type Reason, statusOf } from '../scheme/index.js';

/** A request refused with a reason of the registry. */
export class ReasonError extends Error {
  readonly reason: Reason;
  /** The reason's status (Fastify reads `statusCode`). */
  readonly statusCode: number;

  constructor(reason: Reason, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'ReasonError';
    this.reason = reason;
    this.statusCode = statusOf(reason);
  }
}

/** Fastify error codes of a request that could not be read as a JSON body. */
const UNREADABLE_BODY = new Set([
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  'FST_ERR_CTP_EMPTY_TYPE',
  'FST_ERR_CTP_INVALID_TYPE',
  'FST_ERR_BAD_URL',
  'FST_ERR_ASYNC_CONSTRAINT',
  'FST_ERR_VALIDATION',
]);

interface ErrorLike {
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly validation?: unknown;
}

/**
 * The reason for anything thrown while serving a request.
 * @returns the reason, and whether it is a fault to log as an error
 */
export function reasonOf(error: unknown): { readonly reason: Reason; readonly fault: boolean } {
  if (error instanceof ReasonError) return { reason: error.reason, fault: false };
  if (error instanceof PoolUnavailableError) return { reason: 'pool_unavailable', fault: true };
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { reason: 'payload_too_large', fault: false };
  if (e.validation !== undefined || (typeof e.code === 'string' && UNREADABLE_BODY.has(e.code)))
    return { reason: 'invalid_payload', fault: false };
  // JSON syntax errors, prototype poisoning and other client errors of the body parser.
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return { reason: e.statusCode === 413 ? 'payload_too_large' : 'invalid_payload', fault: false };
  }
  return { reason: 'facilitator_error', fault: true };
}
