/**
 * @module The wire of the pool node's reads (TypeBox): `GET /state`, `/checkpoints`, `/leaves`,
 * `/events` and `/health`, each reply serialised through its schema so nothing undeclared leaves
 * the node, and the types a wallet reads them as. The records are the ledger's (its head,
 * checkpoints, leaves and events), so their types are the ledger's too.
 */

import { type Static, Type } from 'typebox';

import type { PoolEvent } from '../ledger/store.js';
import { DEVNET_NETWORK } from '../scheme/profile.js';
import { ChainStatusSchema } from './chain-status-schema.js';
import {
  AfterOrPageQuery,
  amount,
  count,
  digest,
  FromOrPageQuery,
  NoQuery,
  oneOf,
  readErrors,
} from './schema-parts.js';

/** A published checkpoint. */
const CheckpointSchema = Type.Object({
  seq: count(),
  root: digest(),
  size: count(),
  time: count('unix milliseconds'),
});

/** One event of the public log (its fields by kind: the ledger's `PoolEvent`). */
const EventSchema = Type.Unsafe<PoolEvent>(
  Type.Object(
    {
      id: count('its position in the public log'),
      kind: oneOf(['deposit', 'settlement', 'transition', 'withdrawal', 'refund']),
      time: count('the time of the checkpoint that published it, unix milliseconds'),
      amount: Type.Optional(amount()),
      commitment: Type.Optional(digest()),
      index: Type.Optional(count()),
      settlementId: Type.Optional(digest()),
      nullifier: Type.Optional(digest()),
      change: Type.Optional(digest()),
      changeIndex: Type.Optional(count()),
      recipient: Type.Optional(Type.String()),
      recipientNote: Type.Optional(digest()),
      recipientIndex: Type.Optional(count()),
      transitionId: Type.Optional(digest()),
      withdrawalId: Type.Optional(digest()),
      destination: Type.Optional(Type.String()),
      refund: Type.Optional(digest()),
      nullifiers: Type.Optional(Type.Array(digest())),
      outputs: Type.Optional(Type.Array(digest())),
      outputIndexes: Type.Optional(Type.Array(count())),
      memo: Type.Optional(Type.Array(Type.String())),
    },
    {
      description:
        'a deposit (amount, commitment, index), a settlement (amount, nullifier, change, recipient, recipient note, indexes), a transition (merge or split: two nullifiers, two outputs, their indexes, the memo), a withdrawal (an exit: the same, with amount, destination and refund note) or a refund (a failed payout: withdrawal id, first nullifier, amount, commitment, index)',
    },
  ),
);

/** What `GET /state` answers: the ledger's head and the pool's network and asset. */
export const StateReplySchema = Type.Object({
  network: Type.String({ example: DEVNET_NETWORK.network }),
  asset: Type.String({ example: DEVNET_NETWORK.asset }),
  size: count(),
  root: digest(),
  events: count(),
  depositTotal: amount(),
  withdrawnTotal: amount({ description: 'value that left the notes by exits' }),
  paidOutTotal: amount({ description: 'exits whose payout is recorded paid' }),
  refundedTotal: amount({ description: 'exits refunded to their owners' }),
  checkpoint: Type.Union([CheckpointSchema, Type.Null()]),
  epochMs: Type.Integer({
    minimum: 1,
    description:
      'the epoch grid, ms: checkpoints wallets anchor to are stamped with its multiples (1: no grid)',
  }),
  anchorDelayMs: Type.Integer({
    minimum: 0,
    description: "how old a boundary's checkpoint must be before wallets anchor to it, ms",
  }),
});
/** What `GET /state` answers: the ledger's head and the pool's network and asset. */
export type PoolNodeState = Static<typeof StateReplySchema>;

/** What `GET /checkpoints` answers. */
export const CheckpointsPageSchema = Type.Object({
  checkpoints: Type.Array(CheckpointSchema),
  next: count('the cursor of the next page'),
  // On a fixed page: the pool's grid, which a wallet reading a mirror takes from the pool node's
  // own page (the one it confirms its anchor on), never from the mirror's head.
  epochMs: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'the epoch grid, ms, as /state shows it (pages only)',
    }),
  ),
  anchorDelayMs: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'the anchor delay, ms, as /state shows it (pages only)',
    }),
  ),
});
/** What `GET /checkpoints` answers: checkpoints of a page (or after a cursor), oldest first. */
export type CheckpointsPage = Static<typeof CheckpointsPageSchema>;

/** What `GET /leaves` answers. */
export const LeavesPageSchema = Type.Object({
  from: count(),
  leaves: Type.Array(digest()),
  next: count(),
});
/** What `GET /leaves` answers: commitments from a leaf index (a page's first, or a cursor). */
export type LeavesPage = Static<typeof LeavesPageSchema>;

/** What `GET /events` answers. */
export const EventsPageSchema = Type.Object({ events: Type.Array(EventSchema), next: count() });
/** What `GET /events` answers: events of a page (or after a cursor), in the public log's order. */
export type EventsPage = Static<typeof EventsPageSchema>;

/** `GET /state`. */
export const stateSchema = {
  description:
    "the published head — the latest checkpoint's size, root and events, the deposited, withdrawn and refunded totals as of it — and the paid-out total",
  querystring: NoQuery,
  response: { 200: StateReplySchema, ...readErrors() },
};

/** `GET /checkpoints`. */
export const checkpointsSchema = {
  description:
    'published checkpoints: page p holds seq 1000p + 1 onwards (immutable once full); or after a cursor (seq)',
  querystring: AfterOrPageQuery,
  response: { 200: CheckpointsPageSchema, ...readErrors() },
};

/** `GET /leaves`. */
export const leavesSchema = {
  description:
    'published commitments: page p holds leaves from 4096p (immutable once full), or from a leaf index; wallets rebuild the tree from them (no path is ever served)',
  querystring: FromOrPageQuery,
  response: { 200: LeavesPageSchema, ...readErrors() },
};

/** `GET /events`. */
export const eventsSchema = {
  description:
    "published events, by checkpoint and within one by nullifier (a deposit's commitment), each at its checkpoint's time: page p holds positions 1000p + 1 onwards (immutable once full); or after a cursor (position)",
  querystring: AfterOrPageQuery,
  response: { 200: EventsPageSchema, ...readErrors() },
};

/** A transition parameter set on `/health`: the facilitator's `parameterSets` record fields. */
const TransitionParameterSetSchema = Type.Object({
  id: count(),
  prover: Type.Boolean(),
  conjecturedBits: count(),
  provenListDecodingBits: count(),
  provenUniqueDecodingBits: count(),
});

/** The pool node's `GET /health` when it answers 200. */
export type PoolNodeHealth = Static<(typeof healthSchema.response)[200]>;

/**
 * `GET /health`: whether the store answers (the operator's probe), and the transition sets
 * `POST /transitions` accepts (read by a wallet only after a refused transition proof).
 */
export const healthSchema = {
  description: 'whether the store answers',
  querystring: NoQuery,
  response: {
    200: Type.Object({
      status: oneOf(['ok']),
      kind: oneOf(['sqlite', 'postgres']),
      leaves: count(),
      checkpoint: Type.Union([count(), Type.Null()], {
        description: 'seq of the latest checkpoint',
      }),
      transitionParameterSets: Type.Optional(
        Type.Array(TransitionParameterSetSchema, {
          description:
            'the transition parameter sets POST /transitions accepts, newest first (prover: the set this release proves)',
        }),
      ),
      chain: Type.Optional(ChainStatusSchema),
    }),
    503: Type.Object({
      status: oneOf(['unavailable']),
      kind: Type.String(),
      error: Type.String(),
      chain: Type.Optional(ChainStatusSchema),
    }),
  },
};
