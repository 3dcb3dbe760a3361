/**
 * @module The recorded log digests in PostgreSQL (`log-digests.ts`).
 */

import type pg from 'pg';

import {
  type CheckpointCoverage,
  coverageOf,
  LOG_DIGEST_SQL,
  type LogDigestRecord,
  type LogDigestRow,
  logDigestOf,
} from './log-digests.js';

const SQL = LOG_DIGEST_SQL.postgres;

export async function checkpointCoverage(
  pool: pg.Pool,
  after: number,
  limit: number,
): Promise<CheckpointCoverage[]> {
  const { rows } = await pool.query<LogDigestRow>(SQL.coverage, [after, limit]);
  return rows.map(coverageOf);
}

export async function logDigests(
  pool: pg.Pool,
  after: number,
  limit: number,
): Promise<LogDigestRecord[]> {
  const { rows } = await pool.query<LogDigestRow>(SQL.digests, [after, limit]);
  return rows.map(logDigestOf);
}

export async function latestLogDigest(pool: pg.Pool): Promise<LogDigestRecord | null> {
  const { rows } = await pool.query<LogDigestRow>(SQL.latest);
  return rows[0] ? logDigestOf(rows[0]) : null;
}

/** One statement: a record already there stands. */
export async function recordLogDigests(
  pool: pg.Pool,
  records: readonly LogDigestRecord[],
): Promise<void> {
  if (records.length === 0) return;
  await pool.query(SQL.record, [
    records.map((r) => r.seq),
    records.map((r) => r.events),
    records.map((r) => r.digest),
  ]);
}
