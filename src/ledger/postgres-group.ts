/**
 * @module A group commit in PostgreSQL, under the head row's lock: what the group's plan needs to
 * know, read in one statement after the lock (so its snapshot sees every commit that preceded it),
 * and the plan written back — every row of the group and the new head in one statement of
 * data-modifying CTEs, the handed-over proofs in one more.
 */

import type pg from 'pg';

import type { Plan, StoredProofs } from './group-plan.js';
import { writeArchive } from './postgres-proof-archive.js';
import { EVENT_COLUMNS } from './postgres-rows.js';
import type { HandOverOp, StoreOp } from './store.js';
import {
  type Head,
  type KnownWithdrawal,
  knownWithdrawalOf,
  type WithdrawalLookupRow,
} from './store-rows.js';

/** What the store holds of a group's ops, as the group plan takes it. */
export interface KnownToGroup {
  /** The group's settlement, transition and hand-over nullifiers already spent. */
  readonly spent: Set<string>;
  /** The group's deposit commitments already in the tree. */
  readonly present: Set<string>;
  readonly stored: StoredProofs;
  /** The withdrawals the group's payout ops name. */
  readonly withdrawals: Map<string, KnownWithdrawal>;
}

/**
 * Under the lock: which of the group's nullifiers are spent, which deposit commitments are in the
 * tree, which handed-over references the group names are stored (and until when), the proofs per
 * nullifier, and — when the group has payout ops — the withdrawals they name.
 */
export async function readGroup(
  client: pg.PoolClient,
  ops: readonly StoreOp[],
): Promise<KnownToGroup> {
  const nullifiersOfGroup = ops.flatMap((op) =>
    op.kind === 'deposit' || op.kind === 'payout'
      ? []
      : op.kind === 'transition'
        ? op.nullifiers
        : [op.nullifier],
  );
  const payoutIds = ops.flatMap((op) => (op.kind === 'payout' ? [op.withdrawalId] : []));
  const withdrawals = new Map<string, KnownWithdrawal>();
  if (payoutIds.length > 0) {
    const found = await client.query<WithdrawalLookupRow & { settlement_id: string }>(
      `SELECT e.settlement_id, e.amount, e.refund, e.nullifier, p.status FROM events e
       LEFT JOIN payouts p ON p.withdrawal_id = e.settlement_id
       WHERE e.kind = 'withdrawal' AND e.settlement_id = ANY($1::text[])`,
      [payoutIds],
    );
    for (const row of found.rows) withdrawals.set(row.settlement_id, knownWithdrawalOf(row));
  }
  const { rows } = await client.query<{
    k: 'n' | 'c' | 'r' | 'p';
    v: string;
    x: string | null;
  }>(
    `SELECT 'n' AS k, nullifier AS v, NULL AS x FROM nullifiers WHERE nullifier = ANY($1::text[])
     UNION ALL
     SELECT DISTINCT 'c' AS k, commitment AS v, NULL AS x FROM leaves WHERE commitment = ANY($2::text[])
     UNION ALL
     SELECT 'r' AS k, reference AS v, expires_at::text AS x FROM proofs WHERE reference = ANY($3::text[])
     UNION ALL
     SELECT 'p' AS k, nullifier AS v, COUNT(*)::text AS x FROM proofs WHERE nullifier = ANY($1::text[]) GROUP BY nullifier`,
    [
      nullifiersOfGroup,
      ops.flatMap((op) => (op.kind === 'deposit' ? [op.commitment] : [])),
      ops.flatMap((op) => referenceOf(op) ?? []),
    ],
  );
  const spent = new Set(rows.filter((r) => r.k === 'n').map((r) => r.v));
  const present = new Set(rows.filter((r) => r.k === 'c').map((r) => r.v));
  const existing = new Map(rows.filter((r) => r.k === 'r').map((r) => [r.v, Number(r.x)]));
  const perNullifier = new Map(rows.filter((r) => r.k === 'p').map((r) => [r.v, Number(r.x)]));
  return { spent, present, stored: { existing, perNullifier }, withdrawals };
}

/** The handed-over reference an op names: a hand-over's own, or the one a settlement archives. */
function referenceOf(op: StoreOp): string | null {
  if (op.kind === 'handover') return op.reference;
  if (op.kind === 'settlement' && 'reference' in op.proof) return op.proof.reference;
  return null;
}

/** Every row of the group and the new head in one statement (parameters as in {@link writeGroup}). */
const WRITE_GROUP = `WITH l AS (INSERT INTO leaves (idx, commitment) SELECT * FROM unnest($1::bigint[], $2::text[])),
                  n AS (INSERT INTO nullifiers (nullifier, settlement_id, event_id)
                        SELECT * FROM unnest($3::text[], $4::text[], $5::bigint[])),
                  e AS (INSERT INTO events (${EVENT_COLUMNS})
                        SELECT * FROM unnest($6::bigint[], $7::text[], $8::bigint[], $9::text[], $10::bigint[],
                                             $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
                                             $24::text[], $25::text[], $26::text[])),
                  d AS (DELETE FROM proofs WHERE nullifier = ANY($23::text[])),
                  pa AS (INSERT INTO payouts (withdrawal_id, status, updated_at)
                         SELECT * FROM unnest($27::text[], $28::text[], $29::bigint[])
                         ON CONFLICT (withdrawal_id) DO UPDATE
                           SET status = excluded.status, updated_at = excluded.updated_at)
             UPDATE pool_head SET size = $16, root = $17, frontier = $18, event_count = $19, checkpoint_count = $20,
                                  deposit_total = $21, proof_rows = $22, withdrawn_total = $30,
                                  paid_out_total = $31, refunded_total = $32
             WHERE id = 1`;

/** Writes a plan that changed something: archived proofs, rows, the new head `h`, hand-overs. */
export async function writeGroup(client: pg.PoolClient, plan: Plan, h: Head): Promise<void> {
  const e = plan.events;
  // The archive first: its copies of stored hand-overs must read them before the write drops them.
  await writeArchive(client, plan.archive);
  await client.query(WRITE_GROUP, [
    plan.leaves.map((l) => l.idx),
    plan.leaves.map((l) => l.commitment),
    plan.nullifiers.map((n) => n.nullifier),
    plan.nullifiers.map((n) => n.settlement_id),
    plan.nullifiers.map((n) => n.event_id),
    e.map((r) => r.id),
    e.map((r) => r.kind),
    e.map((r) => r.created_at),
    e.map((r) => r.amount),
    e.map((r) => r.leaf_index),
    e.map((r) => r.commitment),
    e.map((r) => r.nullifier),
    e.map((r) => r.settlement_id),
    e.map((r) => r.recipient),
    e.map((r) => r.recipient_note),
    h.size,
    h.root,
    Buffer.from(h.frontier),
    h.eventCount,
    h.checkpointCount,
    h.depositTotal,
    h.proofRows,
    plan.dropProofsOf,
    e.map((r) => r.nullifier_2),
    e.map((r) => r.memo),
    e.map((r) => r.refund),
    plan.payouts.map((p) => p.withdrawal_id),
    plan.payouts.map((p) => p.status),
    plan.payouts.map((p) => p.updated_at),
    h.withdrawnTotal,
    h.paidOutTotal,
    h.refundedTotal,
  ]);
  // Handed-over proofs in a statement of their own, each proof a binary parameter: in an array
  // parameter node-postgres sends bytea as hex text for the server to parse (about 2.4 ms of
  // server CPU per 62 KB proof, against 0.5 bound as binary).
  if (plan.proofs.length > 0) await insertProofs(client, plan.proofs);
}

/**
 * Inserts handed-over proofs (or keeps a stored reference again with its new time) in one
 * multi-row statement whose proofs are binary parameters.
 */
async function insertProofs(client: pg.PoolClient, proofs: readonly HandOverOp[]): Promise<void> {
  const params: unknown[] = [];
  const rows = proofs.map((p) => {
    const at = params.length;
    params.push(
      p.reference,
      p.nullifier,
      p.parameterSet,
      p.root,
      p.change,
      p.amount,
      p.ctx,
      p.expiresAt,
      Buffer.from(p.proof.buffer, p.proof.byteOffset, p.proof.length),
    );
    // The hash by the server, from the bytes it stores (`PROOF_HASH_MIGRATION`).
    return `(${Array.from({ length: 9 }, (_, i) => `$${at + i + 1}`).join(', ')}, sha256($${at + 9}))`;
  });
  await client.query(
    `INSERT INTO proofs (reference, nullifier, parameter_set, root, change, amount, ctx, expires_at, proof, proof_sha256)
     VALUES ${rows.join(', ')}
     ON CONFLICT (reference) DO UPDATE SET expires_at = excluded.expires_at`,
    params,
  );
}
