/**
 * @module The attested unpaid sets in the pool's SQLite file (`attested-sets.ts`): a connection of
 * its own, `synchronous=FULL` like the store's, each record one `BEGIN IMMEDIATE` transaction.
 */

import Database from 'better-sqlite3';

import {
  ATTESTED_SETS_SQL,
  type AttestedSet,
  type AttestedSetRow,
  type AttestedSets,
  type AttestedWithdrawalRow,
  attestedSetOf,
  canonicalSet,
} from './attested-sets.js';
import { PoolUnavailableError, unavailable } from './errors.js';

const SQL = ATTESTED_SETS_SQL.sqlite;

/**
 * Opens the sets in the SQLite file at `path`, which the pool store has migrated.
 * @throws PoolUnavailableError when the file cannot be opened or lacks the tables
 */
export function openSqliteAttestedSets(path: string, busyTimeoutMs = 5000): AttestedSets {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true, timeout: busyTimeoutMs });
  } catch (error) {
    throw unavailable(error, 'opening the attested sets');
  }
  try {
    db.pragma('synchronous = FULL');
    return new SqliteAttestedSets(db);
  } catch (error) {
    db.close();
    throw unavailable(error, 'opening the attested sets');
  }
}

class SqliteAttestedSets implements AttestedSets {
  private closed = false;
  private readonly recordTx: Database.Transaction<(set: AttestedSet, now: number) => void>;
  private readonly setStatement: Database.Statement;
  private readonly withdrawalsStatement: Database.Statement;

  constructor(private readonly db: Database.Database) {
    const upsertSet = db.prepare(SQL.upsertSet);
    const insertWithdrawal = db.prepare(SQL.insertWithdrawal);
    const pruneWithdrawals = db.prepare(SQL.pruneWithdrawals);
    const pruneSets = db.prepare(SQL.pruneSets);
    this.setStatement = db.prepare(SQL.set);
    this.withdrawalsStatement = db.prepare(SQL.withdrawals);
    this.recordTx = db.transaction((set: AttestedSet, now: number) => {
      upsertSet.run(set.unpaidRoot, set.seq, set.withdrawals.length, now);
      for (const w of set.withdrawals)
        insertWithdrawal.run(set.unpaidRoot, w.withdrawalId, w.to, w.amount);
      pruneWithdrawals.run();
      pruneSets.run();
    });
  }

  private guard<T>(what: string, body: () => T): Promise<T> {
    if (this.closed)
      return Promise.reject(new PoolUnavailableError('the attested sets are closed'));
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(unavailable(error, what));
    }
  }

  record(set: AttestedSet, now: number): Promise<void> {
    return this.guard('recording an attested set', () =>
      this.recordTx.immediate(canonicalSet(set), now),
    );
  }

  byRoot(unpaidRoot: string): Promise<AttestedSet | null> {
    const root = unpaidRoot.toLowerCase();
    return this.guard('reading an attested set', () =>
      this.db
        .transaction(() =>
          attestedSetOf(
            this.setStatement.get(root) as AttestedSetRow | undefined,
            this.withdrawalsStatement.all(root) as AttestedWithdrawalRow[],
          ),
        )
        .deferred(),
    );
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.db.close();
    }
    return Promise.resolve();
  }
}
