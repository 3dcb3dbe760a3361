/**
 * @module The rows both stores read and write, written once: the `pool_head` row (and an empty
 * ledger's), an `events` row and the public event it is, the withdrawal rows a payout reads and
 * the payout process lists, and when a checkpoint is due. The stores only map their drivers' rows
 * onto these.
 */

import type { DigestHex } from '../core/index.js';
import type { Checkpoint, PayoutStatus, PoolEvent, TreeHasher, WithdrawalRecord } from './store.js';

/** The `pool_head` row. */
export interface Head {
  readonly size: number;
  readonly root: DigestHex;
  readonly frontier: Uint8Array;
  readonly eventCount: number;
  readonly checkpointCount: number;
  readonly depositTotal: string;
  /** Handed-over proofs stored. */
  readonly proofRows: number;
  readonly withdrawnTotal: string;
  readonly paidOutTotal: string;
  readonly refundedTotal: string;
}

/**
 * An `events` row; for a settlement, `commitment` is the change note (at `leaf_index`); for a
 * transition, `commitment` and `recipient_note` are its outputs (at `leaf_index` and the next),
 * `nullifier` and `nullifier_2` its nullifiers, `memo` its two memo elements joined by a comma.
 */
export interface EventRow {
  id: number;
  kind: 'deposit' | 'settlement' | 'transition' | 'withdrawal' | 'refund';
  created_at: number;
  amount: string;
  leaf_index: number;
  commitment: string | null;
  nullifier: string | null;
  settlement_id: string | null;
  recipient: string | null;
  recipient_note: string | null;
  nullifier_2: string | null;
  memo: string | null;
  refund: string | null;
}

/** The head of an empty ledger. */
export function emptyHead(tree: TreeHasher): Head {
  const frontier = tree.emptyFrontier();
  return {
    size: 0,
    root: frontier.root,
    frontier: frontier.state,
    eventCount: 0,
    checkpointCount: 0,
    depositTotal: '0',
    proofRows: 0,
    withdrawnTotal: '0',
    paidOutTotal: '0',
    refundedTotal: '0',
  };
}

/** A withdrawal a payout op of the group names, read under the lock. */
export interface KnownWithdrawal {
  readonly status: PayoutStatus | null;
  readonly amount: string;
  readonly refund: string;
  /** Its first nullifier. */
  readonly nullifier: string;
}

/**
 * The time a checkpoint due now is stamped with, `null` when none is due: the newest boundary of
 * the epoch grid at or before `now` (`epochMs` 1: `now` itself), when the tree changed since the
 * latest checkpoint, which is at least `minGapMs` old and older than that boundary — so at most
 * one checkpoint per boundary, known as the grid's from its time alone.
 */
export function checkpointStamp(
  head: Head,
  latest: Checkpoint | null,
  now: number,
  minGapMs: number,
  epochMs: number,
): number | null {
  if (head.size === 0) return null;
  const stamp = Math.floor(now / epochMs) * epochMs;
  if (latest === null) return stamp;
  if (latest.size === head.size || now - latest.time < minGapMs) return null;
  // Without a grid two checkpoints may share a millisecond, as they always could.
  const after = epochMs === 1 ? stamp >= latest.time : stamp > latest.time;
  return after ? stamp : null;
}

/** An `events` row as the public event. */
export function eventFromRow(row: EventRow): PoolEvent {
  const id = Number(row.id);
  const time = Number(row.created_at);
  const index = Number(row.leaf_index);
  if (row.kind === 'deposit') {
    return {
      id,
      kind: 'deposit',
      time,
      amount: row.amount,
      commitment: row.commitment as DigestHex,
      index,
    };
  }
  if (row.kind === 'transition' || row.kind === 'withdrawal') {
    const [m0 = '0', m1 = '0'] = (row.memo ?? '').split(',');
    const common = {
      id,
      time,
      nullifiers: [row.nullifier as DigestHex, row.nullifier_2 as DigestHex] as const,
      outputs: [row.commitment as DigestHex, row.recipient_note as DigestHex] as const,
      outputIndexes: [index, index + 1] as const,
      memo: [m0, m1] as const,
    };
    if (row.kind === 'transition')
      return { ...common, kind: 'transition', transitionId: row.settlement_id ?? '' };
    return {
      ...common,
      kind: 'withdrawal',
      withdrawalId: row.settlement_id ?? '',
      amount: row.amount,
      destination: row.recipient ?? '',
      refund: row.refund as DigestHex,
    };
  }
  if (row.kind === 'refund') {
    return {
      id,
      kind: 'refund',
      time,
      withdrawalId: row.settlement_id ?? '',
      nullifier: row.nullifier as DigestHex,
      amount: row.amount,
      commitment: row.commitment as DigestHex,
      index,
    };
  }
  return {
    id,
    kind: 'settlement',
    time,
    settlementId: row.settlement_id ?? '',
    nullifier: row.nullifier as DigestHex,
    change: row.commitment as DigestHex,
    changeIndex: index,
    recipient: row.recipient ?? '',
    amount: row.amount,
    recipientNote: row.recipient_note as DigestHex,
    recipientIndex: index + 1,
  };
}

/** A withdrawal as a payout op's lookup reads it (its event joined with its payout row). */
export interface WithdrawalLookupRow {
  amount: string;
  refund: string | null;
  nullifier: string | null;
  status: PayoutStatus | null;
}

/** The lookup row as the group plan takes it (`planGroup`, `group-plan.ts`). */
export function knownWithdrawalOf(row: WithdrawalLookupRow): KnownWithdrawal {
  return {
    amount: row.amount,
    refund: row.refund ?? '',
    nullifier: row.nullifier ?? '',
    status: row.status ?? null,
  };
}

/** A row of the withdrawals listing (a withdrawal event joined with its payout row). */
export interface WithdrawalListRow {
  id: number | string;
  settlement_id: string;
  amount: string;
  recipient: string | null;
  created_at: number | string;
  status: PayoutStatus | null;
  updated_at: number | string | null;
}

/** The listing row as the payout process reads it. */
export function withdrawalRecordOf(row: WithdrawalListRow): WithdrawalRecord {
  return {
    eventId: Number(row.id),
    withdrawalId: row.settlement_id,
    amount: row.amount,
    destination: row.recipient ?? '',
    time: Number(row.created_at),
    status: row.status ?? null,
    updatedAt: row.updated_at === null ? null : Number(row.updated_at),
  };
}
