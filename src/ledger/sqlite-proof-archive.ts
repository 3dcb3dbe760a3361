/**
 * @module The proof archive in SQLite (`proof-archive.ts`): its statements, prepared once per
 * connection and kept for its life as the store's are; the group's proofs written inside its
 * transaction, the public pages read, whole pages pruned inside a transaction of the store's.
 */

import { createHash } from 'node:crypto';

import type Database from 'better-sqlite3';

import {
  ARCHIVE_SQL,
  type ArchiveHashRow,
  type ArchivePageRow,
  type ArchiveRow,
  archivedProofHashOf,
  archivedProofOf,
  pruneTarget,
} from './proof-archive.js';
import type { ArchivedProof, ArchivedProofHash, ArchivePrune, ArchiveState } from './store.js';

const SQL = ARCHIVE_SQL.sqlite;

/**
 * SHA-256 of a proof's bytes with Node's own hash, kept beside them (`PROOF_HASH_MIGRATION`): the
 * store computes it where it writes, on the writer thread, not on the service's event loop.
 */
export function proofSha256(proof: Uint8Array): Buffer {
  return createHash('sha256').update(proof).digest();
}

/** The archive's statements on one connection. */
export class SqliteProofArchive {
  private readonly keep: Database.Statement;
  private readonly keepHandedOver: Database.Statement;
  private readonly page: Database.Statement;
  private readonly hashPage: Database.Statement;
  private readonly state: Database.Statement;
  private readonly publishedBefore: Database.Statement;
  private readonly drop: Database.Statement;
  private readonly markPruned: Database.Statement;
  private readonly legacyThrough: Database.Statement;

  constructor(db: Database.Database) {
    this.keep = db.prepare(SQL.keep);
    this.keepHandedOver = db.prepare(SQL.keepHandedOver);
    this.page = db.prepare(SQL.page);
    this.hashPage = db.prepare(SQL.hashes);
    this.state = db.prepare(SQL.state);
    this.publishedBefore = db.prepare(SQL.publishedBefore).pluck();
    this.drop = db.prepare(SQL.drop);
    this.markPruned = db.prepare(SQL.markPruned);
    this.legacyThrough = db.prepare(SQL.legacyThrough).pluck();
  }

  /**
   * Writes a group's archived proofs; inside its transaction, before the group drops the settled
   * nullifiers' hand-overs (a copy reads the stored row).
   */
  write(archive: readonly ArchiveRow[]): void {
    for (const row of archive) {
      if (row.reference !== null) {
        const { eventId, root, ctx, reference } = row;
        const copied = this.keepHandedOver.run(eventId, root, ctx, reference).changes;
        // The plan saw the row under this same lock: a missing one is a broken invariant.
        if (copied !== 1) throw new Error('an archived hand-over vanished under the store lock');
      } else {
        const bytes = Buffer.from(row.proof.buffer, row.proof.byteOffset, row.proof.length);
        this.keep.run(row.eventId, row.root, row.ctx, bytes, proofSha256(bytes));
      }
    }
  }

  /** Archived proofs of published positions in `(after, after + limit]`. */
  read(after: number, limit: number): ArchivedProof[] {
    return (this.page.all(after, after + limit) as ArchivePageRow[]).map(archivedProofOf);
  }

  /** The SHA-256 kept with each archived proof of published positions in `(after, after + limit]`. */
  hashes(after: number, limit: number): ArchivedProofHash[] {
    return (this.hashPage.all(after, after + limit) as ArchiveHashRow[]).map(archivedProofHashOf);
  }

  /** The archive's gaps. */
  gaps(): ArchiveState {
    const row = this.state.get() as { pruned_through: number; legacy_events: number } | undefined;
    if (!row) throw new Error('archive_state row missing');
    const legacyThrough =
      row.legacy_events === 0 ? 0 : Number(this.legacyThrough.get(row.legacy_events));
    return { prunedThrough: row.pruned_through, legacyThrough };
  }

  /** Drops whole pages published before `before`; inside a write transaction. */
  prune(before: number, pageSize: number): ArchivePrune {
    const from = this.gaps().prunedThrough;
    const published = Number(this.publishedBefore.get(before) ?? 0);
    const through = pruneTarget(published, pageSize, from);
    if (through === from) return { prunedThrough: from, dropped: 0 };
    const dropped = this.drop.run(from, through).changes;
    this.markPruned.run(through);
    return { prunedThrough: through, dropped };
  }
}
