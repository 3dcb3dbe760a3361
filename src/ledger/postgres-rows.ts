/**
 * @module The PostgreSQL store's rows as node-postgres returns them (`BIGINT` columns come back as
 * text), their column lists, and how they become the store's values.
 */

import type { DigestHex, ProofReference } from '../core/index.js';
import type { Checkpoint, HandedOverProof } from './store.js';
import type { Head } from './store-rows.js';

/** The `pool_head` row. */
export interface HeadRow {
  size: string;
  root: string;
  frontier: Buffer;
  event_count: string;
  checkpoint_count: string;
  deposit_total: string;
  proof_rows: string;
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
  expires_at: string;
}

/** A `checkpoints` row (`events` read only where it is asked for). */
export interface CheckpointRow {
  seq: string;
  root: string;
  size: string;
  created_at: string;
  events?: string;
}

export const HEAD_COLUMNS =
  'size, root, frontier, event_count, checkpoint_count, deposit_total, proof_rows, withdrawn_total, paid_out_total, refunded_total';
export const PROOF_COLUMNS =
  'reference, parameter_set, root, nullifier, change, amount, ctx, expires_at';
export const CHECKPOINT_COLUMNS = 'seq, root, size, created_at';
export const EVENT_COLUMNS =
  'id, kind, created_at, amount, leaf_index, commitment, nullifier, settlement_id, recipient, recipient_note, nullifier_2, memo, refund';

/** The head row as the group plan takes it. */
export function headOf(row: HeadRow): Head {
  return {
    size: Number(row.size),
    root: row.root as DigestHex,
    frontier: new Uint8Array(row.frontier),
    eventCount: Number(row.event_count),
    checkpointCount: Number(row.checkpoint_count),
    depositTotal: row.deposit_total,
    proofRows: Number(row.proof_rows),
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
        parameterSet: Number(row.parameter_set),
        root: row.root as DigestHex,
        nullifier: row.nullifier as DigestHex,
        change: row.change as DigestHex,
        amount: row.amount,
        ctx: row.ctx as DigestHex,
        expiresAt: Number(row.expires_at),
      }
    : null;
}

/** A checkpoint, `null` when there is no row. */
export function checkpointOf(row: CheckpointRow | undefined): Checkpoint | null {
  return row
    ? {
        seq: Number(row.seq),
        root: row.root as DigestHex,
        size: Number(row.size),
        time: Number(row.created_at),
      }
    : null;
}
