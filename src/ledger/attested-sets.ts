/**
 * @module The unpaid sets the attester claimed (docs/chain.md, "Two-key payouts"): before an
 * attestation is sent, the withdrawals its unpaid root covers — id, destination address, amount —
 * are recorded under that root, durably, beside the ledger. With two-key payouts the payout rail
 * (perhaps another pool-node instance, holding only the payout key) reads the latest attestation's
 * root from the escrow, finds its set here and proves a withdrawal's membership. Keyed by the root,
 * not the sequence: two instances claiming one checkpoint at different moments may claim different
 * sets, and only the root on chain matters. The newest {@link KEPT_SETS} sets are kept.
 * SQLite (`sqlite-attested-sets.ts`) and PostgreSQL (`postgres-attested-sets.ts`) share this SQL.
 */

/** One withdrawal of an attested unpaid set, as the escrow's payout takes it. */
export interface AttestedWithdrawal {
  /** `0x` + 64 hex. */
  readonly withdrawalId: string;
  /** The destination address, `0x` + 40 hex. */
  readonly to: string;
  /** Atomic units, decimal. */
  readonly amount: string;
}

/** An unpaid set as claimed at checkpoint `seq` (the newest claim of it, when claimed again). */
export interface AttestedSet {
  readonly seq: number;
  /** `0x` + 64 hex; the zero root for the empty set. */
  readonly unpaidRoot: string;
  readonly withdrawals: readonly AttestedWithdrawal[];
}

/** The recorded sets; every method answers or throws `PoolUnavailableError`. */
export interface AttestedSets {
  /**
   * Records `set` (and drops all but the newest {@link KEPT_SETS}); a root recorded before keeps
   * its withdrawals and takes the later sequence. Durable when it resolves.
   */
  record(set: AttestedSet, now: number): Promise<void>;
  /** The set recorded under `unpaidRoot`, or `null`. */
  byRoot(unpaidRoot: string): Promise<AttestedSet | null>;
  /** Releases the connection (the store's stays open). Idempotent. */
  close(): Promise<void>;
}

/**
 * Sets kept: the latest attestation's set is the newest recorded unless that many later claims
 * were recorded and never landed; then payouts wait for the next attestation, which records anew.
 */
export const KEPT_SETS = 16;

/** A recorded set's withdrawal rows (a set row itself carries no withdrawal). */
export const ATTESTED_SETS_MIGRATION = {
  name: 'attested unpaid sets',
  sqlite: `
    CREATE TABLE attested_sets (
      unpaid_root TEXT PRIMARY KEY,
      seq INTEGER NOT NULL,
      size INTEGER NOT NULL,
      recorded_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX attested_sets_seq ON attested_sets (seq);
    CREATE TABLE attested_withdrawals (
      unpaid_root TEXT NOT NULL,
      withdrawal_id TEXT NOT NULL,
      recipient TEXT NOT NULL,
      amount TEXT NOT NULL,
      PRIMARY KEY (unpaid_root, withdrawal_id)
    ) WITHOUT ROWID;`,
  postgres: `
    CREATE TABLE attested_sets (
      unpaid_root TEXT PRIMARY KEY,
      seq BIGINT NOT NULL,
      size BIGINT NOT NULL,
      recorded_at BIGINT NOT NULL
    );
    CREATE INDEX attested_sets_seq ON attested_sets (seq);
    CREATE TABLE attested_withdrawals (
      unpaid_root TEXT NOT NULL,
      withdrawal_id TEXT NOT NULL,
      recipient TEXT NOT NULL,
      amount TEXT NOT NULL,
      PRIMARY KEY (unpaid_root, withdrawal_id)
    );`,
} as const;

/** The statements, per dialect. */
export const ATTESTED_SETS_SQL = {
  sqlite: {
    upsertSet: `INSERT INTO attested_sets (unpaid_root, seq, size, recorded_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (unpaid_root) DO UPDATE SET seq = MAX(seq, excluded.seq)`,
    insertWithdrawal: `INSERT INTO attested_withdrawals (unpaid_root, withdrawal_id, recipient, amount)
      VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    pruneWithdrawals: `DELETE FROM attested_withdrawals WHERE unpaid_root IN
      (SELECT unpaid_root FROM attested_sets ORDER BY seq DESC LIMIT -1 OFFSET ${KEPT_SETS})`,
    pruneSets: `DELETE FROM attested_sets WHERE unpaid_root IN
      (SELECT unpaid_root FROM attested_sets ORDER BY seq DESC LIMIT -1 OFFSET ${KEPT_SETS})`,
    set: 'SELECT unpaid_root, seq, size FROM attested_sets WHERE unpaid_root = ?',
    withdrawals: `SELECT withdrawal_id, recipient, amount FROM attested_withdrawals
      WHERE unpaid_root = ? ORDER BY withdrawal_id`,
  },
  postgres: {
    upsertSet: `INSERT INTO attested_sets (unpaid_root, seq, size, recorded_at) VALUES ($1, $2, $3, $4)
      ON CONFLICT (unpaid_root) DO UPDATE SET seq = GREATEST(attested_sets.seq, excluded.seq)`,
    insertWithdrawals: `INSERT INTO attested_withdrawals (unpaid_root, withdrawal_id, recipient, amount)
      SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`,
    pruneWithdrawals: `DELETE FROM attested_withdrawals WHERE unpaid_root IN
      (SELECT unpaid_root FROM attested_sets ORDER BY seq DESC OFFSET ${KEPT_SETS})`,
    pruneSets: `DELETE FROM attested_sets WHERE unpaid_root IN
      (SELECT unpaid_root FROM attested_sets ORDER BY seq DESC OFFSET ${KEPT_SETS})`,
    set: 'SELECT unpaid_root, seq, size FROM attested_sets WHERE unpaid_root = $1',
    withdrawals: `SELECT withdrawal_id, recipient, amount FROM attested_withdrawals
      WHERE unpaid_root = $1 ORDER BY withdrawal_id`,
  },
} as const;

/** An `attested_sets` row as either driver returns it (PostgreSQL's BIGINT as text). */
export interface AttestedSetRow {
  unpaid_root: string;
  seq: number | string;
  size: number | string;
}

/** An `attested_withdrawals` row. */
export interface AttestedWithdrawalRow {
  withdrawal_id: string;
  recipient: string;
  amount: string;
}

/**
 * The set from its rows; `null` when a row is missing (a set is written in one transaction, so
 * that is a damaged database: the rail then waits rather than proving from part of a set).
 */
export function attestedSetOf(
  row: AttestedSetRow | undefined,
  rows: readonly AttestedWithdrawalRow[],
): AttestedSet | null {
  if (!row || rows.length !== Number(row.size)) return null;
  return {
    seq: Number(row.seq),
    unpaidRoot: row.unpaid_root,
    withdrawals: rows.map((r) => ({
      withdrawalId: r.withdrawal_id,
      to: r.recipient,
      amount: r.amount,
    })),
  };
}

/** The root, ids and destinations in lower case: one spelling per value in the keys. */
export function canonicalSet(set: AttestedSet): AttestedSet {
  return {
    seq: set.seq,
    unpaidRoot: set.unpaidRoot.toLowerCase(),
    withdrawals: set.withdrawals.map((w) => ({
      withdrawalId: w.withdrawalId.toLowerCase(),
      to: w.to.toLowerCase(),
      amount: w.amount,
    })),
  };
}
