/**
 * @module The payout journal's rows as both stores read them, and the rules both apply under the
 * lock: when a lease is granted (`leaseDecision`), when a write is fenced off (`leaseHeld`), and
 * how attempts and their transactions come back from one joined read (`attemptsOf`).
 */

import type { Lease, PayoutAttempt, SignedPayout } from './payout-journal.js';

/** A `leases` row. */
export interface LeaseRow {
  name: string;
  holder: string;
  epoch: number | string;
  expires_at: number | string;
}

/** A row of `payout_attempts` left-joined with `payout_transactions` (null columns: none signed). */
export interface AttemptRow {
  rail: string;
  withdrawal_id: string;
  nonce: number | string;
  deadline: number | string;
  reserved_at: number | string;
  hash: string | null;
  raw: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  signed_at: number | string | null;
  signed_block: number | string | null;
}

/** The columns of {@link AttemptRow}, attempts as `a` and transactions as `t`. */
export const ATTEMPT_COLUMNS = `a.rail, a.withdrawal_id, a.nonce, a.deadline, a.reserved_at,
  t.hash, t.raw, t.max_fee_per_gas, t.max_priority_fee_per_gas, t.signed_at, t.signed_block`;

/** The lease a row stands for. */
export function leaseOf(row: LeaseRow): Lease {
  return {
    name: row.name,
    holder: row.holder,
    epoch: Number(row.epoch),
    expiresAt: Number(row.expires_at),
  };
}

/**
 * What acquiring does with the stored lease: `insert` (nobody ever held it), `renew` (the same
 * holder, expired or not: nobody took it in between), `take` (expired: the next epoch), or `refuse`.
 */
export function leaseDecision(
  row: LeaseRow | undefined,
  holder: string,
  now: number,
): 'insert' | 'renew' | 'take' | 'refuse' {
  if (row === undefined) return 'insert';
  if (row.holder === holder) return 'renew';
  return Number(row.expires_at) <= now ? 'take' : 'refuse';
}

/** Whether the stored lease is still `lease`: the same holder and epoch, not expired at `now`. */
export function leaseHeld(row: LeaseRow | undefined, lease: Lease, now: number): boolean {
  return (
    row !== undefined &&
    row.holder === lease.holder &&
    Number(row.epoch) === lease.epoch &&
    Number(row.expires_at) > now
  );
}

/** Attempts from joined rows ordered by nonce, then by the transactions' position. */
export function attemptsOf(rows: readonly AttemptRow[]): PayoutAttempt[] {
  const out: { attempt: PayoutAttempt; transactions: SignedPayout[] }[] = [];
  for (const row of rows) {
    let last = out.at(-1);
    if (last === undefined || last.attempt.nonce !== Number(row.nonce)) {
      const transactions: SignedPayout[] = [];
      last = {
        transactions,
        attempt: {
          rail: row.rail,
          withdrawalId: row.withdrawal_id,
          nonce: Number(row.nonce),
          deadline: Number(row.deadline),
          reservedAt: Number(row.reserved_at),
          transactions,
        },
      };
      out.push(last);
    }
    if (row.hash !== null)
      last.transactions.push({
        hash: row.hash,
        raw: row.raw ?? '',
        nonce: Number(row.nonce),
        maxFeePerGas: row.max_fee_per_gas ?? '0',
        maxPriorityFeePerGas: row.max_priority_fee_per_gas ?? '0',
        signedAt: Number(row.signed_at),
        signedBlock: Number(row.signed_block),
      });
  }
  return out.map((entry) => entry.attempt);
}
