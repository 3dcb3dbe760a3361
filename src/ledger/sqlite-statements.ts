/**
 * @module The SQLite store's statements, prepared once per connection and kept for its life (see
 * `openSqliteStore`: a statement left to the garbage collector can abort the process), and the rows
 * they return with how they become the store's values.
 */

import type Database from 'better-sqlite3';

import type { DigestHex, ProofReference } from '../core/index.js';
import { PUBLISH_SQL, PUBLISHED_EVENTS_SQL, type PublishingCheckpoint } from './public-log.js';
import type { Checkpoint, HandedOverProof } from './store.js';
import type { Head } from './store-rows.js';

/**
 * Every statement the store runs, by name, in the order they are prepared. Those in
 * {@link PLUCKED} answer their first column only.
 */
const STATEMENTS = {
  head: 'SELECT size, root, frontier, event_count, checkpoint_count, deposit_total, proof_rows, withdrawn_total, paid_out_total, refunded_total FROM pool_head WHERE id = 1',
  writeHead:
    'UPDATE pool_head SET size = ?, root = ?, frontier = ?, event_count = ?, checkpoint_count = ?, deposit_total = ?, proof_rows = ?, withdrawn_total = ?, paid_out_total = ?, refunded_total = ? WHERE id = 1',
  withdrawal: `SELECT e.amount, e.refund, e.nullifier, p.status FROM events e
    LEFT JOIN payouts p ON p.withdrawal_id = e.settlement_id
    WHERE e.kind = 'withdrawal' AND e.settlement_id = ?`,
  withdrawals: `SELECT e.id, e.settlement_id, e.amount, e.recipient, e.created_at, p.status, p.updated_at
    FROM events e LEFT JOIN payouts p ON p.withdrawal_id = e.settlement_id
    WHERE e.kind = 'withdrawal' AND e.id > ? ORDER BY e.id LIMIT ?`,
  upsertPayout: `INSERT INTO payouts (withdrawal_id, status, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (withdrawal_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`,
  proofExpiry: 'SELECT expires_at FROM proofs WHERE reference = ?',
  proofsOf: 'SELECT COUNT(*) FROM proofs WHERE nullifier = ?',
  insertProof: `INSERT INTO proofs (reference, nullifier, parameter_set, root, change, amount, ctx, proof, proof_sha256, expires_at)
    VALUES (@reference, @nullifier, @parameterSet, @root, @change, @amount, @ctx, @proof, @proofSha256, @expiresAt)
    ON CONFLICT (reference) DO UPDATE SET expires_at = excluded.expires_at`,
  dropProofsOf: 'DELETE FROM proofs WHERE nullifier = ?',
  pruneProofs: 'DELETE FROM proofs WHERE expires_at <= ?',
  handedOver:
    'SELECT reference, parameter_set, root, nullifier, change, amount, ctx, expires_at FROM proofs WHERE reference = ?',
  proofCount: 'SELECT proof_rows FROM pool_head WHERE id = 1',
  spent: 'SELECT settlement_id, event_id FROM nullifiers WHERE nullifier = ?',
  present: 'SELECT 1 FROM leaves WHERE commitment = ? LIMIT 1',
  insertLeaf: 'INSERT INTO leaves (idx, commitment) VALUES (?, ?)',
  insertNullifier: 'INSERT INTO nullifiers (nullifier, settlement_id, event_id) VALUES (?, ?, ?)',
  insertEvent: `INSERT INTO events (id, kind, created_at, amount, leaf_index, commitment, nullifier, settlement_id, recipient, recipient_note, nullifier_2, memo, refund)
    VALUES (@id, @kind, @created_at, @amount, @leaf_index, @commitment, @nullifier, @settlement_id, @recipient, @recipient_note, @nullifier_2, @memo, @refund)`,
  latestCheckpoint:
    'SELECT seq, root, size, created_at, events FROM checkpoints ORDER BY seq DESC LIMIT 1',
  insertCheckpoint:
    'INSERT INTO checkpoints (seq, root, size, created_at, events) VALUES (?, ?, ?, ?, ?)',
  placedEvents: PUBLISH_SQL.sqlite.base,
  placeEvents: PUBLISH_SQL.sqlite.place,
  stampEvents: PUBLISH_SQL.sqlite.stamp,
  checkpointByRoot: 'SELECT seq, root, size, created_at FROM checkpoints WHERE root = ?',
  checkpoints:
    'SELECT seq, root, size, created_at FROM checkpoints WHERE seq > ? ORDER BY seq LIMIT ?',
  leaves: 'SELECT commitment FROM leaves WHERE idx >= ? ORDER BY idx LIMIT ?',
  events: `SELECT id, kind, created_at, amount, leaf_index, commitment, nullifier, settlement_id, recipient, recipient_note, nullifier_2, memo, refund
    FROM events WHERE id > ? ORDER BY id LIMIT ?`,
  publishedEvents: PUBLISHED_EVENTS_SQL.sqlite,
  unpublishedAmounts: `SELECT kind, amount FROM events
    WHERE id > ? AND kind IN ('deposit', 'withdrawal', 'refund')`,
  ping: 'SELECT 1',
} as const;

/** The statements whose rows are their first column. */
const PLUCKED: ReadonlySet<StatementName> = new Set<StatementName>([
  'proofExpiry',
  'proofsOf',
  'proofCount',
  'leaves',
  'placedEvents',
  'ping',
]);

/** The name of a statement of the store. */
export type StatementName = keyof typeof STATEMENTS;

/** The SQLite store's statements, by name ({@link prepareStatements}). */
export type SqliteStatements = { readonly [name in StatementName]: Database.Statement };

/** Every statement the store runs, prepared on `db` (in {@link STATEMENTS}' order). */
export function prepareStatements(db: Database.Database): SqliteStatements {
  const prepared = {} as Record<StatementName, Database.Statement>;
  for (const [name, sql] of Object.entries(STATEMENTS) as [StatementName, string][]) {
    const statement = db.prepare(sql);
    prepared[name] = PLUCKED.has(name) ? statement.pluck() : statement;
  }
  return prepared;
}

/** The `pool_head` row. */
export interface HeadRow {
  size: number;
  root: string;
  frontier: Buffer;
  event_count: number;
  checkpoint_count: number;
  deposit_total: string;
  proof_rows: number;
  withdrawn_total: string;
  paid_out_total: string;
  refunded_total: string;
}

/** A `proofs` row without its bytes. */
export interface ProofRow {
  reference: string;
  parameter_set: number;
  root: string;
  nullifier: string;
  change: string;
  amount: string;
  ctx: string;
  expires_at: number;
}

/** A `checkpoints` row (`events` read only where it is asked for). */
export interface CheckpointRow {
  seq: number;
  root: string;
  size: number;
  created_at: number;
  events?: number;
}

/** The head row as the group plan takes it. */
export function headOf(row: HeadRow): Head {
  return {
    size: row.size,
    root: row.root as DigestHex,
    frontier: new Uint8Array(row.frontier),
    eventCount: row.event_count,
    checkpointCount: row.checkpoint_count,
    depositTotal: row.deposit_total,
    proofRows: row.proof_rows,
    withdrawnTotal: row.withdrawn_total,
    paidOutTotal: row.paid_out_total,
    refundedTotal: row.refunded_total,
  };
}

/** A stored handed-over proof, `null` when there is no row. */
export function handedOverOf(row: ProofRow | undefined): HandedOverProof | null {
  return row
    ? {
        reference: row.reference as ProofReference,
        parameterSet: row.parameter_set,
        root: row.root as DigestHex,
        nullifier: row.nullifier as DigestHex,
        change: row.change as DigestHex,
        amount: row.amount,
        ctx: row.ctx as DigestHex,
        expiresAt: row.expires_at,
      }
    : null;
}

/** A checkpoint, `null` when there is no row. */
export function checkpointOf(row: CheckpointRow | undefined): Checkpoint | null {
  return row
    ? { seq: row.seq, root: row.root as DigestHex, size: row.size, time: row.created_at }
    : null;
}

/** The latest checkpoint with the events it published, `null` when there is none. */
export function publishingCheckpointOf(
  row: CheckpointRow | undefined,
): PublishingCheckpoint | null {
  return row ? { ...(checkpointOf(row) as Checkpoint), events: row.events ?? 0 } : null;
}
