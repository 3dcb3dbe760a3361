/**
 * @module The rows of the deposit watcher's tables as both stores read them (SQLite returns
 * numbers, PostgreSQL's BIGINT returns strings: each field goes through `Number`), and the SQL both
 * dialects share.
 */

import type {
  CommitmentLeaf,
  WatchBinding,
  WatchCursor,
  WatchedDeposit,
  WatchedState,
} from './deposit-watch.js';
import { WATCHED_STATES } from './deposit-watch.js';

/** A `chain_watch` row. */
export interface BindingRow {
  source: string;
  chain_id: number | string;
  escrow: string;
  token: string;
  network: string;
  deploy_block: number | string;
}

/** The cursor columns of a `chain_watch` row. */
export interface CursorRow {
  scanned_block: number | string;
  scanned_hash: string | null;
}

/** A `chain_deposits` row. */
export interface DepositRow {
  idx: number | string;
  depositor: string;
  amount: string;
  pre: string;
  block: number | string;
  block_hash: string;
  state: WatchedState;
  decision: 'accept' | 'decline' | null;
  reason: string | null;
  sent_tx: string | null;
  sent_block: number | string | null;
  settled_block: number | string | null;
  settled_hash: string | null;
  reclaimed_block: number | string | null;
  reclaimed_hash: string | null;
  leaf_index: number | string | null;
}

/** The columns of a {@link DepositRow}. */
export const DEPOSIT_COLUMNS =
  'idx, depositor, amount, pre, block, block_hash, state, decision, reason, sent_tx, sent_block, settled_block, settled_hash, reclaimed_block, reclaimed_hash, leaf_index';

/** The columns of a {@link BindingRow}. */
export const BINDING_COLUMNS = 'source, chain_id, escrow, token, network, deploy_block';

function numberOrNull(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

export function bindingOf(row: BindingRow): WatchBinding {
  return {
    source: row.source,
    chainId: Number(row.chain_id),
    escrow: row.escrow,
    token: row.token,
    network: row.network,
    deployBlock: Number(row.deploy_block),
  };
}

export function cursorOf(row: CursorRow): WatchCursor {
  return { block: Number(row.scanned_block), hash: row.scanned_hash };
}

export function depositOf(row: DepositRow): WatchedDeposit {
  return {
    index: Number(row.idx),
    depositor: row.depositor,
    amount: row.amount,
    pre: row.pre,
    block: Number(row.block),
    blockHash: row.block_hash,
    state: row.state,
    decision: row.decision,
    reason: row.reason,
    sentTx: row.sent_tx,
    sentBlock: numberOrNull(row.sent_block),
    settledBlock: numberOrNull(row.settled_block),
    settledHash: row.settled_hash,
    reclaimedBlock: numberOrNull(row.reclaimed_block),
    reclaimedHash: row.reclaimed_hash,
    leafIndex: numberOrNull(row.leaf_index),
  };
}

export function commitmentLeafOf(
  row: { idx: number | string; deposit: number | boolean } | undefined,
): CommitmentLeaf | null {
  return row ? { index: Number(row.idx), deposit: Boolean(row.deposit) } : null;
}

/** Counts by state, every state present. */
export function countsOf(
  rows: readonly { state: WatchedState; count: number | string }[],
): Record<WatchedState, number> {
  const counts = Object.fromEntries(WATCHED_STATES.map((state) => [state, 0])) as Record<
    WatchedState,
    number
  >;
  for (const row of rows) counts[row.state] = Number(row.count);
  return counts;
}
