/**
 * @module The attested unpaid sets in the pool's PostgreSQL database (`attested-sets.ts`): a
 * small connection pool of its own; a record is one transaction, a read one snapshot.
 */

import pg from 'pg';

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
import { transaction } from './postgres-transaction.js';

const SQL = ATTESTED_SETS_SQL.postgres;

/** Opens the sets on the database at `connectionString`, which the pool store has migrated. */
export function openPostgresAttestedSets(
  connectionString: string,
  onIdleError?: (error: Error) => void,
): AttestedSets {
  const connections = new pg.Pool({
    connectionString,
    max: 2,
    connectionTimeoutMillis: 5000,
    statement_timeout: 15_000,
    query_timeout: 16_000,
    lock_timeout: 10_000,
    idle_in_transaction_session_timeout: 30_000,
    idleTimeoutMillis: 30_000,
    application_name: 'priv-stark-attested-sets',
  });
  connections.on('error', (error) => onIdleError?.(error));
  return new PostgresAttestedSets(connections);
}

class PostgresAttestedSets implements AttestedSets {
  private closed: Promise<void> | null = null;

  constructor(private readonly connections: pg.Pool) {}

  private async run<T>(what: string, body: () => Promise<T>): Promise<T> {
    if (this.closed) throw new PoolUnavailableError('the attested sets are closed');
    try {
      return await body();
    } catch (error) {
      throw unavailable(error, what);
    }
  }

  record(set: AttestedSet, now: number): Promise<void> {
    const s = canonicalSet(set);
    return this.run('recording an attested set', () =>
      transaction(this.connections, async (client) => {
        await client.query(SQL.upsertSet, [s.unpaidRoot, s.seq, s.withdrawals.length, now]);
        await client.query(SQL.insertWithdrawals, [
          s.unpaidRoot,
          s.withdrawals.map((w) => w.withdrawalId),
          s.withdrawals.map((w) => w.to),
          s.withdrawals.map((w) => w.amount),
        ]);
        await client.query(SQL.pruneWithdrawals);
        await client.query(SQL.pruneSets);
      }),
    );
  }

  byRoot(unpaidRoot: string): Promise<AttestedSet | null> {
    const root = unpaidRoot.toLowerCase();
    return this.run('reading an attested set', () =>
      transaction(this.connections, async (client) => {
        const set = await client.query<AttestedSetRow>(SQL.set, [root]);
        const rows = await client.query<AttestedWithdrawalRow>(SQL.withdrawals, [root]);
        return attestedSetOf(set.rows[0], rows.rows);
      }),
    );
  }

  close(): Promise<void> {
    this.closed ??= this.connections.end().catch(() => undefined);
    return this.closed;
  }
}
