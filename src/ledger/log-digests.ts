/**
 * @module The log digests the pool node records (docs/audit.md, "Log digest"): after each
 * checkpoint, the digest of the public log up to the last event it published — what an
 * attestation posts and what any reader recomputes from the log and the archive. The store only
 * keeps them (`src/audit/log-digester.ts` computes them); the SQL of both dialects is here once.
 */

import type { DigestHex } from '../core/index.js';

/** The digest of the public log after checkpoint `seq`. */
export interface LogDigestRecord {
  readonly seq: number;
  /** Events published up to that checkpoint (positions 1 … events). */
  readonly events: number;
  readonly digest: DigestHex;
}

/** A checkpoint and the events published up to it. */
export interface CheckpointCoverage {
  readonly seq: number;
  readonly events: number;
}

/** The statements, per dialect. */
export const LOG_DIGEST_SQL = {
  sqlite: {
    coverage: 'SELECT seq, events FROM checkpoints WHERE seq > ? ORDER BY seq LIMIT ?',
    digests: 'SELECT seq, events, digest FROM log_digests WHERE seq > ? ORDER BY seq LIMIT ?',
    latest: 'SELECT seq, events, digest FROM log_digests ORDER BY seq DESC LIMIT 1',
    // Several pool nodes on one store compute the same digests: the first write stands.
    record:
      'INSERT INTO log_digests (seq, events, digest) VALUES (?, ?, ?) ON CONFLICT (seq) DO NOTHING',
  },
  postgres: {
    coverage: 'SELECT seq, events FROM checkpoints WHERE seq > $1 ORDER BY seq LIMIT $2',
    digests: 'SELECT seq, events, digest FROM log_digests WHERE seq > $1 ORDER BY seq LIMIT $2',
    latest: 'SELECT seq, events, digest FROM log_digests ORDER BY seq DESC LIMIT 1',
    record: `INSERT INTO log_digests (seq, events, digest)
      SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[]) ON CONFLICT (seq) DO NOTHING`,
  },
} as const;

/** A `log_digests` or coverage row as either driver returns it (PostgreSQL's BIGINT as text). */
export interface LogDigestRow {
  seq: number | string;
  events: number | string;
  digest?: string;
}

/** A recorded digest from its row. */
export function logDigestOf(row: LogDigestRow): LogDigestRecord {
  return { seq: Number(row.seq), events: Number(row.events), digest: row.digest as DigestHex };
}

/** A coverage row. */
export function coverageOf(row: LogDigestRow): CheckpointCoverage {
  return { seq: Number(row.seq), events: Number(row.events) };
}
