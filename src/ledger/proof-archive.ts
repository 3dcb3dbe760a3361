/**
 * @module The proof archive (docs/audit.md, "Proof archive"): every settlement, transfer,
 * transition and exit keeps the proof it was applied with, written in the same commit as its event
 * — a payment that did not settle leaves nothing here — so anyone can verify again what the
 * operator accepted. It is read by public position, as the public log is (`public-log.ts`), and
 * pruned only in whole pages, so a page is either whole or gone: the pages the pool node serves
 * never change. The SQL of both dialects is here once.
 */

import type { DigestHex } from '../core/index.js';
import type { ArchivedProof, ArchivedProofHash, ProofBinding } from './store.js';

/** Positions per page of the archive (`GET /archive?page=`): about 8 MB of proofs a page. */
export const ARCHIVE_PAGE_SIZE = 100;

/** How long archived proofs are kept by default: 30 days after their event was published. */
export const DEFAULT_PROOF_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Migration 7. `proof_archive`: one proof per event, by the event's arrival id (its position comes
 * with its checkpoint). `archive_state`: how far whole pages were pruned, and the last event
 * applied before the archive existed (its proof was not kept), so a reader can tell the two gaps
 * apart from a missing proof. `checkpoints_time` finds the last checkpoint before a retention
 * cutoff. `log_digests`: the log digest after each checkpoint's events (`log-digests.ts`).
 * PostgreSQL stores the proofs uncompressed (`EXTERNAL`): they do not compress.
 */
export const PROOF_ARCHIVE_MIGRATION = {
  name: 'proof archive and log digests',
  sqlite: `
    CREATE TABLE proof_archive (
      event_id INTEGER PRIMARY KEY,
      root TEXT NOT NULL,
      ctx TEXT NOT NULL,
      proof BLOB NOT NULL
    );
    CREATE TABLE archive_state (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      pruned_through INTEGER NOT NULL,
      legacy_events INTEGER NOT NULL
    );
    INSERT INTO archive_state (id, pruned_through, legacy_events)
      SELECT 1, 0, COALESCE(MAX(id), 0) FROM events;
    CREATE INDEX checkpoints_time ON checkpoints (created_at, seq);
    CREATE TABLE log_digests (
      seq INTEGER PRIMARY KEY,
      events INTEGER NOT NULL,
      digest TEXT NOT NULL
    );`,
  postgres: `
    CREATE TABLE proof_archive (
      event_id BIGINT PRIMARY KEY,
      root TEXT NOT NULL,
      ctx TEXT NOT NULL,
      proof BYTEA NOT NULL
    );
    ALTER TABLE proof_archive ALTER COLUMN proof SET STORAGE EXTERNAL;
    CREATE TABLE archive_state (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      pruned_through BIGINT NOT NULL,
      legacy_events BIGINT NOT NULL
    );
    INSERT INTO archive_state (id, pruned_through, legacy_events)
      SELECT 1, 0, COALESCE(MAX(id), 0) FROM events;
    CREATE INDEX checkpoints_time ON checkpoints (created_at, seq);
    CREATE TABLE log_digests (
      seq BIGINT PRIMARY KEY,
      events BIGINT NOT NULL,
      digest TEXT NOT NULL
    );`,
} as const;

/**
 * Each kept proof's SHA-256 beside its bytes, in the archive and in the hand-overs it is copied
 * from: the log digests fold in that hash (docs/audit.md), and reading it back instead of the
 * proof saves the pool node an 82 KB read and a hash per settled proof. The store computes it
 * from the bytes it writes (SQLite's writer thread; PostgreSQL's `sha256()`); rows written before
 * have none, and the digester reads their bytes as before.
 */
export const PROOF_HASH_MIGRATION = {
  name: 'archived proof hashes',
  sqlite: `
    ALTER TABLE proof_archive ADD COLUMN proof_sha256 BLOB;
    ALTER TABLE proofs ADD COLUMN proof_sha256 BLOB;`,
  postgres: `
    ALTER TABLE proof_archive ADD COLUMN proof_sha256 BYTEA;
    ALTER TABLE proofs ADD COLUMN proof_sha256 BYTEA;`,
} as const;

/** The archive's statements, per dialect (parameters in the order each comment gives). */
export const ARCHIVE_SQL = {
  sqlite: {
    /** event id, root, ctx, proof bytes, their SHA-256 */
    keep: 'INSERT INTO proof_archive (event_id, root, ctx, proof, proof_sha256) VALUES (?, ?, ?, ?, ?)',
    /** event id, root, ctx, the handed-over reference whose stored bytes (and hash) are kept */
    keepHandedOver: `INSERT INTO proof_archive (event_id, root, ctx, proof, proof_sha256)
      SELECT ?, ?, ?, proof, proof_sha256 FROM proofs WHERE reference = ?`,
    /** after, last (positions) */
    hashes: `SELECT e.position AS id, a.proof_sha256 AS hash FROM events e
      JOIN proof_archive a ON a.event_id = e.id
      WHERE e.position > ? AND e.position <= ? ORDER BY e.position`,
    /** after, last (positions) */
    page: `SELECT e.position AS id, a.root, a.ctx, a.proof,
      CASE WHEN e.kind = 'transition' THEN e.refund END AS refund FROM events e
      JOIN proof_archive a ON a.event_id = e.id
      WHERE e.position > ? AND e.position <= ? ORDER BY e.position`,
    state: 'SELECT pruned_through, legacy_events FROM archive_state WHERE id = 1',
    /** before (unix ms): events published by the last checkpoint older than it */
    publishedBefore: `SELECT events FROM checkpoints WHERE created_at < ?
      ORDER BY created_at DESC, seq DESC LIMIT 1`,
    /** from, through (positions) */
    drop: `DELETE FROM proof_archive WHERE event_id IN
      (SELECT id FROM events WHERE position > ? AND position <= ?)`,
    /** through */
    markPruned: 'UPDATE archive_state SET pruned_through = ? WHERE id = 1',
    /** legacy events (arrival ids at or below it) */
    legacyThrough: 'SELECT COALESCE(MAX(position), 0) FROM events WHERE id <= ?',
  },
  postgres: {
    keepHandedOver: `INSERT INTO proof_archive (event_id, root, ctx, proof, proof_sha256)
      SELECT u.event_id, u.root, u.ctx, p.proof, p.proof_sha256
      FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS u(event_id, root, ctx, reference)
      JOIN proofs p ON p.reference = u.reference`,
    page: `SELECT e.position AS id, a.root, a.ctx, a.proof,
      CASE WHEN e.kind = 'transition' THEN e.refund END AS refund FROM events e
      JOIN proof_archive a ON a.event_id = e.id
      WHERE e.position > $1 AND e.position <= $2 ORDER BY e.position`,
    hashes: `SELECT e.position AS id, a.proof_sha256 AS hash FROM events e
      JOIN proof_archive a ON a.event_id = e.id
      WHERE e.position > $1 AND e.position <= $2 ORDER BY e.position`,
    state: 'SELECT pruned_through, legacy_events FROM archive_state WHERE id = 1',
    publishedBefore: `SELECT events FROM checkpoints WHERE created_at < $1
      ORDER BY created_at DESC, seq DESC LIMIT 1`,
    drop: `DELETE FROM proof_archive WHERE event_id IN
      (SELECT id FROM events WHERE position > $1 AND position <= $2)`,
    markPruned: 'UPDATE archive_state SET pruned_through = $1 WHERE id = 1',
    legacyThrough: 'SELECT COALESCE(MAX(position), 0) AS through FROM events WHERE id <= $1',
  },
} as const;

/**
 * A proof the group writes into the archive with its event: its bytes, or — for a proof handed over
 * before the group — the reference whose stored bytes the store copies (before the settlement drops
 * its nullifier's hand-overs).
 */
export type ArchiveRow = ArchiveSource & ProofBinding & { readonly eventId: number };

/** Where an archived proof's bytes come from: the group's own, or a stored hand-over's. */
export type ArchiveSource =
  | { readonly proof: Uint8Array; readonly reference: null }
  | { readonly proof: null; readonly reference: string };

/**
 * How far a prune may go: the events the last checkpoint before the cutoff published, rounded down
 * to whole pages — never below what was pruned already.
 * @param publishedBefore events published by the last checkpoint older than the cutoff (0: none)
 */
export function pruneTarget(
  publishedBefore: number,
  pageSize: number,
  prunedThrough: number,
): number {
  if (!Number.isSafeInteger(pageSize) || pageSize < 1)
    throw new RangeError(`archive page size must be a positive integer, got ${pageSize}`);
  return Math.max(prunedThrough, Math.floor(publishedBefore / pageSize) * pageSize);
}

/** A row of an archive page. */
export interface ArchivePageRow {
  id: number | string;
  root: string;
  ctx: string;
  proof: Buffer;
  refund: string | null;
}

/** An archive page's row as the store answers it. */
export function archivedProofOf(row: ArchivePageRow): ArchivedProof {
  return {
    id: Number(row.id),
    root: row.root as DigestHex,
    ctx: row.ctx as DigestHex,
    proof: new Uint8Array(row.proof),
    refund: (row.refund ?? null) as DigestHex | null,
  };
}

/** A row of the `hashes` query. */
export interface ArchiveHashRow {
  readonly id: number | string;
  readonly hash: Uint8Array | null;
}

/** An archived proof's hash as the store returns it (`null`: kept before hashes were). */
export function archivedProofHashOf(row: ArchiveHashRow): ArchivedProofHash {
  return {
    id: Number(row.id),
    hash:
      row.hash === null
        ? null
        : new Uint8Array(row.hash.buffer, row.hash.byteOffset, row.hash.length),
  };
}
