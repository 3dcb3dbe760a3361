/**
 * @module The public log as the stores publish it: what a checkpoint publishes, and how both stores
 * read it back. A checkpoint publishes the leaves and the events up to the head it fixes, and
 * nothing newer: an event becomes public with its checkpoint, carries the checkpoint's time (never
 * its arrival's) and takes its place — its position, the public log's id — in the checkpoint's
 * events sorted by nullifier (a deposit by its commitment), never in their order of arrival. The
 * stores keep the arrival order and time (`events.id`, `events.created_at`) for the operator only.
 *
 * SQL shared by both stores is here once per dialect; the published head is computed once.
 */

import type { DigestHex } from '../core/index.js';
import type { Checkpoint, StoreState } from './store.js';

/**
 * Migration 6: the public log's columns. `checkpoints.events` — the events a checkpoint publishes
 * (the last event id it covers); `events.position` — its place in the public log; and
 * `events.checkpoint_seq` — the checkpoint that published it (its time is the event's public
 * time). Existing events keep their arrival order as their position (they were public in that
 * order already), and each is stamped with the first checkpoint covering its leaves.
 */
export const PUBLIC_LOG_MIGRATION = {
  name: 'public log',
  sqlite: `
    ALTER TABLE checkpoints ADD COLUMN events INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX events_first_leaf ON events (leaf_index);
    UPDATE checkpoints SET events = COALESCE((SELECT e.id FROM events e
      WHERE e.leaf_index < checkpoints.size ORDER BY e.leaf_index DESC LIMIT 1), 0);
    DROP INDEX events_first_leaf;
    CREATE INDEX checkpoints_events ON checkpoints (events);
    ALTER TABLE events ADD COLUMN position INTEGER;
    ALTER TABLE events ADD COLUMN checkpoint_seq INTEGER;
    UPDATE events SET position = id, checkpoint_seq = (SELECT c.seq FROM checkpoints c
      WHERE c.events >= events.id ORDER BY c.events LIMIT 1);
    DROP INDEX checkpoints_events;
    CREATE UNIQUE INDEX events_position ON events (position);`,
  postgres: `
    ALTER TABLE checkpoints ADD COLUMN events BIGINT NOT NULL DEFAULT 0;
    CREATE INDEX events_first_leaf ON events (leaf_index);
    UPDATE checkpoints SET events = COALESCE((SELECT e.id FROM events e
      WHERE e.leaf_index < checkpoints.size ORDER BY e.leaf_index DESC LIMIT 1), 0);
    DROP INDEX events_first_leaf;
    CREATE INDEX checkpoints_events ON checkpoints (events);
    ALTER TABLE events ADD COLUMN position BIGINT;
    ALTER TABLE events ADD COLUMN checkpoint_seq BIGINT;
    UPDATE events SET position = id, checkpoint_seq = (SELECT c.seq FROM checkpoints c
      WHERE c.events >= events.id ORDER BY c.events LIMIT 1);
    DROP INDEX checkpoints_events;
    CREATE UNIQUE INDEX events_position ON events (position);`,
} as const;

/**
 * Publishing, under the store's lock, right after the checkpoint row is written: the events not
 * yet placed (ids past `base`, the events placed so far) take positions `base + 1, …` in nullifier
 * order (a deposit's commitment stands in for it; ties — a refund and its exit — by id), then every
 * event past the previous checkpoint's is stamped with the new one. Parameters: `base` twice, then
 * the checkpoint's seq and the previous checkpoint's events. PostgreSQL compares the hex bytewise
 * (`COLLATE "C"`), as SQLite does.
 */
export const PUBLISH_SQL = {
  sqlite: {
    base: 'SELECT COALESCE(MAX(position), 0) FROM events',
    place: `UPDATE events SET position = ranked.place
      FROM (SELECT id, ? + ROW_NUMBER() OVER (ORDER BY COALESCE(nullifier, commitment), id) AS place
        FROM events WHERE id > ? AND position IS NULL) AS ranked
      WHERE events.id = ranked.id`,
    stamp: 'UPDATE events SET checkpoint_seq = ? WHERE id > ? AND checkpoint_seq IS NULL',
  },
  postgres: {
    base: 'SELECT COALESCE(MAX(position), 0) AS base FROM events',
    place: `UPDATE events SET position = ranked.place
      FROM (SELECT id, $1::bigint + ROW_NUMBER() OVER (
          ORDER BY COALESCE(nullifier, commitment) COLLATE "C", id) AS place
        FROM events WHERE id > $1 AND position IS NULL) AS ranked
      WHERE events.id = ranked.id`,
    stamp: 'UPDATE events SET checkpoint_seq = $1 WHERE id > $2 AND checkpoint_seq IS NULL',
  },
} as const;

/** The columns of a published event, as `eventFromRow` reads a row: its position is its id. */
const PUBLISHED_COLUMNS = `e.position AS id, e.kind, c.created_at, e.amount, e.leaf_index,
  e.commitment, e.nullifier, e.settlement_id, e.recipient, e.recipient_note, e.nullifier_2,
  e.memo, e.refund`;

/** Published events after a position, in the public log's order, each with its checkpoint's time. */
export const PUBLISHED_EVENTS_SQL = {
  sqlite: `SELECT ${PUBLISHED_COLUMNS} FROM events e JOIN checkpoints c ON c.seq = e.checkpoint_seq
    WHERE e.position > ? ORDER BY e.position LIMIT ?`,
  postgres: `SELECT ${PUBLISHED_COLUMNS} FROM events e JOIN checkpoints c ON c.seq = e.checkpoint_seq
    WHERE e.position > $1 ORDER BY e.position LIMIT $2`,
} as const;

/** The latest checkpoint with the events it published. */
export interface PublishingCheckpoint extends Checkpoint {
  /** Events published up to it (the last event id it covers). */
  readonly events: number;
}

/** The totals the head records now. */
export interface LiveTotals {
  readonly depositTotal: string;
  readonly withdrawnTotal: string;
  readonly paidOutTotal: string;
  readonly refundedTotal: string;
}

/** What the events past the latest checkpoint add to the totals (not public yet). */
export interface UnpublishedSums {
  readonly deposit: bigint;
  readonly withdrawal: bigint;
  readonly refund: bigint;
}

/** The sums of unpublished `events` rows (`kind`, `amount`). */
export function unpublishedSums(
  rows: readonly { readonly kind: string; readonly amount: string }[],
): UnpublishedSums {
  const sums = { deposit: 0n, withdrawal: 0n, refund: 0n };
  for (const row of rows)
    if (row.kind === 'deposit' || row.kind === 'withdrawal' || row.kind === 'refund')
      sums[row.kind] += BigInt(row.amount);
  return sums;
}

/**
 * The head as the public log shows it: the latest checkpoint's size, root and events, the
 * deposited, withdrawn and refunded totals as of it (the live totals less what newer events
 * added), and the paid-out total as recorded (a payout step is the operator's, not a wallet's).
 */
export function publishedStateOf(
  live: LiveTotals,
  latest: PublishingCheckpoint | null,
  unpublished: UnpublishedSums,
  emptyRoot: DigestHex,
): StoreState {
  const checkpoint: Checkpoint | null = latest && {
    seq: latest.seq,
    root: latest.root,
    size: latest.size,
    time: latest.time,
  };
  return {
    size: latest?.size ?? 0,
    root: latest?.root ?? emptyRoot,
    events: latest?.events ?? 0,
    depositTotal: (BigInt(live.depositTotal) - unpublished.deposit).toString(),
    withdrawnTotal: (BigInt(live.withdrawnTotal) - unpublished.withdrawal).toString(),
    paidOutTotal: live.paidOutTotal,
    refundedTotal: (BigInt(live.refundedTotal) - unpublished.refund).toString(),
    checkpoint,
  };
}
