/**
 * @module The PostgreSQL store's transactions — the head row locked in the same round trip as
 * `BEGIN` for every write, a connection dropped after any failure — and its migration at open,
 * serialised across processes by an advisory lock.
 */

import type { CommitTiming } from './commit-stats.js';
import type pg from 'pg';

import { MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION, SchemaTooNewError } from './migrations.js';
import { HEAD_COLUMNS, type HeadRow, headOf } from './postgres-rows.js';
import type { TreeHasher } from './store.js';
import { emptyHead, type Head } from './store-rows.js';

/** An arbitrary fixed key for the advisory lock that serialises migrations. */
const MIGRATION_LOCK_KEY = 0x70737461726b; // "pstark"

/**
 * Runs `body` in a transaction on a connection of `pool`. With `lockHead`, the transaction starts by
 * locking the head row — `BEGIN` and the `FOR UPDATE` go in one round trip — and `body` gets the row.
 * With `timing`, a committed transaction reports where its time went.
 */
export async function transaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient, head: Head | null) => Promise<T>,
  options: { lockHead?: boolean; timing?: (timing: CommitTiming) => void } = {},
): Promise<T> {
  const begun = performance.now();
  const client = await pool.connect();
  // A checked-out client whose connection dies emits 'error'; the failing query reports it too.
  let broken: Error | null = null;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    let head: Head | null = null;
    if (options.lockHead) {
      // Simple-protocol multi-statement (no parameters): one round trip, two results.
      const results = (await client.query(
        `BEGIN; SELECT ${HEAD_COLUMNS} FROM pool_head WHERE id = 1 FOR UPDATE`,
      )) as unknown as pg.QueryResult<HeadRow>[];
      const row = results[1]?.rows[0];
      if (!row) throw new Error('pool_head row missing');
      head = headOf(row);
    } else {
      await client.query('BEGIN');
    }
    const locked = performance.now();
    const out = await body(client, head);
    const worked = performance.now();
    await client.query('COMMIT');
    // The lock wait includes waiting for a pooled connection.
    options.timing?.({
      lockMs: locked - begun,
      workMs: worked - locked,
      syncMs: performance.now() - worked,
    });
    client.removeListener('error', onError);
    client.release();
    return out;
  } catch (error) {
    // The connection's state is unknown after a failure: roll back if it still answers, then drop it.
    if (broken === null) await client.query('ROLLBACK').catch(() => undefined);
    // keep a listener: the dropped connection may still report its end
    client.release(true);
    throw error;
  }
}

/**
 * Applies the missing migrations in order, under an advisory lock, and writes an empty ledger's
 * head if there is none.
 * @throws SchemaTooNewError when the database was written by a newer schema
 */
export async function migrate(pool: pg.Pool, tree: TreeHasher): Promise<void> {
  await transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(MIGRATIONS_TABLE.postgres);
    const { rows } = await client.query<{ v: number | null }>(
      'SELECT MAX(version) AS v FROM schema_migrations',
    );
    const current = rows[0]?.v ?? 0;
    if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current);
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.postgres);
      await client.query(
        'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
        [migration.version, migration.name, Date.now()],
      );
    }
    const head = emptyHead(tree);
    await client.query(
      `INSERT INTO pool_head (id, ${HEAD_COLUMNS}) VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
      [
        head.size,
        head.root,
        Buffer.from(head.frontier),
        head.eventCount,
        head.checkpointCount,
        head.depositTotal,
        head.proofRows,
        head.withdrawnTotal,
        head.paidOutTotal,
        head.refundedTotal,
      ],
    );
  });
}
