/** Whole-ledger invariants, checked after races and crashes: no partial transition anywhere. */

import type Database from 'better-sqlite3';
import type pg from 'pg';

import type { PrivStarkCore } from '../../../src/core/index.js';
import type { PoolEvent, PoolStore } from '../../../src/ledger/index.js';
import { allLeaves } from './ops.js';

/** A row of the `proofs` table, as the database holds it. */
export interface ProofRow {
  readonly reference: string;
  readonly nullifier: string;
  readonly expiresAt: number;
}

/**
 * Every row of the `proofs` table, read from the database itself rather than through the store:
 * the store's interface reports only the head's counter (`proofCount`), which is what these rows
 * check. The store's own connection is used (SQLite's `db`, PostgreSQL's read pool); a store
 * without one fails here rather than skipping the check.
 */
export async function storedProofRows(store: PoolStore): Promise<ProofRow[]> {
  const sql = 'SELECT reference, nullifier, expires_at FROM proofs ORDER BY reference';
  type Raw = { reference: string; nullifier: string; expires_at: number | string };
  let rows: Raw[];
  if (store.kind === 'sqlite') {
    const db = (store as unknown as { db?: Database.Database }).db;
    if (!db) throw new Error('storedProofRows: the SQLite store has no db handle');
    rows = db.prepare(sql).all() as Raw[];
  } else {
    const pool = (store as unknown as { pool?: pg.Pool }).pool;
    if (!pool) throw new Error('storedProofRows: the PostgreSQL store has no connection pool');
    rows = (await pool.query<Raw>(sql)).rows;
  }
  return rows.map((row) => ({
    reference: row.reference,
    nullifier: row.nullifier,
    expiresAt: Number(row.expires_at),
  }));
}

/** Every event, by paging. */
export async function allEvents(store: PoolStore): Promise<PoolEvent[]> {
  const out: PoolEvent[] = [];
  for (;;) {
    const page = await store.events(out.length, 1000);
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

/**
 * What is wrong with the ledger (empty when consistent): the frontier root equals the root of all
 * leaves; events have ids 1..n and account for every leaf exactly once, in order; each settlement's
 * two leaves are its change and recipient note and its nullifier is recorded with its id; the
 * deposit total is the sum of deposit events; every checkpoint is the root of a prefix; the head's
 * count of handed-over proofs (`proof_rows`) is the number of rows, and no stored proof belongs to a
 * nullifier that has settled (a settlement drops them in its own commit).
 */
export async function ledgerProblems(core: PrivStarkCore, store: PoolStore): Promise<string[]> {
  const problems: string[] = [];
  const state = await store.state();
  const leaves = await allLeaves(store);
  const events = await allEvents(store);
  if (leaves.length !== state.size)
    problems.push(`${leaves.length} leaves, head says ${state.size}`);
  if (core.treeRoot(leaves) !== state.root)
    problems.push('head root is not the root of the leaves');
  if ((await store.frontier()).root !== state.root)
    problems.push('frontier root differs from head root');
  if (events.length !== state.events)
    problems.push(`${events.length} events, head says ${state.events}`);
  let next = 0;
  let total = 0n;
  const nullifiers = new Set<string>();
  for (const [i, event] of events.entries()) {
    if (event.id !== i + 1) problems.push(`event ${i + 1} has id ${event.id}`);
    if (event.kind === 'deposit') {
      if (event.index !== next || leaves[next] !== event.commitment)
        problems.push(`deposit event ${event.id} does not match leaf ${next}`);
      total += BigInt(event.amount);
      next += 1;
    } else if (event.kind === 'refund') {
      if (event.index !== next || leaves[next] !== event.commitment)
        problems.push(`refund event ${event.id} does not match leaf ${next}`);
      next += 1;
    } else if (event.kind === 'transition' || event.kind === 'withdrawal') {
      const id = event.kind === 'transition' ? event.transitionId : event.withdrawalId;
      if (event.outputIndexes[0] !== next || event.outputIndexes[1] !== next + 1)
        problems.push(`transition event ${event.id} indexes`);
      if (leaves[next] !== event.outputs[0] || leaves[next + 1] !== event.outputs[1])
        problems.push(`transition event ${event.id} leaves`);
      for (const nullifier of event.nullifiers) {
        if (nullifiers.has(nullifier)) problems.push(`nullifier of event ${event.id} spent twice`);
        nullifiers.add(nullifier);
        const spent = await store.nullifier(nullifier);
        if (spent?.settlementId !== id || spent.eventId !== event.id)
          problems.push(`nullifier row of event ${event.id}`);
      }
      next += 2;
    } else {
      if (event.changeIndex !== next || event.recipientIndex !== next + 1)
        problems.push(`settlement event ${event.id} indexes`);
      if (leaves[next] !== event.change || leaves[next + 1] !== event.recipientNote)
        problems.push(`settlement event ${event.id} leaves`);
      if (nullifiers.has(event.nullifier))
        problems.push(`nullifier of event ${event.id} settled twice`);
      nullifiers.add(event.nullifier);
      const spent = await store.nullifier(event.nullifier);
      if (spent?.settlementId !== event.settlementId || spent.eventId !== event.id)
        problems.push(`nullifier row of event ${event.id}`);
      next += 2;
    }
  }
  if (next !== leaves.length)
    problems.push(`events account for ${next} leaves of ${leaves.length}`);
  if (total.toString() !== state.depositTotal)
    problems.push(`deposit total ${state.depositTotal}, events sum to ${total}`);
  const proofs = await storedProofRows(store);
  const proofRows = await store.proofCount();
  if (proofRows !== proofs.length)
    problems.push(`head says ${proofRows} proof rows, the table holds ${proofs.length}`);
  for (const proof of proofs) {
    if (nullifiers.has(proof.nullifier) || (await store.nullifier(proof.nullifier)) !== null)
      problems.push(`proof ${proof.reference} is kept for a settled nullifier`);
  }
  for (const checkpoint of await store.checkpoints(0, 100_000)) {
    if (
      checkpoint.size > leaves.length ||
      core.treeRoot(leaves.slice(0, checkpoint.size)) !== checkpoint.root
    ) {
      problems.push(
        `checkpoint ${checkpoint.seq} is not the root of the first ${checkpoint.size} leaves`,
      );
    }
  }
  return problems;
}
