/**
 * @module The shared pool store: PostgreSQL through node-postgres, for several facilitator
 * instances and pool nodes on one ledger. Appends lock the one `pool_head` row (`FOR UPDATE`) for
 * the length of their transaction, so groups from any number of processes apply one after the
 * other and leaf indexes, event ids and checkpoint numbers become visible in order; the primary key
 * on `nullifiers` stays as the backstop. Commits use PostgreSQL's default `synchronous_commit = on`:
 * a resolved `apply` is on disk. Every wait is bounded (connect, lock and statement timeouts), so a
 * server that is down or stuck gives `PoolUnavailableError`, never a hang. A group's reads and
 * writes under the lock are `postgres-group.ts`, transactions and the migration
 * `postgres-transaction.ts`, the rows `postgres-rows.ts`.
 */

import pg from 'pg';

import type { DigestHex, Frontier } from '../core/index.js';
import { CommitTimingSums, type CommitTimingTotals } from './commit-stats.js';
import { unavailable } from './errors.js';
import { planGroup } from './group-plan.js';
import { SCHEMA_VERSION, SchemaTooNewError } from './migrations.js';
import { readGroup, writeGroup } from './postgres-group.js';
import {
  CHECKPOINT_COLUMNS,
  type CheckpointRow,
  checkpointOf,
  EVENT_COLUMNS,
  HEAD_COLUMNS,
  type HeadRow,
  handedOverOf,
  headOf,
  PROOF_COLUMNS,
  type ProofRow,
} from './postgres-rows.js';
import {
  archivedProofHashes,
  archivedProofs,
  archiveState,
  pruneArchive,
} from './postgres-proof-archive.js';
import {
  checkpointCoverage,
  latestLogDigest,
  logDigests,
  recordLogDigests,
} from './postgres-log-digests.js';
import { migrate, transaction } from './postgres-transaction.js';
import type { CheckpointCoverage, LogDigestRecord } from './log-digests.js';
import { PUBLISH_SQL, PUBLISHED_EVENTS_SQL, publishedStateOf } from './public-log.js';
import type {
  ArchivedProof,
  ArchivedProofHash,
  ArchivePrune,
  ArchiveState,
  Checkpoint,
  HandedOverProof,
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
  checkpointStamp,
  type EventRow,
  eventFromRow,
  type Head,
  type WithdrawalListRow,
  withdrawalRecordOf,
} from './store-rows.js';

/** The head, the latest checkpoint and what the events past it add, in one statement. */
const PUBLISHED_STATE_SQL = `SELECT h.deposit_total, h.withdrawn_total, h.paid_out_total,
    h.refunded_total, c.seq AS c_seq, c.root AS c_root, c.size AS c_size, c.created_at AS c_time,
    c.events AS c_events, u.deposit AS u_deposit, u.withdrawal AS u_withdrawal,
    u.refund AS u_refund
  FROM pool_head h
  LEFT JOIN LATERAL (SELECT seq, root, size, created_at, events FROM checkpoints
    ORDER BY seq DESC LIMIT 1) c ON true
  LEFT JOIN LATERAL (SELECT
      COALESCE(SUM(amount::numeric) FILTER (WHERE kind = 'deposit'), 0)::text AS deposit,
      COALESCE(SUM(amount::numeric) FILTER (WHERE kind = 'withdrawal'), 0)::text AS withdrawal,
      COALESCE(SUM(amount::numeric) FILTER (WHERE kind = 'refund'), 0)::text AS refund
    FROM events WHERE id > COALESCE(c.events, 0)) u ON true
  WHERE h.id = 1`;

/** A row of {@link PUBLISHED_STATE_SQL}. */
interface PublishedStateRow {
  deposit_total: string;
  withdrawn_total: string;
  paid_out_total: string;
  refunded_total: string;
  c_seq: string | null;
  c_root: string;
  c_size: string;
  c_time: string;
  c_events: string;
  u_deposit: string;
  u_withdrawal: string;
  u_refund: string;
}

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

class PostgresStore implements PoolStore {
  readonly kind = 'postgres' as const;
  readonly schemaVersion = SCHEMA_VERSION;
  private closed = false;

  /** Nullifier lookups waiting for the next event-loop turn, answered by one query. */
  private lookups = new Map<
    string,
    { resolve: (spent: SpentNullifier | null) => void; reject: (error: unknown) => void }[]
  >();

  private readonly emptyRoot: DigestHex;
  /** The commits of `apply` by phase (`commit-stats.ts`). */
  private readonly timing = new CommitTimingSums();

  constructor(
    private readonly pool: pg.Pool,
    private readonly writes: pg.Pool,
    private readonly tree: TreeHasher,
  ) {
    this.emptyRoot = tree.emptyFrontier().root as DigestHex;
  }

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
          const known = await readGroup(client, ops);
          const plan = planGroup(
            this.tree,
            head,
            ops,
            known.spent,
            known.present,
            known.stored,
            now,
            known.withdrawals,
          );
          if (plan.head === null) return plan.results;
          await writeGroup(client, plan, plan.head);
          return plan.results;
        },
        { lockHead: true, timing: (timing) => this.timing.add(timing) },
      ),
    );
  }

  /** The commits' time by phase since open (`PoolStore.commitTiming`). */
  commitTiming(): CommitTimingTotals {
    return this.timing.snapshot();
  }

  checkpoint(now: number, minGapMs: number, epochMs = 1): Promise<Checkpoint | null> {
    return this.run('checkpoint', () =>
      transaction(
        this.writes,
        async (client, locked) => {
          const head = locked as Head;
          const { rows } = await client.query<CheckpointRow>(
            `SELECT ${CHECKPOINT_COLUMNS}, events FROM checkpoints ORDER BY seq DESC LIMIT 1`,
          );
          const time = checkpointStamp(head, checkpointOf(rows[0]), now, minGapMs, epochMs);
          if (time === null) return null;
          const checkpoint: Checkpoint = {
            seq: head.checkpointCount + 1,
            root: head.root,
            size: head.size,
            time,
          };
          await client.query(
            'INSERT INTO checkpoints (seq, root, size, created_at, events) VALUES ($1, $2, $3, $4, $5)',
            [checkpoint.seq, checkpoint.root, checkpoint.size, checkpoint.time, head.eventCount],
          );
          // Its events become public with it: placed in nullifier order, stamped with its time.
          const placed = await client.query<{ base: string }>(PUBLISH_SQL.postgres.base);
          await client.query(PUBLISH_SQL.postgres.place, [Number(placed.rows[0]?.base ?? 0)]);
          await client.query(PUBLISH_SQL.postgres.stamp, [
            checkpoint.seq,
            Number(rows[0]?.events ?? 0),
          ]);
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

  pruneArchive(before: number, pageSize: number): Promise<ArchivePrune> {
    return this.run('archive prune', () => pruneArchive(this.writes, before, pageSize));
  }

  archivedProofs(after: number, limit: number): Promise<ArchivedProof[]> {
    return this.run('archive', () => archivedProofs(this.pool, after, limit));
  }

  archivedProofHashes(after: number, limit: number): Promise<ArchivedProofHash[]> {
    return this.run('archive hashes', () => archivedProofHashes(this.pool, after, limit));
  }

  archiveState(): Promise<ArchiveState> {
    return this.run('archive state', () => archiveState(this.pool));
  }

  checkpointCoverage(after: number, limit: number): Promise<CheckpointCoverage[]> {
    return this.run('checkpoint coverage', () => checkpointCoverage(this.pool, after, limit));
  }

  logDigests(after: number, limit: number): Promise<LogDigestRecord[]> {
    return this.run('log digests', () => logDigests(this.pool, after, limit));
  }

  latestLogDigest(): Promise<LogDigestRecord | null> {
    return this.run('log digest', () => latestLogDigest(this.pool));
  }

  recordLogDigests(records: readonly LogDigestRecord[]): Promise<void> {
    return this.run('log digest record', () => recordLogDigests(this.writes, records));
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

  publishedState(): Promise<StoreState> {
    return this.run('published state', async () => {
      // One statement: one snapshot of the head, the latest checkpoint and the newer events.
      const { rows } = await this.pool.query<PublishedStateRow>(PUBLISHED_STATE_SQL);
      const row = rows[0];
      if (!row) throw new Error('pool_head row missing');
      const latest =
        row.c_seq === null
          ? null
          : {
              seq: Number(row.c_seq),
              root: row.c_root as DigestHex,
              size: Number(row.c_size),
              time: Number(row.c_time),
              events: Number(row.c_events),
            };
      const unpublished = {
        deposit: BigInt(row.u_deposit),
        withdrawal: BigInt(row.u_withdrawal),
        refund: BigInt(row.u_refund),
      };
      return publishedStateOf(
        {
          depositTotal: row.deposit_total,
          withdrawnTotal: row.withdrawn_total,
          paidOutTotal: row.paid_out_total,
          refundedTotal: row.refunded_total,
        },
        latest,
        unpublished,
        this.emptyRoot,
      );
    });
  }

  publishedEvents(after: number, limit: number): Promise<PoolEvent[]> {
    return this.run('published events', async () => {
      const { rows } = await this.pool.query<EventRow>(PUBLISHED_EVENTS_SQL.postgres, [
        after,
        limit,
      ]);
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
