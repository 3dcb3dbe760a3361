/**
 * @module Per-key rate limits with `@fastify/rate-limit`, checked right after auth and before the
 * body is parsed (`onRequest`). A key is limited only when its policy (or the configuration's
 * default) has a rate limit. The counters live in memory, or — when instances share PostgreSQL —
 * in a table of that database, so every instance counts against the same window.
 */

import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';

import { PoolUnavailableError } from '../ledger/errors.js';
import type { RateLimitStore, RateLimitStoreClass } from '../listener/shared-rate-limit.js';
import { ReasonError } from './errors.js';

/** The table of shared counters. */
export const RATE_LIMIT_TABLE = 'priv_stark_rate_limits';

/** An arbitrary fixed key for the advisory lock that serialises creating that table. */
const RATE_LIMIT_LOCK_KEY = 0x7072_6c74;

const INCREMENT = `
INSERT INTO ${RATE_LIMIT_TABLE} AS r (key, count, window_start)
VALUES ($1, 1, (extract(epoch from clock_timestamp()) * 1000)::bigint)
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN r.window_start + $2 <= (extract(epoch from clock_timestamp()) * 1000)::bigint THEN 1 ELSE r.count + 1 END,
  window_start = CASE WHEN r.window_start + $2 <= (extract(epoch from clock_timestamp()) * 1000)::bigint
    THEN (extract(epoch from clock_timestamp()) * 1000)::bigint ELSE r.window_start END
RETURNING count, window_start + $2 - (extract(epoch from clock_timestamp()) * 1000)::bigint AS ttl`;

/**
 * A rate-limit store over PostgreSQL (one row per key, windows by the database's clock), shared
 * by every instance on that database. Creates its table if missing.
 */
export async function postgresRateLimitStore(connections: pg.Pool): Promise<RateLimitStoreClass> {
  // CREATE TABLE IF NOT EXISTS is not safe against itself: two instances starting together on a
  // fresh database both create the table's row type and one fails ("type … already exists").
  // A transaction-scoped advisory lock makes the second wait and then find the table.
  const client = await connections.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [RATE_LIMIT_LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${RATE_LIMIT_TABLE} (key text PRIMARY KEY, count integer NOT NULL, window_start bigint NOT NULL)`,
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return class PostgresRateLimitStore implements RateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      connections.query<{ count: number; ttl: string }>(INCREMENT, [key, timeWindow]).then(
        (result) => {
          const row = result.rows[0];
          callback(null, {
            current: row?.count ?? 1,
            ttl: Math.max(0, Number(row?.ttl ?? timeWindow)),
          });
        },
        (error: unknown) =>
          callback(new PoolUnavailableError('the rate-limit store failed', { cause: error })),
      );
    }

    child(): RateLimitStore {
      return this;
    }
  };
}

/** What the limiter needs to know about a request's caller. */
export interface RateLimitedCaller {
  readonly id: string;
  readonly policy: {
    readonly rateLimit?: { readonly max: number; readonly timeWindowMs: number } | undefined;
  };
}

/**
 * Registers the limiter for the routes declared after it in this scope. Callers without a rate
 * limit (and requests without a caller, like `/health`) pass untouched.
 * @param callerOf the caller set by the auth hook, which runs first
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: {
    callerOf: (request: FastifyRequest) => RateLimitedCaller | null;
    store?: RateLimitStoreClass | undefined;
  },
): Promise<void> {
  const limitOf = (request: FastifyRequest) => options.callerOf(request)?.policy.rateLimit;
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    keyGenerator: (request) => `key:${options.callerOf(request)?.id ?? ''}`,
    allowList: (request) => limitOf(request) === undefined,
    max: async (request) => limitOf(request)?.max ?? Number.MAX_SAFE_INTEGER,
    timeWindow: async (request) => limitOf(request)?.timeWindowMs ?? 60_000,
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    addHeaders: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
      'retry-after': true,
    },
    errorResponseBuilder: () => new ReasonError('rate_limited'),
    ...(options.store ? { store: options.store } : {}),
  });
}
