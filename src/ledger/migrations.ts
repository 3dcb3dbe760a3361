/**
 * @module Versioned schema migrations of the pool stores, one list for both dialects. Each store
 * applies the missing ones at start, in order, each in its own transaction under a lock (SQLite's
 * write lock, a PostgreSQL advisory lock), and records them in `schema_migrations`. A database
 * whose version is newer than this code knows is refused rather than guessed at.
 *
 * Never edit a migration that has shipped; add the next version.
 */

import { ATTESTED_SETS_MIGRATION } from './attested-sets.js';
import { PROOF_ARCHIVE_MIGRATION, PROOF_HASH_MIGRATION } from './proof-archive.js';
import { PUBLIC_LOG_MIGRATION } from './public-log.js';

/** One schema step. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

/** The table that records applied migrations (created before any migration runs). */
export const MIGRATIONS_TABLE = {
  sqlite: `CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`,
  postgres: `CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL
  )`,
} as const;

/**
 * The ledger. `pool_head` is one row holding the tree's frontier and the counters; it is also the
 * store's lock (`FOR UPDATE` in PostgreSQL; SQLite's `BEGIN IMMEDIATE` locks the whole file).
 * Leaf indexes, event ids and checkpoint numbers are assigned from it, so they have no gaps and
 * become visible in order. A settlement event's recipient note sits at `leaf_index + 1`.
 */
const V1 = {
  version: 1,
  name: 'ledger',
  sqlite: `
    CREATE TABLE pool_head (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      size INTEGER NOT NULL,
      root TEXT NOT NULL,
      frontier BLOB NOT NULL,
      event_count INTEGER NOT NULL,
      checkpoint_count INTEGER NOT NULL,
      deposit_total TEXT NOT NULL
    );
    CREATE TABLE leaves (
      idx INTEGER PRIMARY KEY,
      commitment TEXT NOT NULL
    );
    CREATE INDEX leaves_commitment ON leaves (commitment);
    CREATE TABLE nullifiers (
      nullifier TEXT PRIMARY KEY,
      settlement_id TEXT NOT NULL,
      event_id INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE checkpoints (
      seq INTEGER PRIMARY KEY,
      root TEXT NOT NULL UNIQUE,
      size INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE events (
      id INTEGER PRIMARY KEY,
      kind TEXT NOT NULL CHECK (kind IN ('deposit', 'settlement')),
      created_at INTEGER NOT NULL,
      amount TEXT NOT NULL,
      leaf_index INTEGER NOT NULL,
      commitment TEXT,
      nullifier TEXT,
      settlement_id TEXT,
      recipient TEXT,
      recipient_note TEXT
    );`,
  postgres: `
    CREATE TABLE pool_head (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      size BIGINT NOT NULL,
      root TEXT NOT NULL,
      frontier BYTEA NOT NULL,
      event_count BIGINT NOT NULL,
      checkpoint_count BIGINT NOT NULL,
      deposit_total TEXT NOT NULL
    );
    CREATE TABLE leaves (
      idx BIGINT PRIMARY KEY,
      commitment TEXT NOT NULL
    );
    CREATE INDEX leaves_commitment ON leaves (commitment);
    CREATE TABLE nullifiers (
      nullifier TEXT PRIMARY KEY,
      settlement_id TEXT NOT NULL,
      event_id BIGINT NOT NULL
    );
    CREATE TABLE checkpoints (
      seq BIGINT PRIMARY KEY,
      root TEXT NOT NULL UNIQUE,
      size BIGINT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE events (
      id BIGINT PRIMARY KEY,
      kind TEXT NOT NULL CHECK (kind IN ('deposit', 'settlement')),
      created_at BIGINT NOT NULL,
      amount TEXT NOT NULL,
      leaf_index BIGINT NOT NULL,
      commitment TEXT,
      nullifier TEXT,
      settlement_id TEXT,
      recipient TEXT,
      recipient_note TEXT
    );`,
} satisfies Migration;

/**
 * Handed-over proofs (compact payments): kept after the pool node verified them, each row the
 * verdict for its reference, dropped when its nullifier settles or its time passes. `proof_rows`
 * in the head counts them under the lock, so the store's capacity is checked without a scan. The
 * ~62 KB proof is the last column of an ordinary rowid table (SQLite): lookups by reference go
 * through the unique index and read the small columns, never the proof (in a WITHOUT ROWID table
 * every key search read the whole oversized record: 150 µs a lookup against 6).
 */
const V2 = {
  version: 2,
  name: 'handed-over proofs',
  sqlite: `
    ALTER TABLE pool_head ADD COLUMN proof_rows INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE proofs (
      reference TEXT NOT NULL UNIQUE,
      nullifier TEXT NOT NULL,
      parameter_set INTEGER NOT NULL,
      root TEXT NOT NULL,
      change TEXT NOT NULL,
      amount TEXT NOT NULL,
      ctx TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      proof BLOB NOT NULL
    );
    CREATE INDEX proofs_nullifier ON proofs (nullifier);
    CREATE INDEX proofs_expires_at ON proofs (expires_at);`,
  postgres: `
    ALTER TABLE pool_head ADD COLUMN proof_rows BIGINT NOT NULL DEFAULT 0;
    CREATE TABLE proofs (
      reference TEXT PRIMARY KEY,
      nullifier TEXT NOT NULL,
      parameter_set INTEGER NOT NULL,
      root TEXT NOT NULL,
      change TEXT NOT NULL,
      amount TEXT NOT NULL,
      ctx TEXT NOT NULL,
      expires_at BIGINT NOT NULL,
      proof BYTEA NOT NULL
    );
    ALTER TABLE proofs ALTER COLUMN proof SET STORAGE EXTERNAL;
    CREATE INDEX proofs_nullifier ON proofs (nullifier);
    CREATE INDEX proofs_expires_at ON proofs (expires_at);`,
} satisfies Migration;

/**
 * Transitions and exits: event kinds `transition` (merge, split), `withdrawal` (an exit) and
 * `refund` (a failed payout's refund note), whose rows also carry the second nullifier, the memo
 * and the refund note; the payout steps of each withdrawal; the withdrawn, paid-out and refunded
 * totals in the head. SQLite cannot alter a CHECK constraint, so its events table is rebuilt.
 */
const V3 = {
  version: 3,
  name: 'transitions and exits',
  sqlite: `
    CREATE TABLE events_v3 (
      id INTEGER PRIMARY KEY,
      kind TEXT NOT NULL
        CHECK (kind IN ('deposit', 'settlement', 'transition', 'withdrawal', 'refund')),
      created_at INTEGER NOT NULL,
      amount TEXT NOT NULL,
      leaf_index INTEGER NOT NULL,
      commitment TEXT,
      nullifier TEXT,
      settlement_id TEXT,
      recipient TEXT,
      recipient_note TEXT,
      nullifier_2 TEXT,
      memo TEXT,
      refund TEXT
    );
    INSERT INTO events_v3 (id, kind, created_at, amount, leaf_index, commitment, nullifier,
      settlement_id, recipient, recipient_note)
      SELECT id, kind, created_at, amount, leaf_index, commitment, nullifier, settlement_id,
        recipient, recipient_note FROM events;
    DROP TABLE events;
    ALTER TABLE events_v3 RENAME TO events;
    CREATE INDEX events_withdrawals ON events (settlement_id) WHERE kind = 'withdrawal';
    ALTER TABLE pool_head ADD COLUMN withdrawn_total TEXT NOT NULL DEFAULT '0';
    ALTER TABLE pool_head ADD COLUMN paid_out_total TEXT NOT NULL DEFAULT '0';
    ALTER TABLE pool_head ADD COLUMN refunded_total TEXT NOT NULL DEFAULT '0';
    CREATE TABLE payouts (
      withdrawal_id TEXT PRIMARY KEY,
      status TEXT NOT NULL CHECK (status IN ('paying', 'paid', 'failed')),
      updated_at INTEGER NOT NULL
    ) WITHOUT ROWID;`,
  postgres: `
    ALTER TABLE events DROP CONSTRAINT events_kind_check;
    ALTER TABLE events ADD CONSTRAINT events_kind_check
      CHECK (kind IN ('deposit', 'settlement', 'transition', 'withdrawal', 'refund'));
    ALTER TABLE events ADD COLUMN nullifier_2 TEXT;
    ALTER TABLE events ADD COLUMN memo TEXT;
    ALTER TABLE events ADD COLUMN refund TEXT;
    CREATE INDEX events_withdrawals ON events (settlement_id) WHERE kind = 'withdrawal';
    ALTER TABLE pool_head ADD COLUMN withdrawn_total TEXT NOT NULL DEFAULT '0';
    ALTER TABLE pool_head ADD COLUMN paid_out_total TEXT NOT NULL DEFAULT '0';
    ALTER TABLE pool_head ADD COLUMN refunded_total TEXT NOT NULL DEFAULT '0';
    CREATE TABLE payouts (
      withdrawal_id TEXT PRIMARY KEY,
      status TEXT NOT NULL CHECK (status IN ('paying', 'paid', 'failed')),
      updated_at BIGINT NOT NULL
    );`,
} satisfies Migration;

/**
 * The payout sender's journal (`payout-journal.ts`): `leases` — one row per thing that one
 * instance at a time may do (a rail's signing), with its holder, epoch and expiry; `payout_rails` —
 * per rail, the next nonce to reserve and the cursor of decided withdrawals; `payout_attempts` —
 * each reserved nonce and the one withdrawal it belongs to (the primary key makes a nonce serve one
 * payout only); `payout_transactions` — every signed transaction of an attempt, raw, stored before
 * it is broadcast, in signing order (`position`).
 */
const V4 = {
  version: 4,
  name: 'payout sender',
  sqlite: `
    CREATE TABLE leases (
      name TEXT PRIMARY KEY,
      holder TEXT NOT NULL,
      epoch INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE payout_rails (
      rail TEXT PRIMARY KEY,
      next_nonce INTEGER NOT NULL,
      cursor INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE payout_attempts (
      rail TEXT NOT NULL,
      nonce INTEGER NOT NULL,
      withdrawal_id TEXT NOT NULL,
      deadline INTEGER NOT NULL,
      reserved_at INTEGER NOT NULL,
      PRIMARY KEY (rail, nonce)
    ) WITHOUT ROWID;
    CREATE INDEX payout_attempts_withdrawal ON payout_attempts (withdrawal_id);
    CREATE TABLE payout_transactions (
      hash TEXT PRIMARY KEY,
      rail TEXT NOT NULL,
      nonce INTEGER NOT NULL,
      position INTEGER NOT NULL,
      raw TEXT NOT NULL,
      max_fee_per_gas TEXT NOT NULL,
      max_priority_fee_per_gas TEXT NOT NULL,
      signed_at INTEGER NOT NULL,
      signed_block INTEGER NOT NULL,
      UNIQUE (rail, nonce, position)
    );`,
  postgres: `
    CREATE TABLE leases (
      name TEXT PRIMARY KEY,
      holder TEXT NOT NULL,
      epoch BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    );
    CREATE TABLE payout_rails (
      rail TEXT PRIMARY KEY,
      next_nonce BIGINT NOT NULL,
      cursor BIGINT NOT NULL
    );
    CREATE TABLE payout_attempts (
      rail TEXT NOT NULL,
      nonce BIGINT NOT NULL,
      withdrawal_id TEXT NOT NULL,
      deadline BIGINT NOT NULL,
      reserved_at BIGINT NOT NULL,
      PRIMARY KEY (rail, nonce)
    );
    CREATE INDEX payout_attempts_withdrawal ON payout_attempts (withdrawal_id);
    CREATE TABLE payout_transactions (
      hash TEXT PRIMARY KEY,
      rail TEXT NOT NULL,
      nonce BIGINT NOT NULL,
      position INTEGER NOT NULL,
      raw TEXT NOT NULL,
      max_fee_per_gas TEXT NOT NULL,
      max_priority_fee_per_gas TEXT NOT NULL,
      signed_at BIGINT NOT NULL,
      signed_block BIGINT NOT NULL,
      UNIQUE (rail, nonce, position),
      FOREIGN KEY (rail, nonce) REFERENCES payout_attempts (rail, nonce)
    );`,
} satisfies Migration;

/**
 * The deposit watcher (`deposit-watch.ts`): `chain_watch` — the escrow the pool is bound to (one
 * row; none for a devnet pool), its token and network id, and the cursor of its events with the
 * block hash it was read at; `chain_deposits` — each deposit the escrow took, where it stands, the
 * acceptance transaction that carries the watcher's decision, and the block and hash of the events
 * it acted on (its payment, its acceptance or decline, its reclaim). A deposit event's leaf is found by its index (whether a commitment's leaf is a
 * shielded deposit).
 */
const V5 = {
  version: 5,
  name: 'deposit watcher',
  sqlite: `
    CREATE TABLE chain_watch (
      source TEXT PRIMARY KEY,
      chain_id INTEGER NOT NULL,
      escrow TEXT NOT NULL,
      token TEXT NOT NULL,
      network TEXT NOT NULL,
      deploy_block INTEGER NOT NULL,
      scanned_block INTEGER NOT NULL,
      scanned_hash TEXT,
      updated_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE chain_deposits (
      source TEXT NOT NULL,
      idx INTEGER NOT NULL,
      depositor TEXT NOT NULL,
      amount TEXT NOT NULL,
      pre TEXT NOT NULL,
      block INTEGER NOT NULL,
      block_hash TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN
        ('pending', 'accepted', 'declined', 'reclaimed', 'shielded', 'unshieldable')),
      decision TEXT CHECK (decision IN ('accept', 'decline')),
      reason TEXT,
      sent_tx TEXT,
      sent_block INTEGER,
      settled_block INTEGER,
      settled_hash TEXT,
      reclaimed_block INTEGER,
      reclaimed_hash TEXT,
      leaf_index INTEGER,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (source, idx)
    ) WITHOUT ROWID;
    CREATE INDEX chain_deposits_state ON chain_deposits (source, state);
    CREATE INDEX chain_deposits_block ON chain_deposits (source, block);
    CREATE INDEX chain_deposits_settled ON chain_deposits (source, settled_block);
    CREATE INDEX chain_deposits_reclaimed ON chain_deposits (source, reclaimed_block);
    CREATE INDEX events_deposit_leaf ON events (leaf_index) WHERE kind = 'deposit';`,
  postgres: `
    CREATE TABLE chain_watch (
      source TEXT PRIMARY KEY,
      chain_id BIGINT NOT NULL,
      escrow TEXT NOT NULL,
      token TEXT NOT NULL,
      network TEXT NOT NULL,
      deploy_block BIGINT NOT NULL,
      scanned_block BIGINT NOT NULL,
      scanned_hash TEXT,
      updated_at BIGINT NOT NULL
    );
    CREATE TABLE chain_deposits (
      source TEXT NOT NULL,
      idx BIGINT NOT NULL,
      depositor TEXT NOT NULL,
      amount TEXT NOT NULL,
      pre TEXT NOT NULL,
      block BIGINT NOT NULL,
      block_hash TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN
        ('pending', 'accepted', 'declined', 'reclaimed', 'shielded', 'unshieldable')),
      decision TEXT CHECK (decision IN ('accept', 'decline')),
      reason TEXT,
      sent_tx TEXT,
      sent_block BIGINT,
      settled_block BIGINT,
      settled_hash TEXT,
      reclaimed_block BIGINT,
      reclaimed_hash TEXT,
      leaf_index BIGINT,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (source, idx)
    );
    CREATE INDEX chain_deposits_state ON chain_deposits (source, state);
    CREATE INDEX chain_deposits_block ON chain_deposits (source, block);
    CREATE INDEX chain_deposits_settled ON chain_deposits (source, settled_block);
    CREATE INDEX chain_deposits_reclaimed ON chain_deposits (source, reclaimed_block);
    CREATE INDEX events_deposit_leaf ON events (leaf_index) WHERE kind = 'deposit';`,
} satisfies Migration;

/** The public log's fixed order and times (`public-log.ts`). */
const V6 = { version: 6, ...PUBLIC_LOG_MIGRATION } satisfies Migration;

/** The proof archive (`proof-archive.ts`). */
const V7 = { version: 7, ...PROOF_ARCHIVE_MIGRATION } satisfies Migration;

/** The unpaid sets the attester claimed (`attested-sets.ts`). */
const V8 = { version: 8, ...ATTESTED_SETS_MIGRATION } satisfies Migration;

/** Each kept proof's SHA-256 beside it (`proof-archive.ts`). */
const V9 = { version: 9, ...PROOF_HASH_MIGRATION } satisfies Migration;

/** Every migration, ascending. */
export const MIGRATIONS: readonly Migration[] = [V1, V2, V3, V4, V5, V6, V7, V8, V9];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** Thrown when a database was written by a newer version of this code. */
export class SchemaTooNewError extends Error {
  constructor(found: number) {
    super(
      `the pool database has schema version ${found}, newer than this code knows (${SCHEMA_VERSION})`,
    );
    this.name = 'SchemaTooNewError';
  }
}
