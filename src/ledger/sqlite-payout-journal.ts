/**
 * @module The payout journal in the pool's SQLite file: a connection of its own (the store's
 * writer thread is the store's), `synchronous=FULL` like the store's, so a signed transaction is on
 * disk before it is broadcast. Each write is one `BEGIN IMMEDIATE` transaction — SQLite's write lock
 * serialises it with every other process on the file — that checks the lease first. One process
 * signs in practice, but the code path is the one PostgreSQL runs.
 */

import Database from 'better-sqlite3';

import { PoolUnavailableError, unavailable } from './errors.js';
import {
  type Lease,
  LeaseLostError,
  NonceNotReservedError,
  type PayoutAttempt,
  type PayoutJournal,
  type SignedPayout,
} from './payout-journal.js';
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  attemptsOf,
  type LeaseRow,
  leaseDecision,
  leaseHeld,
  leaseOf,
} from './payout-journal-rows.js';

const STATEMENTS = {
  synchronous: 'PRAGMA synchronous = FULL',
  lease: 'SELECT name, holder, epoch, expires_at FROM leases WHERE name = ?',
  insertLease: 'INSERT INTO leases (name, holder, epoch, expires_at) VALUES (?, ?, ?, ?)',
  writeLease: 'UPDATE leases SET holder = ?, epoch = ?, expires_at = ? WHERE name = ?',
  releaseLease: 'UPDATE leases SET expires_at = 0 WHERE name = ? AND holder = ? AND epoch = ?',
  rail: 'SELECT next_nonce, cursor FROM payout_rails WHERE rail = ?',
  upsertRail: `INSERT INTO payout_rails (rail, next_nonce, cursor) VALUES (?, ?, ?)
    ON CONFLICT (rail) DO UPDATE SET next_nonce = excluded.next_nonce, cursor = excluded.cursor`,
  maxNonce: 'SELECT MAX(nonce) FROM payout_attempts WHERE rail = ?',
  insertAttempt: `INSERT INTO payout_attempts (rail, nonce, withdrawal_id, deadline, reserved_at)
    VALUES (?, ?, ?, ?, ?)`,
  attemptOwner: 'SELECT withdrawal_id FROM payout_attempts WHERE rail = ? AND nonce = ?',
  transactionCount: 'SELECT COUNT(*) FROM payout_transactions WHERE rail = ? AND nonce = ?',
  insertTransaction: `INSERT INTO payout_transactions (hash, rail, nonce, position, raw, max_fee_per_gas,
    max_priority_fee_per_gas, signed_at, signed_block) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (hash) DO NOTHING`,
  attempts: `SELECT ${ATTEMPT_COLUMNS} FROM payout_attempts a
    LEFT JOIN payout_transactions t ON t.rail = a.rail AND t.nonce = a.nonce
    WHERE a.rail = ? AND a.withdrawal_id = ? ORDER BY a.nonce, t.position`,
  openAttempts: `SELECT ${ATTEMPT_COLUMNS} FROM payout_attempts a
    LEFT JOIN payout_transactions t ON t.rail = a.rail AND t.nonce = a.nonce
    WHERE a.rail = ? AND a.nonce >= ? ORDER BY a.nonce, t.position`,
} as const;

type Statements = Record<keyof typeof STATEMENTS, Database.Statement>;
const PLUCKED = new Set<keyof typeof STATEMENTS>(['maxNonce', 'attemptOwner', 'transactionCount']);

/**
 * Opens the journal in the SQLite file at `path`, which the pool store has migrated (preparing
 * the statements fails on a file without the journal's tables).
 * @throws PoolUnavailableError when the file cannot be opened or is not migrated to the journal
 */
export function openSqlitePayoutJournal(path: string, busyTimeoutMs = 5000): PayoutJournal {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true, timeout: busyTimeoutMs });
  } catch (error) {
    throw unavailable(error, 'opening the payout journal');
  }
  try {
    const sql = {} as Statements;
    for (const [name, text] of Object.entries(STATEMENTS) as [keyof Statements, string][]) {
      const statement = db.prepare(text);
      sql[name] = PLUCKED.has(name) ? statement.pluck() : statement;
    }
    sql.synchronous.run();
    return new SqlitePayoutJournal(db, sql);
  } catch (error) {
    db.close();
    throw unavailable(error, 'opening the payout journal');
  }
}

class SqlitePayoutJournal implements PayoutJournal {
  private closed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly sql: Statements,
  ) {}

  /** Runs `body` in one `BEGIN IMMEDIATE` transaction; a driver's error becomes unavailability. */
  private write<T>(what: string, body: () => T): Promise<T> {
    if (this.closed)
      return Promise.reject(new PoolUnavailableError('the payout journal is closed'));
    try {
      return Promise.resolve(this.db.transaction(body).immediate());
    } catch (error) {
      if (error instanceof LeaseLostError || error instanceof NonceNotReservedError)
        return Promise.reject(error);
      return Promise.reject(unavailable(error, what));
    }
  }

  private read<T>(what: string, body: () => T): Promise<T> {
    if (this.closed)
      return Promise.reject(new PoolUnavailableError('the payout journal is closed'));
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(unavailable(error, what));
    }
  }

  private fence(lease: Lease, now: number): void {
    if (!leaseHeld(this.sql.lease.get(lease.name) as LeaseRow | undefined, lease, now))
      throw new LeaseLostError(lease.name);
  }

  private railRow(rail: string): { next_nonce: number; cursor: number } {
    return (
      (this.sql.rail.get(rail) as { next_nonce: number; cursor: number } | undefined) ?? {
        next_nonce: 0,
        cursor: 0,
      }
    );
  }

  acquireLease(name: string, holder: string, now: number, ttlMs: number): Promise<Lease | null> {
    return this.write('acquiring a lease', () => {
      const row = this.sql.lease.get(name) as LeaseRow | undefined;
      const expiresAt = now + ttlMs;
      switch (leaseDecision(row, holder, now)) {
        case 'insert':
          this.sql.insertLease.run(name, holder, 1, expiresAt);
          return { name, holder, epoch: 1, expiresAt };
        case 'renew': {
          const epoch = Number(row?.epoch);
          this.sql.writeLease.run(holder, epoch, expiresAt, name);
          return { name, holder, epoch, expiresAt };
        }
        case 'take': {
          const epoch = Number(row?.epoch) + 1;
          this.sql.writeLease.run(holder, epoch, expiresAt, name);
          return { name, holder, epoch, expiresAt };
        }
        default:
          return null;
      }
    });
  }

  async releaseLease(lease: Lease): Promise<void> {
    await this.write('releasing a lease', () =>
      this.sql.releaseLease.run(lease.name, lease.holder, lease.epoch),
    );
  }

  readLease(name: string): Promise<Lease | null> {
    return this.read('reading a lease', () => {
      const row = this.sql.lease.get(name) as LeaseRow | undefined;
      return row ? leaseOf(row) : null;
    });
  }

  cursor(rail: string): Promise<number> {
    return this.read('reading the payout cursor', () => Number(this.railRow(rail).cursor));
  }

  async setCursor(lease: Lease, cursor: number, now: number): Promise<void> {
    await this.write('moving the payout cursor', () => {
      this.fence(lease, now);
      const row = this.railRow(lease.name);
      this.sql.upsertRail.run(lease.name, row.next_nonce, Math.max(row.cursor, cursor));
    });
  }

  attempts(rail: string, withdrawalId: string): Promise<PayoutAttempt[]> {
    return this.read('reading payout attempts', () =>
      attemptsOf(this.sql.attempts.all(rail, withdrawalId) as AttemptRow[]),
    );
  }

  openAttempts(rail: string, fromNonce: number): Promise<PayoutAttempt[]> {
    return this.read('reading open payout attempts', () =>
      attemptsOf(this.sql.openAttempts.all(rail, fromNonce) as AttemptRow[]),
    );
  }

  reserveNonce(
    lease: Lease,
    withdrawalId: string,
    floor: number,
    deadline: number,
    now: number,
  ): Promise<PayoutAttempt> {
    return this.write('reserving a nonce', () => {
      this.fence(lease, now);
      const row = this.railRow(lease.name);
      const highest = this.sql.maxNonce.get(lease.name) as number | null;
      const nonce = Math.max(row.next_nonce, floor, highest === null ? 0 : highest + 1);
      this.sql.insertAttempt.run(lease.name, nonce, withdrawalId, deadline, now);
      this.sql.upsertRail.run(lease.name, nonce + 1, row.cursor);
      return {
        rail: lease.name,
        withdrawalId,
        nonce,
        deadline,
        reservedAt: now,
        transactions: [],
      };
    });
  }

  async storeTransaction(
    lease: Lease,
    withdrawalId: string,
    transaction: SignedPayout,
    now: number,
  ): Promise<void> {
    await this.write('storing a signed payout', () => {
      this.fence(lease, now);
      const owner = this.sql.attemptOwner.get(lease.name, transaction.nonce);
      if (owner !== withdrawalId) throw new NonceNotReservedError(lease.name, transaction.nonce);
      const position = Number(this.sql.transactionCount.get(lease.name, transaction.nonce));
      this.sql.insertTransaction.run(
        transaction.hash,
        lease.name,
        transaction.nonce,
        position,
        transaction.raw,
        transaction.maxFeePerGas,
        transaction.maxPriorityFeePerGas,
        transaction.signedAt,
        transaction.signedBlock,
      );
    });
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      try {
        this.db.close();
      } catch {
        // closing after a fault: nothing left to release
      }
    }
    return Promise.resolve();
  }
}
