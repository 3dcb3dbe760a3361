/**
 * @module The shared pool store: PostgreSQL through node-postgres, for several facilitator
 * instances and pool nodes on one ledger. Appends lock the one `pool_head` row (`FOR UPDATE`) for
 * the length of their transaction, so groups from any number of processes apply one after the
 * other and leaf indexes, event ids and checkpoint numbers become visible in order; the primary key
 * on `nullifiers` stays as the backstop. Commits use PostgreSQL's default `synchronous_commit = on`:
 * a resolved `apply` is on disk. Every wait is bounded (connect, lock and statement timeouts), so a
 * server that is down or stuck gives `PoolUnavailableError`, never a hang.
 */

import pg from 'pg';

import type { DigestHex, Frontier, ProofReference } from '../core/index.js';
import { unavailable } from './errors.js';
import { MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION, SchemaTooNewError } from './migrations.js';
import { planGroup } from './group-plan.js';
import type {
  Checkpoint,
  HandedOverProof,
  HandOverOp,
  PoolEvent,
  PoolStore,
  SpentNullifier,
  StoreOp,
  StoreOpResult,
  StoreState,
  TreeHasher,
  WithdrawalRecord,
} from './store.js';
import {
  checkpointDue,
  emptyHead,
  type EventRow,
  eventFromRow,
  type Head,
  type KnownWithdrawal,
  knownWithdrawalOf,
  type WithdrawalListRow,
  type WithdrawalLookupRow,
  withdrawalRecordOf,
} from './store-rows.js';

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /** The core's tree arithmetic. */
  readonly tree: TreeHasher;
  /** `postgres://user@host:port/database` (the `DATABASE_URL`). */
  readonly connectionString: string;
  /** Connections in the pool (default 8). */
  readonly maxConnections?: number;
  /** Bound on connecting, waiting for a lock, and any one statement, ms (default 5000 / 10000 / 15000). */
  readonly connectTimeoutMs?: number;
  readonly lockTimeoutMs?: number;
  readonly statementTimeoutMs?: number;
  /** Called with errors of idle connections (the server went away); they never crash the process. */
  readonly onIdleError?: (error: Error) => void;
}

/** An arbitrary fixed key for the advisory lock that serialises migrations. */
const MIGRATION_LOCK_KEY = 0x70737461726b; // "pstark"

interface HeadRow {
  size: string;
  root: string;
  frontier: Buffer;
  event_count: string;
  checkpoint_count: string;
  deposit_total: string;
  proof_rows: string;
  withdrawn_total: string;
  paid_out_total: string;
  refunded_total: string;
}

interface ProofRow {
  reference: string;
  parameter_set: number;
  root: string;
  nullifier: string;
  change: string;
  amount: string;
  ctx: string;
  expires_at: string;
}

interface CheckpointRow {
  seq: string;
  root: string;
  size: string;
  created_at: string;
}

function headOf(row: HeadRow): Head {
  return {
    size: Number(row.size),
    root: row.root as DigestHex,
    frontier: new Uint8Array(row.frontier),
    eventCount: Number(row.event_count),
    checkpointCount: Number(row.checkpoint_count),
    depositTotal: row.deposit_total,
    proofRows: Number(row.proof_rows),
    withdrawnTotal: row.withdrawn_total,
    paidOutTotal: row.paid_out_total,
    refundedTotal: row.refunded_total,
  };
}

function handedOverOf(row: ProofRow | undefined): HandedOverProof | null {
  return row
    ? {
        reference: row.reference as ProofReference,
        parameterSet: Number(row.parameter_set),
        root: row.root as DigestHex,
        nullifier: row.nullifier as DigestHex,
        change: row.change as DigestHex,
        amount: row.amount,
        ctx: row.ctx as DigestHex,
        expiresAt: Number(row.expires_at),
      }
    : null;
}

function checkpointOf(row: CheckpointRow | undefined): Checkpoint | null {
  return row
    ? {
        seq: Number(row.seq),
        root: row.root as DigestHex,
        size: Number(row.size),
        time: Number(row.created_at),
      }
    : null;
}

const HEAD_COLUMNS =
  'size, root, frontier, event_count, checkpoint_count, deposit_total, proof_rows, withdrawn_total, paid_out_total, refunded_total';
const PROOF_COLUMNS = 'reference, parameter_set, root, nullifier, change, amount, ctx, expires_at';
const CHECKPOINT_COLUMNS = 'seq, root, size, created_at';
const EVENT_COLUMNS =
  'id, kind, created_at, amount, leaf_index, commitment, nullifier, settlement_id, recipient, recipient_note, nullifier_2, memo, refund';

/**
 * Inserts handed-over proofs (or keeps a stored reference again with its new time) in one
 * multi-row statement whose proofs are binary parameters.
 */
async function insertProofs(client: pg.PoolClient, proofs: readonly HandOverOp[]): Promise<void> {
  const params: unknown[] = [];
  const rows = proofs.map((p) => {
    const at = params.length;
    params.push(
      p.reference,
      p.nullifier,
      p.parameterSet,
      p.root,
      p.change,
      p.amount,
      p.ctx,
      p.expiresAt,
      Buffer.from(p.proof.buffer, p.proof.byteOffset, p.proof.length),
    );
    return `(${Array.from({ length: 9 }, (_, i) => `$${at + i + 1}`).join(', ')})`;
  });
  await client.query(
    `INSERT INTO proofs (reference, nullifier, parameter_set, root, change, amount, ctx, expires_at, proof)
     VALUES ${rows.join(', ')}
     ON CONFLICT (reference) DO UPDATE SET expires_at = excluded.expires_at`,
    params,
  );
}

/**
 * Opens (migrating as needed) the PostgreSQL pool store.
 * @throws PoolUnavailableError when the server cannot be reached or the migration fails
 * @example
 * const store = await openPostgresStore({ tree: core, connectionString: process.env.DATABASE_URL! });
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PoolStore> {
  const settings = (max: number, name: string): pg.PoolConfig => ({
    connectionString: options.connectionString,
    max,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    query_timeout: (options.statementTimeoutMs ?? 15_000) + 1000,
    statement_timeout: options.statementTimeoutMs ?? 15_000,
    lock_timeout: options.lockTimeoutMs ?? 10_000,
    idle_in_transaction_session_timeout: 30_000,
    idleTimeoutMillis: 30_000,
    application_name: name,
  });
  // Writes get connections of their own, so a group commit never queues behind reads.
  const reads = new pg.Pool(settings(options.maxConnections ?? 8, 'priv-stark-pool'));
  const writes = new pg.Pool(settings(2, 'priv-stark-pool-writer'));
  for (const pool of [reads, writes]) pool.on('error', (error) => options.onIdleError?.(error));
  try {
    await migrate(writes, options.tree);
  } catch (error) {
    await Promise.all([reads.end(), writes.end()]).catch(() => undefined);
    if (error instanceof SchemaTooNewError) throw error;
    throw unavailable(error, 'migration');
  }
  return new PostgresStore(reads, writes, options.tree);
}

/**
 * Runs `body` in a transaction on a connection of `pool`. With `lockHead`, the transaction starts by
 * locking the head row — `BEGIN` and the `FOR UPDATE` go in one round trip — and `body` gets the row.
 */
async function transaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient, head: Head | null) => Promise<T>,
  options: { lockHead?: boolean } = {},
): Promise<T> {
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
    const out = await body(client, head);
    await client.query('COMMIT');
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

async function migrate(pool: pg.Pool, tree: TreeHasher): Promise<void> {
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

class PostgresStore implements PoolStore {
  readonly kind = 'postgres' as const;
  readonly schemaVersion = SCHEMA_VERSION;
  private closed = false;

  /** Nullifier lookups waiting for the next event-loop turn, answered by one query. */
  private lookups = new Map<
    string,
    { resolve: (spent: SpentNullifier | null) => void; reject: (error: unknown) => void }[]
  >();

  constructor(
    private readonly pool: pg.Pool,
    private readonly writes: pg.Pool,
    private readonly tree: TreeHasher,
  ) {}

  private async writeHead(client: pg.PoolClient, head: Head): Promise<void> {
    await client.query(
      'UPDATE pool_head SET size = $1, root = $2, frontier = $3, event_count = $4, checkpoint_count = $5, deposit_total = $6, proof_rows = $7 WHERE id = 1',
      [
        head.size,
        head.root,
        Buffer.from(head.frontier),
        head.eventCount,
        head.checkpointCount,
        head.depositTotal,
        head.proofRows,
      ],
    );
  }

  private async run<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw unavailable(error, what);
    }
  }

  apply(ops: readonly StoreOp[], now: number): Promise<StoreOpResult[]> {
    if (ops.length === 0) return Promise.resolve([]);
    return this.run('apply', () =>
      transaction(
        this.writes,
        async (client, locked) => {
          const head = locked as Head;
          // Under the lock (a statement after it, so its snapshot sees every earlier commit): which
          // of the group's nullifiers are spent, which deposit commitments are in the tree, which
          // handed-over references are stored (and until when), and the proofs per nullifier.
          const nullifiersOfGroup = ops.flatMap((op) =>
            op.kind === 'deposit' || op.kind === 'payout'
              ? []
              : op.kind === 'transition'
                ? op.nullifiers
                : [op.nullifier],
          );
          const payoutIds = ops.flatMap((op) => (op.kind === 'payout' ? [op.withdrawalId] : []));
          const withdrawals = new Map<string, KnownWithdrawal>();
          if (payoutIds.length > 0) {
            const found = await client.query<WithdrawalLookupRow & { settlement_id: string }>(
              `SELECT e.settlement_id, e.amount, e.refund, e.nullifier, p.status FROM events e
               LEFT JOIN payouts p ON p.withdrawal_id = e.settlement_id
               WHERE e.kind = 'withdrawal' AND e.settlement_id = ANY($1::text[])`,
              [payoutIds],
            );
            for (const row of found.rows)
              withdrawals.set(row.settlement_id, knownWithdrawalOf(row));
          }
          const { rows } = await client.query<{
            k: 'n' | 'c' | 'r' | 'p';
            v: string;
            x: string | null;
          }>(
            `SELECT 'n' AS k, nullifier AS v, NULL AS x FROM nullifiers WHERE nullifier = ANY($1::text[])
             UNION ALL
             SELECT DISTINCT 'c' AS k, commitment AS v, NULL AS x FROM leaves WHERE commitment = ANY($2::text[])
             UNION ALL
             SELECT 'r' AS k, reference AS v, expires_at::text AS x FROM proofs WHERE reference = ANY($3::text[])
             UNION ALL
             SELECT 'p' AS k, nullifier AS v, COUNT(*)::text AS x FROM proofs WHERE nullifier = ANY($1::text[]) GROUP BY nullifier`,
            [
              nullifiersOfGroup,
              ops.flatMap((op) => (op.kind === 'deposit' ? [op.commitment] : [])),
              ops.flatMap((op) => (op.kind === 'handover' ? [op.reference] : [])),
            ],
          );
          const spent = new Set(rows.filter((r) => r.k === 'n').map((r) => r.v));
          const present = new Set(rows.filter((r) => r.k === 'c').map((r) => r.v));
          const existing = new Map(rows.filter((r) => r.k === 'r').map((r) => [r.v, Number(r.x)]));
          const perNullifier = new Map(
            rows.filter((r) => r.k === 'p').map((r) => [r.v, Number(r.x)]),
          );
          const plan = planGroup(
            this.tree,
            head,
            ops,
            spent,
            present,
            { existing, perNullifier },
            now,
            withdrawals,
          );
          if (plan.head === null) return plan.results;
          // Every row of the group and the new head in one statement.
          const e = plan.events;
          const h = plan.head;
          await client.query(
            `WITH l AS (INSERT INTO leaves (idx, commitment) SELECT * FROM unnest($1::bigint[], $2::text[])),
                  n AS (INSERT INTO nullifiers (nullifier, settlement_id, event_id)
                        SELECT * FROM unnest($3::text[], $4::text[], $5::bigint[])),
                  e AS (INSERT INTO events (${EVENT_COLUMNS})
                        SELECT * FROM unnest($6::bigint[], $7::text[], $8::bigint[], $9::text[], $10::bigint[],
                                             $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
                                             $24::text[], $25::text[], $26::text[])),
                  d AS (DELETE FROM proofs WHERE nullifier = ANY($23::text[])),
                  pa AS (INSERT INTO payouts (withdrawal_id, status, updated_at)
                         SELECT * FROM unnest($27::text[], $28::text[], $29::bigint[])
                         ON CONFLICT (withdrawal_id) DO UPDATE
                           SET status = excluded.status, updated_at = excluded.updated_at)
             UPDATE pool_head SET size = $16, root = $17, frontier = $18, event_count = $19, checkpoint_count = $20,
                                  deposit_total = $21, proof_rows = $22, withdrawn_total = $30,
                                  paid_out_total = $31, refunded_total = $32
             WHERE id = 1`,
            [
              plan.leaves.map((l) => l.idx),
              plan.leaves.map((l) => l.commitment),
              plan.nullifiers.map((n) => n.nullifier),
              plan.nullifiers.map((n) => n.settlement_id),
              plan.nullifiers.map((n) => n.event_id),
              e.map((r) => r.id),
              e.map((r) => r.kind),
              e.map((r) => r.created_at),
              e.map((r) => r.amount),
              e.map((r) => r.leaf_index),
              e.map((r) => r.commitment),
              e.map((r) => r.nullifier),
              e.map((r) => r.settlement_id),
              e.map((r) => r.recipient),
              e.map((r) => r.recipient_note),
              h.size,
              h.root,
              Buffer.from(h.frontier),
              h.eventCount,
              h.checkpointCount,
              h.depositTotal,
              h.proofRows,
              plan.dropProofsOf,
              e.map((r) => r.nullifier_2),
              e.map((r) => r.memo),
              e.map((r) => r.refund),
              plan.payouts.map((p) => p.withdrawal_id),
              plan.payouts.map((p) => p.status),
              plan.payouts.map((p) => p.updated_at),
              h.withdrawnTotal,
              h.paidOutTotal,
              h.refundedTotal,
            ],
          );
          // Handed-over proofs in a statement of their own, each proof a binary parameter: in an
          // array parameter node-postgres sends bytea as hex text for the server to parse (about
          // 2.4 ms of server CPU per 62 KB proof, against 0.5 bound as binary).
          if (plan.proofs.length > 0) await insertProofs(client, plan.proofs);
          return plan.results;
        },
        { lockHead: true },
      ),
    );
  }

  checkpoint(now: number, minGapMs: number): Promise<Checkpoint | null> {
    return this.run('checkpoint', () =>
      transaction(
        this.writes,
        async (client, locked) => {
          const head = locked as Head;
          const { rows } = await client.query<CheckpointRow>(
            `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints ORDER BY seq DESC LIMIT 1`,
          );
          if (!checkpointDue(head, checkpointOf(rows[0]), now, minGapMs)) return null;
          const checkpoint: Checkpoint = {
            seq: head.checkpointCount + 1,
            root: head.root,
            size: head.size,
            time: now,
          };
          await client.query(
            'INSERT INTO checkpoints (seq, root, size, created_at) VALUES ($1, $2, $3, $4)',
            [checkpoint.seq, checkpoint.root, checkpoint.size, checkpoint.time],
          );
          await this.writeHead(client, { ...head, checkpointCount: checkpoint.seq });
          return checkpoint;
        },
        { lockHead: true },
      ),
    );
  }

  pruneProofs(now: number): Promise<number> {
    return this.run('prune', () =>
      transaction(
        this.writes,
        async (client, locked) => {
          const head = locked as Head;
          const { rowCount } = await client.query('DELETE FROM proofs WHERE expires_at <= $1', [
            now,
          ]);
          const dropped = rowCount ?? 0;
          if (dropped > 0)
            await this.writeHead(client, { ...head, proofRows: head.proofRows - dropped });
          return dropped;
        },
        { lockHead: true },
      ),
    );
  }

  handedOver(reference: string): Promise<HandedOverProof | null> {
    return this.run('proof lookup', async () => {
      const { rows } = await this.pool.query<ProofRow>(
        `SELECT ${PROOF_COLUMNS} FROM proofs WHERE reference = $1`,
        [reference],
      );
      return handedOverOf(rows[0]);
    });
  }

  proofCount(): Promise<number> {
    return this.run('proof count', async () => {
      const { rows } = await this.pool.query<{ proof_rows: string }>(
        'SELECT proof_rows FROM pool_head WHERE id = 1',
      );
      return Number(rows[0]?.proof_rows ?? 0);
    });
  }

  state(): Promise<StoreState> {
    return this.run('state', async () => {
      const { rows } = await this.pool.query<
        HeadRow & { c_seq: string | null; c_root: string; c_size: string; c_time: string }
      >(
        `SELECT h.size, h.root, h.event_count, h.deposit_total, h.withdrawn_total, h.paid_out_total, h.refunded_total, c.seq AS c_seq, c.root AS c_root, c.size AS c_size, c.created_at AS c_time
         FROM pool_head h LEFT JOIN LATERAL (SELECT seq, root, size, created_at FROM checkpoints ORDER BY seq DESC LIMIT 1) c ON true
         WHERE h.id = 1`,
      );
      const row = rows[0];
      if (!row) throw new Error('pool_head row missing');
      return {
        size: Number(row.size),
        root: row.root as DigestHex,
        events: Number(row.event_count),
        depositTotal: row.deposit_total,
        withdrawnTotal: row.withdrawn_total,
        paidOutTotal: row.paid_out_total,
        refundedTotal: row.refunded_total,
        checkpoint:
          row.c_seq === null
            ? null
            : {
                seq: Number(row.c_seq),
                root: row.c_root as DigestHex,
                size: Number(row.c_size),
                time: Number(row.c_time),
              },
      };
    });
  }

  withdrawals(after: number, limit: number): Promise<WithdrawalRecord[]> {
    return this.run('withdrawals', async () => {
      const { rows } = await this.pool.query<WithdrawalListRow>(
        `SELECT e.id, e.settlement_id, e.amount, e.recipient, e.created_at, p.status, p.updated_at
         FROM events e LEFT JOIN payouts p ON p.withdrawal_id = e.settlement_id
         WHERE e.kind = 'withdrawal' AND e.id > $1 ORDER BY e.id LIMIT $2`,
        [after, limit],
      );
      return rows.map(withdrawalRecordOf);
    });
  }

  frontier(): Promise<Frontier> {
    return this.run('frontier', async () => {
      const { rows } = await this.pool.query<HeadRow>(
        `SELECT ${HEAD_COLUMNS} FROM pool_head WHERE id = 1`,
      );
      if (!rows[0]) throw new Error('pool_head row missing');
      const head = headOf(rows[0]);
      return { size: head.size, root: head.root, state: head.frontier };
    });
  }

  checkpointByRoot(root: string): Promise<Checkpoint | null> {
    return this.run('checkpoint lookup', async () => {
      const { rows } = await this.pool.query<CheckpointRow>(
        `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE root = $1`,
        [root],
      );
      return checkpointOf(rows[0]);
    });
  }

  checkpoints(after: number, limit: number): Promise<Checkpoint[]> {
    return this.run('checkpoints', async () => {
      const { rows } = await this.pool.query<CheckpointRow>(
        `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE seq > $1 ORDER BY seq LIMIT $2`,
        [after, limit],
      );
      return rows.map((row) => checkpointOf(row) as Checkpoint);
    });
  }

  leaves(from: number, limit: number): Promise<DigestHex[]> {
    return this.run('leaves', async () => {
      const { rows } = await this.pool.query<{ commitment: DigestHex }>(
        'SELECT commitment FROM leaves WHERE idx >= $1 ORDER BY idx LIMIT $2',
        [from, limit],
      );
      return rows.map((row) => row.commitment);
    });
  }

  events(after: number, limit: number): Promise<PoolEvent[]> {
    return this.run('events', async () => {
      const { rows } = await this.pool.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE id > $1 ORDER BY id LIMIT $2`,
        [after, limit],
      );
      return rows.map(eventFromRow);
    });
  }

  nullifier(nullifier: string): Promise<SpentNullifier | null> {
    return new Promise((resolve, reject) => {
      const waiting = this.lookups.get(nullifier);
      if (waiting) {
        waiting.push({ resolve, reject });
        return;
      }
      this.lookups.set(nullifier, [{ resolve, reject }]);
      if (this.lookups.size === 1) setImmediate(() => void this.flushLookups());
    });
  }

  /** Answers every queued nullifier lookup with one query. */
  private async flushLookups(): Promise<void> {
    const batch = this.lookups;
    this.lookups = new Map();
    try {
      const { rows } = await this.run('nullifier lookup', () =>
        this.pool.query<{ nullifier: string; settlement_id: string; event_id: string }>(
          'SELECT nullifier, settlement_id, event_id FROM nullifiers WHERE nullifier = ANY($1::text[])',
          [[...batch.keys()]],
        ),
      );
      const found = new Map(
        rows.map((row) => [
          row.nullifier,
          { settlementId: row.settlement_id, eventId: Number(row.event_id) },
        ]),
      );
      for (const [nullifier, waiters] of batch)
        for (const w of waiters) w.resolve(found.get(nullifier) ?? null);
    } catch (error) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
    }
  }

  ping(): Promise<void> {
    return this.run('ping', async () => {
      await this.pool.query('SELECT 1');
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([this.pool.end(), this.writes.end()]).catch(() => undefined);
  }
}
