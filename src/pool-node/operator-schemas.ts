/**
 * @module The wire of the operator's calls (TypeBox), each declared once: `POST /deposit` (shield
 * funds to a precommitment), `GET /withdrawals` (the payout process's feed) and
 * `POST /withdrawals/:id/:status` (one payout step). Every one of them needs the operator token.
 * The routes check requests against the schemas; the operator's client takes their static types.
 */

import { type Static, Type } from 'typebox';

import type { PayoutStatus } from '../ledger/store.js';
import {
  AfterPageQuery,
  amount,
  count,
  digest,
  digestText,
  errorBody,
  oneOf,
  readErrors,
} from './schema-parts.js';

const PAYOUT_STATUSES: readonly PayoutStatus[] = ['paying', 'paid', 'failed'];

/** The body of `POST /deposit`. */
export const DepositBodySchema = Type.Object(
  { amount: amount(), pre: digestText('the precommitment H_PRE(owner, rho)') },
  { additionalProperties: false },
);
/** What `POST /deposit` takes: the amount and the precommitment it is shielded to. */
export type DepositRequest = Static<typeof DepositBodySchema>;

/** What `POST /deposit` answers. */
export const DepositReceiptSchema = Type.Object({
  commitment: digest(),
  index: count(),
  eventId: count(),
});
/** What `POST /deposit` answers: the note's commitment, its leaf and its event. */
export type DepositReceipt = Static<typeof DepositReceiptSchema>;

/** `POST /deposit`: shields funds (operator only). */
export const depositSchema = {
  description:
    'shields funds: the pool computes the commitment H_NOTE(amount, pre) and appends it (operator only)',
  headers: Type.Object({ authorization: Type.String() }),
  body: DepositBodySchema,
  response: {
    200: DepositReceiptSchema,
    400: errorBody('invalid_request or amount_out_of_range'),
    401: errorBody('missing or wrong operator token'),
    409: errorBody(
      'duplicate_commitment, tree_full, or chain_deposits_only (a pool backed by a chain takes deposits through its escrow)',
    ),
    413: errorBody('body too large'),
    503: readErrors()[503],
  },
};

/** One withdrawal (an exit) with its payout status. */
const WithdrawalSchema = Type.Object({
  eventId: count(),
  withdrawalId: digest(),
  amount: amount(),
  destination: Type.String(),
  time: count(),
  status: Type.Union([oneOf(PAYOUT_STATUSES), Type.Null()]),
  updatedAt: Type.Union([count(), Type.Null()]),
});

/** What `GET /withdrawals` answers. */
export const WithdrawalsPageSchema = Type.Object({
  withdrawals: Type.Array(WithdrawalSchema),
  next: count('the cursor of the next page'),
});
/** What `GET /withdrawals` answers: withdrawals after the cursor, oldest first. */
export type WithdrawalsPage = Static<typeof WithdrawalsPageSchema>;

/** `GET /withdrawals`: the payout process's feed (operator token). */
export const withdrawalsSchema = {
  description:
    'withdrawals (exits) after a cursor (event id), oldest first, with their payout status; operator token required',
  querystring: AfterPageQuery,
  response: { 200: WithdrawalsPageSchema, ...readErrors() },
};

/** The path of `POST /withdrawals/:id/:status`. */
export const PayoutParamsSchema = Type.Object(
  { id: digestText(), status: oneOf(PAYOUT_STATUSES) },
  { additionalProperties: false },
);
/** The withdrawal and the payout step of `POST /withdrawals/:id/:status`. */
export type PayoutParams = Static<typeof PayoutParamsSchema>;

/** What `POST /withdrawals/:id/:status` answers. */
export const PayoutReplySchema = Type.Object({
  withdrawalId: digest(),
  status: Type.Unsafe<PayoutStatus>(Type.String()),
  refundIndex: Type.Optional(count()),
});
/** What a payout step answers: the withdrawal, its status and, once refunded, the refund's leaf. */
export type PayoutReply = Static<typeof PayoutReplySchema>;

/** `POST /withdrawals/:id/:status`: one payout step (operator token). */
export const payoutSchema = {
  description:
    'records a payout step: paying (before paying), then paid, or failed (refunds the owner with the proven refund note); in a pool backed by a chain only its payout sender records them (409 chain_payouts_only)',
  params: PayoutParamsSchema,
  response: {
    200: PayoutReplySchema,
    '4xx': Type.Object({
      error: Type.String(),
      message: Type.String(),
      status: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    }),
    503: errorBody('pool_unavailable'),
  },
};
