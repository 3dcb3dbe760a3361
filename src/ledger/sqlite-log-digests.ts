/**
 * @module The recorded log digests in SQLite (`log-digests.ts`): statements prepared once per
 * connection and kept for its life, as the store's are.
 */

import type Database from 'better-sqlite3';

import {
  type CheckpointCoverage,
  coverageOf,
  LOG_DIGEST_SQL,
  type LogDigestRecord,
  type LogDigestRow,
  logDigestOf,
} from './log-digests.js';

const SQL = LOG_DIGEST_SQL.sqlite;

/** The log digests' statements on one connection. */
export class SqliteLogDigests {
  private readonly coverageStatement: Database.Statement;
  private readonly digestsStatement: Database.Statement;
  private readonly latestStatement: Database.Statement;
  private readonly recordStatement: Database.Statement;
  private readonly recordTx: Database.Transaction<(records: readonly LogDigestRecord[]) => void>;

  constructor(db: Database.Database) {
    this.coverageStatement = db.prepare(SQL.coverage);
    this.digestsStatement = db.prepare(SQL.digests);
    this.latestStatement = db.prepare(SQL.latest);
    this.recordStatement = db.prepare(SQL.record);
    this.recordTx = db.transaction((records: readonly LogDigestRecord[]) => {
      for (const r of records) this.recordStatement.run(r.seq, r.events, r.digest);
    });
  }

  coverage(after: number, limit: number): CheckpointCoverage[] {
    return (this.coverageStatement.all(after, limit) as LogDigestRow[]).map(coverageOf);
  }

  digests(after: number, limit: number): LogDigestRecord[] {
    return (this.digestsStatement.all(after, limit) as LogDigestRow[]).map(logDigestOf);
  }

  latest(): LogDigestRecord | null {
    const row = this.latestStatement.get() as LogDigestRow | undefined;
    return row ? logDigestOf(row) : null;
  }

  /** Records in one write transaction (`IMMEDIATE`: the store's lock, as every write takes). */
  record(records: readonly LogDigestRecord[]): void {
    this.recordTx.immediate(records);
  }
}
