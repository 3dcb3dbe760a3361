/**
 * @module The proof archive in PostgreSQL (`proof-archive.ts`): a group's proofs written in its
 * transaction, the public pages read, whole pages pruned under the head row's lock.
 */

import type pg from 'pg';

import {
  ARCHIVE_SQL,
  type ArchiveHashRow,
  type ArchivePageRow,
  type ArchiveRow,
  archivedProofHashOf,
  archivedProofOf,
  pruneTarget,
} from './proof-archive.js';
import { transaction } from './postgres-transaction.js';
import type { ArchivedProof, ArchivedProofHash, ArchivePrune, ArchiveState } from './store.js';

const SQL = ARCHIVE_SQL.postgres;

/** Proofs per insert statement: each a binary parameter (about 80 KB), a few MB a statement. */
const ROWS_PER_INSERT = 32;

/**
 * Writes a group's archived proofs, in its transaction and before its write drops the settled
 * nullifiers' hand-overs: the copies of stored hand-overs in one statement, the group's own bytes
 * as binary parameters (hex text in an array parameter costs the server a parse per proof).
 */
export async function writeArchive(
  client: pg.PoolClient,
  archive: readonly ArchiveRow[],
): Promise<void> {
  const copied = archive.filter((row) => row.reference !== null);
  if (copied.length > 0) {
    const { rowCount } = await client.query(SQL.keepHandedOver, [
      copied.map((row) => row.eventId),
      copied.map((row) => row.root),
      copied.map((row) => row.ctx),
      copied.map((row) => row.reference),
    ]);
    // The plan saw each row under this same lock: a missing one is a broken invariant.
    if (rowCount !== copied.length)
      throw new Error('an archived hand-over vanished under the store lock');
  }
  const own = archive.filter((row) => row.proof !== null);
  for (let at = 0; at < own.length; at += ROWS_PER_INSERT) {
    const chunk = own.slice(at, at + ROWS_PER_INSERT);
    const params = chunk.flatMap((row) => {
      const proof = row.proof as Uint8Array;
      const bytes = Buffer.from(proof.buffer, proof.byteOffset, proof.length);
      return [row.eventId, row.root, row.ctx, bytes];
    });
    // The hash by the server, from the bytes it stores (`PROOF_HASH_MIGRATION`).
    const values = chunk
      .map(
        (_, i) =>
          `($${4 * i + 1}, $${4 * i + 2}, $${4 * i + 3}, $${4 * i + 4}, sha256($${4 * i + 4}))`,
      )
      .join(', ');
    await client.query(
      `INSERT INTO proof_archive (event_id, root, ctx, proof, proof_sha256) VALUES ${values}`,
      params,
    );
  }
}

/** Archived proofs of published positions in `(after, after + limit]`. */
export async function archivedProofs(
  pool: pg.Pool,
  after: number,
  limit: number,
): Promise<ArchivedProof[]> {
  const { rows } = await pool.query<ArchivePageRow>(SQL.page, [after, after + limit]);
  return rows.map(archivedProofOf);
}

/** The SHA-256 kept with each archived proof of published positions in `(after, after + limit]`. */
export async function archivedProofHashes(
  pool: pg.Pool,
  after: number,
  limit: number,
): Promise<ArchivedProofHash[]> {
  const { rows } = await pool.query<ArchiveHashRow>(SQL.hashes, [after, after + limit]);
  return rows.map(archivedProofHashOf);
}

/** The archive's gaps. */
export async function archiveState(pool: pg.Pool): Promise<ArchiveState> {
  const { rows } = await pool.query<{ pruned_through: string; legacy_events: string }>(SQL.state);
  const state = rows[0];
  if (!state) throw new Error('archive_state row missing');
  const legacy = Number(state.legacy_events);
  if (legacy === 0) return { prunedThrough: Number(state.pruned_through), legacyThrough: 0 };
  const through = await pool.query<{ through: string }>(SQL.legacyThrough, [legacy]);
  return {
    prunedThrough: Number(state.pruned_through),
    legacyThrough: Number(through.rows[0]?.through ?? 0),
  };
}

/** Drops whole pages published before `before`, under the head row's lock. */
export function pruneArchive(
  writes: pg.Pool,
  before: number,
  pageSize: number,
): Promise<ArchivePrune> {
  return transaction(
    writes,
    async (client) => {
      const state = await client.query<{ pruned_through: string }>(SQL.state);
      const from = Number(state.rows[0]?.pruned_through ?? 0);
      const published = await client.query<{ events: string }>(SQL.publishedBefore, [before]);
      const through = pruneTarget(Number(published.rows[0]?.events ?? 0), pageSize, from);
      if (through === from) return { prunedThrough: from, dropped: 0 };
      const { rowCount } = await client.query(SQL.drop, [from, through]);
      await client.query(SQL.markPruned, [through]);
      return { prunedThrough: through, dropped: rowCount ?? 0 };
    },
    { lockHead: true },
  );
}
