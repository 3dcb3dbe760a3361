/**
 * @module The payout journal in the pool's PostgreSQL database, for several pool-node instances
 * on one database: a small connection pool of its own, each write one transaction that locks the
 * lease's row (`FOR UPDATE`) before checking it, so a hand-over and a signing write of the old
 * holder are serialised and the old holder's write after the hand-over is refused. Commits are
 * durable (`synchronous_commit = on`) before a transaction is broadcast.
 */

import pg from 'pg';

import { unavailable } from './errors.js';
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
import { transaction } from './postgres-transaction.js';

const LEASE_FOR_UPDATE =
  'SELECT name, holder, epoch, expires_at FROM leases WHERE name = $1 FOR UPDATE';

/**
 * Opens the journal on the database at `connectionString`, which the pool store has migrated.
 * @param onIdleError errors of idle connections (the server went away); they never crash the process
 */
export function openPostgresPayoutJournal(
  connectionString: string,
  onIdleError?: (error: Error) => void,
): PayoutJournal {
  const connections = new pg.Pool({
    connectionString,
    max: 2,
    connectionTimeoutMillis: 5000,
    statement_timeout: 15_000,
    query_timeout: 16_000,
    lock_timeout: 10_000,
    idle_in_transaction_session_timeout: 30_000,
    idleTimeoutMillis: 30_000,
    application_name: 'priv-stark-payout-journal',
  });
  connections.on('error', (error) => onIdleError?.(error));
  return new PostgresPayoutJournal(connections);
}

class PostgresPayoutJournal implements PayoutJournal {
  private closed: Promise<void> | null = null;

  constructor(private readonly connections: pg.Pool) {}

  private async run<T>(what: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      if (error instanceof LeaseLostError || error instanceof NonceNotReservedError) throw error;
      throw unavailable(error, what);
    }
  }

  /** A write under the lease: its row locked and checked first. */
  private fenced<T>(
    what: string,
    lease: Lease,
    now: number,
    body: (client: pg.PoolClient) => Promise<T>,
  ): Promise<T> {
    return this.run(what, () =>
      transaction(this.connections, async (client) => {
        const { rows } = await client.query<LeaseRow>(LEASE_FOR_UPDATE, [lease.name]);
        if (!leaseHeld(rows[0], lease, now)) throw new LeaseLostError(lease.name);
        return body(client);
      }),
    );
  }

  private async railRow(
    client: pg.PoolClient,
    rail: string,
  ): Promise<{ nextNonce: number; cursor: number }> {
    const { rows } = await client.query<{ next_nonce: string; cursor: string }>(
      'SELECT next_nonce, cursor FROM payout_rails WHERE rail = $1',
      [rail],
    );
    return { nextNonce: Number(rows[0]?.next_nonce ?? 0), cursor: Number(rows[0]?.cursor ?? 0) };
  }

  private async writeRail(
    client: pg.PoolClient,
    rail: string,
    nextNonce: number,
    cursor: number,
  ): Promise<void> {
    await client.query(
      `INSERT INTO payout_rails (rail, next_nonce, cursor) VALUES ($1, $2, $3)
       ON CONFLICT (rail) DO UPDATE SET next_nonce = EXCLUDED.next_nonce, cursor = EXCLUDED.cursor`,
      [rail, nextNonce, cursor],
    );
  }

  acquireLease(name: string, holder: string, now: number, ttlMs: number): Promise<Lease | null> {
    return this.run('acquiring a lease', () =>
      transaction(this.connections, async (client) => {
        // A first holder inserts the row; every later grant goes through its row lock.
        await client.query(
          'INSERT INTO leases (name, holder, epoch, expires_at) VALUES ($1, $2, 0, 0) ON CONFLICT (name) DO NOTHING',
          [name, holder],
        );
        const { rows } = await client.query<LeaseRow>(LEASE_FOR_UPDATE, [name]);
        const row = rows[0];
        const expiresAt = now + ttlMs;
        const decision = leaseDecision(row, holder, now);
        if (decision === 'refuse' || row === undefined) return null;
        // A row this call inserted has epoch 0: its first grant is epoch 1.
        const epoch =
          decision === 'take' || Number(row.epoch) === 0
            ? Number(row.epoch) + 1
            : Number(row.epoch);
        await client.query(
          'UPDATE leases SET holder = $2, epoch = $3, expires_at = $4 WHERE name = $1',
          [name, holder, epoch, expiresAt],
        );
        return { name, holder, epoch, expiresAt };
      }),
    );
  }

  async releaseLease(lease: Lease): Promise<void> {
    await this.run('releasing a lease', () =>
      this.connections.query(
        'UPDATE leases SET expires_at = 0 WHERE name = $1 AND holder = $2 AND epoch = $3',
        [lease.name, lease.holder, lease.epoch],
      ),
    );
  }

  readLease(name: string): Promise<Lease | null> {
    return this.run('reading a lease', async () => {
      const { rows } = await this.connections.query<LeaseRow>(
        'SELECT name, holder, epoch, expires_at FROM leases WHERE name = $1',
        [name],
      );
      const row = rows[0];
      return row && Number(row.epoch) > 0 ? leaseOf(row) : null;
    });
  }

  cursor(rail: string): Promise<number> {
    return this.run('reading the payout cursor', async () => {
      const { rows } = await this.connections.query<{ cursor: string }>(
        'SELECT cursor FROM payout_rails WHERE rail = $1',
        [rail],
      );
      return Number(rows[0]?.cursor ?? 0);
    });
  }

  async setCursor(lease: Lease, cursor: number, now: number): Promise<void> {
    await this.fenced('moving the payout cursor', lease, now, async (client) => {
      const row = await this.railRow(client, lease.name);
      await this.writeRail(client, lease.name, row.nextNonce, Math.max(row.cursor, cursor));
    });
  }

  private async selectAttempts(where: string, params: unknown[]): Promise<PayoutAttempt[]> {
    const { rows } = await this.connections.query<AttemptRow>(
      `SELECT ${ATTEMPT_COLUMNS} FROM payout_attempts a
       LEFT JOIN payout_transactions t ON t.rail = a.rail AND t.nonce = a.nonce
       WHERE ${where} ORDER BY a.nonce, t.position`,
      params,
    );
    return attemptsOf(rows);
  }

  attempts(rail: string, withdrawalId: string): Promise<PayoutAttempt[]> {
    return this.run('reading payout attempts', () =>
      this.selectAttempts('a.rail = $1 AND a.withdrawal_id = $2', [rail, withdrawalId]),
    );
  }

  openAttempts(rail: string, fromNonce: number): Promise<PayoutAttempt[]> {
    return this.run('reading open payout attempts', () =>
      this.selectAttempts('a.rail = $1 AND a.nonce >= $2', [rail, fromNonce]),
    );
  }

  reserveNonce(
    lease: Lease,
    withdrawalId: string,
    floor: number,
    deadline: number,
    now: number,
  ): Promise<PayoutAttempt> {
    return this.fenced('reserving a nonce', lease, now, async (client) => {
      const row = await this.railRow(client, lease.name);
      const { rows } = await client.query<{ highest: string | null }>(
        'SELECT MAX(nonce) AS highest FROM payout_attempts WHERE rail = $1',
        [lease.name],
      );
      const highest = rows[0]?.highest;
      const nonce = Math.max(
        row.nextNonce,
        floor,
        highest === null || highest === undefined ? 0 : Number(highest) + 1,
      );
      await client.query(
        `INSERT INTO payout_attempts (rail, nonce, withdrawal_id, deadline, reserved_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [lease.name, nonce, withdrawalId, deadline, now],
      );
      await this.writeRail(client, lease.name, nonce + 1, row.cursor);
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
    await this.fenced('storing a signed payout', lease, now, async (client) => {
      const owner = await client.query<{ withdrawal_id: string }>(
        'SELECT withdrawal_id FROM payout_attempts WHERE rail = $1 AND nonce = $2',
        [lease.name, transaction.nonce],
      );
      if (owner.rows[0]?.withdrawal_id !== withdrawalId)
        throw new NonceNotReservedError(lease.name, transaction.nonce);
      await client.query(
        `INSERT INTO payout_transactions (hash, rail, nonce, position, raw, max_fee_per_gas,
           max_priority_fee_per_gas, signed_at, signed_block)
         SELECT $1, $2, $3, COUNT(*), $4, $5, $6, $7, $8 FROM payout_transactions
           WHERE rail = $2 AND nonce = $3
         ON CONFLICT (hash) DO NOTHING`,
        [
          transaction.hash,
          lease.name,
          transaction.nonce,
          transaction.raw,
          transaction.maxFeePerGas,
          transaction.maxPriorityFeePerGas,
          transaction.signedAt,
          transaction.signedBlock,
        ],
      );
    });
  }

  close(): Promise<void> {
    this.closed ??= this.connections.end().catch(() => undefined);
    return this.closed;
  }
}
