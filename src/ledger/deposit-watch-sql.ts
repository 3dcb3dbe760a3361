/**
 * @module The deposit watcher's statements, written once with `?` placeholders: SQLite runs them as
 * they are, PostgreSQL after {@link numbered} turns each `?` into `$1, $2, …`. Lists of states
 * travel as one JSON array (`json_each` in SQLite, `jsonb_array_elements_text` in PostgreSQL).
 */

import { BINDING_COLUMNS, DEPOSIT_COLUMNS } from './deposit-watch-rows.js';

/** The statements, by name; `{states}` marks where a dialect puts its JSON-array membership test. */
export const WATCH_SQL = {
  bindings: `SELECT ${BINDING_COLUMNS} FROM chain_watch ORDER BY source`,
  insertBinding: `INSERT INTO chain_watch (${BINDING_COLUMNS}, scanned_block, scanned_hash, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
  cursor: 'SELECT scanned_block, scanned_hash FROM chain_watch WHERE source = ?',
  moveCursor:
    'UPDATE chain_watch SET scanned_block = ?, scanned_hash = ?, updated_at = ? WHERE source = ?',
  // A deposit read again (after a rewind) takes the new block; one already decided keeps its row.
  insertDeposit: `INSERT INTO chain_deposits (source, idx, depositor, amount, pre, block, block_hash, state, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)
    ON CONFLICT (source, idx) DO UPDATE SET depositor = excluded.depositor, amount = excluded.amount,
      pre = excluded.pre, block = excluded.block, block_hash = excluded.block_hash,
      updated_at = excluded.updated_at
    WHERE chain_deposits.state = 'pending' AND chain_deposits.sent_tx IS NULL`,
  settle: `UPDATE chain_deposits SET state = ?, settled_block = ?, settled_hash = ?, updated_at = ?
    WHERE source = ? AND idx = ? AND state IN ('pending', 'accepted', 'declined')`,
  reclaim: `UPDATE chain_deposits SET state = 'reclaimed', reclaimed_block = ?, reclaimed_hash = ?, updated_at = ?
    WHERE source = ? AND idx = ? AND state IN ('pending', 'declined', 'reclaimed')`,
  dropAbove: `DELETE FROM chain_deposits
    WHERE source = ? AND block > ? AND state NOT IN ('shielded', 'unshieldable')`,
  unreclaimAbove: `UPDATE chain_deposits SET
      state = CASE WHEN settled_block IS NOT NULL AND settled_block <= ? THEN 'declined' ELSE 'pending' END,
      reclaimed_block = NULL, reclaimed_hash = NULL, updated_at = ?
    WHERE source = ? AND state = 'reclaimed' AND reclaimed_block > ?`,
  unsettleAbove: `UPDATE chain_deposits SET state = 'pending', settled_block = NULL, settled_hash = NULL,
      updated_at = ?
    WHERE source = ? AND state IN ('pending', 'accepted', 'declined') AND settled_block > ?`,
  decide: `UPDATE chain_deposits SET decision = ?, reason = ?, sent_tx = ?, sent_block = ?, updated_at = ?
    WHERE source = ? AND idx = ? AND state = 'pending'`,
  clearSent: `UPDATE chain_deposits SET decision = NULL, reason = NULL, sent_tx = NULL, sent_block = NULL,
      updated_at = ?
    WHERE source = ? AND sent_tx = ? AND state = 'pending'`,
  markShielded: `UPDATE chain_deposits SET state = 'shielded', leaf_index = ?, updated_at = ?
    WHERE source = ? AND idx = ? AND state = 'accepted'`,
  markUnshieldable: `UPDATE chain_deposits SET state = 'unshieldable', reason = ?, updated_at = ?
    WHERE source = ? AND idx = ? AND state = 'accepted'`,
  deposits: `SELECT ${DEPOSIT_COLUMNS} FROM chain_deposits
    WHERE source = ? AND state IN ({states}) ORDER BY idx LIMIT ?`,
  recent: `SELECT ${DEPOSIT_COLUMNS} FROM chain_deposits
    WHERE source = ? AND (block >= ? OR settled_block >= ? OR reclaimed_block >= ?
      OR state IN ('pending', 'accepted'))
    ORDER BY idx`,
  counts: 'SELECT state, COUNT(*) AS count FROM chain_deposits WHERE source = ? GROUP BY state',
  commitmentLeaf: `SELECT l.idx AS idx,
      EXISTS (SELECT 1 FROM events e WHERE e.kind = 'deposit' AND e.leaf_index = l.idx) AS deposit
    FROM leaves l WHERE l.commitment = ? ORDER BY l.idx LIMIT 1`,
} as const;

/** A statement's name. */
export type WatchStatement = keyof typeof WATCH_SQL;

/** `sql` with each `?` replaced by `$1, $2, …` (PostgreSQL). No statement has a `?` in a literal. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
