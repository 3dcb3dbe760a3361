/**
 * @module JSON schemas of the devnet pool node's routes: every request is checked against one
 * (unknown query fields and body fields included) and every reply is serialised through one, so
 * nothing undeclared leaves the node.
 */

import { DEVNET_NETWORK } from '../scheme/profile.js';

const digest = {
  type: 'string',
  pattern: '^0x[0-9a-f]{64}$',
  example: `0x${'1f'.repeat(32)}`,
} as const;
const amount = {
  type: 'string',
  pattern: '^[0-9]{1,40}$',
  description: 'decimal atomic units',
  example: '1000000',
} as const;
const count = { type: 'integer', minimum: 0 } as const;

/** Query limits: a page never exceeds these. */
export const PAGE_LIMITS = {
  leaves: { default: 1024, max: 4096 },
  events: { default: 100, max: 1000 },
  checkpoints: { default: 100, max: 1000 },
} as const;

/** A page's `limit` query: its value, the default when absent, or the 400 message when out of bounds. */
export function limitOf(
  text: string | undefined,
  bounds: { default: number; max: number },
): number | string {
  if (text === undefined) return bounds.default;
  const value = Number(text);
  if (value < 1 || value > bounds.max)
    return `querystring/limit must be between 1 and ${bounds.max}`;
  return value;
}

/** The error body of every 4xx and 5xx. */
export const errorBody = {
  type: 'object',
  description: 'a stable snake_case reason and a generic message',
  properties: {
    error: { type: 'string', example: 'invalid_request' },
    message: { type: 'string' },
  },
  required: ['error', 'message'],
} as const;

const checkpoint = {
  type: 'object',
  properties: {
    seq: count,
    root: digest,
    size: count,
    time: { ...count, description: 'unix milliseconds' },
  },
  required: ['seq', 'root', 'size', 'time'],
} as const;

const event = {
  type: 'object',
  description:
    'a deposit (amount, commitment, index), a settlement (amount, nullifier, change, recipient, recipient note, indexes), a transition (merge or split: two nullifiers, two outputs, their indexes, the memo), a withdrawal (an exit: the same, with amount, destination and refund note) or a refund (a failed payout: withdrawal id, first nullifier, amount, commitment, index)',
  properties: {
    id: count,
    kind: {
      type: 'string',
      enum: ['deposit', 'settlement', 'transition', 'withdrawal', 'refund'],
    },
    time: count,
    amount,
    commitment: digest,
    index: count,
    settlementId: digest,
    nullifier: digest,
    change: digest,
    changeIndex: count,
    recipient: { type: 'string' },
    recipientNote: digest,
    recipientIndex: count,
    transitionId: digest,
    withdrawalId: digest,
    destination: { type: 'string' },
    refund: digest,
    nullifiers: { type: 'array', items: digest },
    outputs: { type: 'array', items: digest },
    outputIndexes: { type: 'array', items: count },
    memo: { type: 'array', items: { type: 'string' } },
  },
  required: ['id', 'kind', 'time'],
} as const;

/** A non-negative integer in a query string (queries are not coerced: every part is checked as sent). */
const queryInteger = (example: string) =>
  ({
    type: 'string',
    pattern: '^(0|[1-9][0-9]{0,15})$',
    description: 'a non-negative integer',
    example,
  }) as const;

function page(cursor: 'from' | 'after') {
  return {
    type: 'object',
    additionalProperties: false,
    properties: { [cursor]: queryInteger('0'), limit: queryInteger('100') },
  } as const;
}

const errors = {
  400: { ...errorBody, description: 'the request does not match the schema' },
  503: { ...errorBody, description: 'the pool store is unavailable' },
} as const;

export const stateSchema = {
  description:
    'the ledger head: size, current root, latest checkpoint, events, deposited, withdrawn, paid-out and refunded totals',
  querystring: { type: 'object', additionalProperties: false, properties: {} },
  response: {
    200: {
      type: 'object',
      properties: {
        network: { type: 'string', example: DEVNET_NETWORK.network },
        asset: { type: 'string', example: DEVNET_NETWORK.asset },
        size: count,
        root: digest,
        events: count,
        depositTotal: amount,
        withdrawnTotal: { ...amount, description: 'value that left the notes by exits' },
        paidOutTotal: { ...amount, description: 'exits whose payout is recorded paid' },
        refundedTotal: { ...amount, description: 'exits refunded to their owners' },
        checkpoint: { anyOf: [checkpoint, { type: 'null' }] },
      },
      required: [
        'network',
        'asset',
        'size',
        'root',
        'events',
        'depositTotal',
        'withdrawnTotal',
        'paidOutTotal',
        'refundedTotal',
        'checkpoint',
      ],
    },
    ...errors,
  },
} as const;

export const checkpointsSchema = {
  description: 'published checkpoints after a cursor (seq), oldest first',
  querystring: page('after'),
  response: {
    200: {
      type: 'object',
      properties: {
        checkpoints: { type: 'array', items: checkpoint },
        next: { ...count, description: 'the cursor of the next page' },
      },
      required: ['checkpoints', 'next'],
    },
    ...errors,
  },
} as const;

export const leavesSchema = {
  description:
    'commitments from a leaf index; wallets rebuild the tree from them (no path is ever served)',
  querystring: page('from'),
  response: {
    200: {
      type: 'object',
      properties: { from: count, leaves: { type: 'array', items: digest }, next: count },
      required: ['from', 'leaves', 'next'],
    },
    ...errors,
  },
} as const;

export const eventsSchema = {
  description: 'events after a cursor (id), oldest first',
  querystring: page('after'),
  response: {
    200: {
      type: 'object',
      properties: { events: { type: 'array', items: event }, next: count },
      required: ['events', 'next'],
    },
    ...errors,
  },
} as const;

export const depositSchema = {
  description:
    'shields funds: the pool computes the commitment H_NOTE(amount, pre) and appends it (operator only)',
  headers: {
    type: 'object',
    properties: { authorization: { type: 'string' } },
    required: ['authorization'],
  },
  body: {
    type: 'object',
    additionalProperties: false,
    properties: { amount, pre: { ...digest, description: 'the precommitment H_PRE(owner, rho)' } },
    required: ['amount', 'pre'],
  },
  response: {
    200: {
      type: 'object',
      properties: { commitment: digest, index: count, eventId: count },
      required: ['commitment', 'index', 'eventId'],
    },
    400: { ...errorBody, description: 'invalid_request or amount_out_of_range' },
    401: { ...errorBody, description: 'missing or wrong operator token' },
    409: { ...errorBody, description: 'duplicate_commitment or tree_full' },
    413: { ...errorBody, description: 'body too large' },
    503: errors[503],
  },
} as const;

/** `POST /proofs`: a proof handed over before a compact payment (docs/compact-payments.md). */
export const handOverSchema = {
  description:
    'keeps a verified spend proof for a compact payment and answers its reference; the payment fields are only those the proof is bound to',
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      scheme: { type: 'string', minLength: 1, maxLength: 64 },
      network: { type: 'string', minLength: 1, maxLength: 128 },
      asset: { type: 'string', minLength: 1, maxLength: 128 },
      payTo: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        description: 'the recipient (pstark1…)',
      },
      amount: { ...amount, pattern: '^[0-9]{1,32}$' },
      resourceId: { type: 'string', maxLength: 256, description: '"" when the route has none' },
      expiry: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      root: digest,
      nullifier: digest,
      commitment: { ...digest, description: 'the change note' },
      // Bounded by the route's body limit; the canonical-base64 check refuses a proof over 128 KiB.
      proof: { type: 'string', description: 'canonical standard base64 of the proof bytes' },
    },
    required: [
      'scheme',
      'network',
      'asset',
      'payTo',
      'amount',
      'resourceId',
      'expiry',
      'root',
      'nullifier',
      'commitment',
      'proof',
    ],
  },
  response: {
    200: {
      type: 'object',
      description: 'kept (201), or kept before (200): the same reference',
      properties: {
        reference: digest,
        expires: { ...count, description: 'unix seconds when the node drops it' },
      },
      required: ['reference', 'expires'],
    },
    201: {
      type: 'object',
      properties: {
        reference: digest,
        expires: { ...count, description: 'unix seconds when the node drops it' },
      },
      required: ['reference', 'expires'],
    },
    '4xx': {
      ...errorBody,
      description: 'a stable reason of the registry (docs/compact-payments.md)',
    },
    503: { ...errorBody, description: 'proof_store_full (with Retry-After) or pool_unavailable' },
  },
} as const;

export const healthSchema = {
  description: 'whether the store answers',
  querystring: { type: 'object', additionalProperties: false, properties: {} },
  response: {
    200: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ok'] },
        kind: { type: 'string', enum: ['sqlite', 'postgres'] },
        leaves: count,
        checkpoint: {
          anyOf: [count, { type: 'null' }],
          description: 'seq of the latest checkpoint',
        },
      },
      required: ['status', 'kind', 'leaves', 'checkpoint'],
    },
    503: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['unavailable'] },
        kind: { type: 'string' },
        error: { type: 'string' },
      },
      required: ['status', 'kind', 'error'],
    },
  },
} as const;

/** `POST /transfers`: a payment statement to a shielded address, settled by the pool (docs/pool.md). */
export const transferSchema = {
  description:
    'settles a payment statement bound to the pool transfer context (resourceId priv-stark:pool-transfer): the fields of a priv-stark/v1 payload with its proof inline',
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      scheme: { type: 'string', minLength: 1, maxLength: 64 },
      network: { type: 'string', minLength: 1, maxLength: 128 },
      root: digest,
      nullifier: digest,
      commitment: { ...digest, description: 'the change note' },
      // Bounded by the route's body limit; the canonical-base64 check refuses a proof over 128 KiB.
      proof: { type: 'string', description: 'canonical standard base64 of the proof bytes' },
      amount: { ...amount, pattern: '^[0-9]{1,32}$' },
      recipient: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        description: 'the recipient (pstark1…)',
      },
      expiry: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    },
    required: [
      'scheme',
      'network',
      'root',
      'nullifier',
      'commitment',
      'proof',
      'amount',
      'recipient',
      'expiry',
    ],
  },
  response: {
    200: {
      type: 'object',
      description: 'settled: the settlement id and the leaves of the change and recipient notes',
      properties: {
        transaction: { type: 'string' },
        changeIndex: count,
        recipientIndex: count,
      },
      required: ['transaction', 'changeIndex', 'recipientIndex'],
    },
    '4xx': {
      type: 'object',
      description:
        'a stable reason of the registry; duplicate_settlement carries the transaction that spent the note',
      properties: {
        error: { type: 'string' },
        message: { type: 'string' },
        transaction: { type: 'string' },
      },
      required: ['error', 'message'],
    },
    503: { ...errorBody, description: 'pool_unavailable' },
  },
} as const;

/** `POST /transitions`: a merge, split or exit, its proof inline. */
export const transitionSchema = {
  description:
    'applies a merge, split or exit of notes proven with the transition statement: two nullifiers, two output commitments, the masked output values, the refund note and the expiry, an exit amount and its CAIP-10 destination for an exit, the proof inline',
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      scheme: { type: 'string', minLength: 1, maxLength: 64 },
      network: { type: 'string', minLength: 1, maxLength: 128 },
      root: digest,
      nullifiers: { type: 'array', items: digest, minItems: 2, maxItems: 2 },
      outputs: { type: 'array', items: digest, minItems: 2, maxItems: 2 },
      memo: {
        type: 'array',
        items: { type: 'string', pattern: '^(0|[1-9][0-9]{0,19})$' },
        minItems: 2,
        maxItems: 2,
      },
      refund: { ...digest, description: 'the proven refund note of an exit' },
      exit: { ...amount, pattern: '^[0-9]{1,32}$', description: 'the amount leaving the pool' },
      destination: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        description: 'an exit destination: a CAIP-10 account id',
      },
      expiry: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      // Bounded by the route's body limit; the canonical-base64 check refuses a proof over 128 KiB.
      proof: { type: 'string', description: 'canonical standard base64 of the proof bytes' },
    },
    required: [
      'scheme',
      'network',
      'root',
      'nullifiers',
      'outputs',
      'memo',
      'refund',
      'expiry',
      'proof',
    ],
  },
  response: {
    200: {
      type: 'object',
      description: 'applied: the transition id and the leaves of its two outputs',
      properties: {
        transaction: { type: 'string' },
        outputIndexes: { type: 'array', items: count, minItems: 2, maxItems: 2 },
      },
      required: ['transaction', 'outputIndexes'],
    },
    '4xx': {
      type: 'object',
      description:
        'a stable reason of the registry; duplicate_settlement carries the transition already applied',
      properties: {
        error: { type: 'string' },
        message: { type: 'string' },
        transaction: { type: 'string' },
      },
      required: ['error', 'message'],
    },
    503: { ...errorBody, description: 'pool_unavailable' },
  },
} as const;

const withdrawal = {
  type: 'object',
  properties: {
    eventId: count,
    withdrawalId: digest,
    amount,
    destination: { type: 'string' },
    time: count,
    status: { anyOf: [{ type: 'string', enum: ['paying', 'paid', 'failed'] }, { type: 'null' }] },
    updatedAt: { anyOf: [count, { type: 'null' }] },
  },
  required: ['eventId', 'withdrawalId', 'amount', 'destination', 'time', 'status', 'updatedAt'],
} as const;

/** `GET /withdrawals`: the payout process's feed (operator token). */
export const withdrawalsSchema = {
  description:
    'withdrawals (exits) after a cursor (event id), oldest first, with their payout status; operator token required',
  querystring: page('after'),
  response: {
    200: {
      type: 'object',
      properties: {
        withdrawals: { type: 'array', items: withdrawal },
        next: { ...count, description: 'the cursor of the next page' },
      },
      required: ['withdrawals', 'next'],
    },
    ...errors,
  },
} as const;

/** `POST /withdrawals/:id/:status`: one payout step (operator token). */
export const payoutSchema = {
  description:
    'records a payout step: paying (before paying), then paid, or failed (refunds the owner with the proven refund note)',
  params: {
    type: 'object',
    additionalProperties: false,
    properties: {
      id: digest,
      status: { type: 'string', enum: ['paying', 'paid', 'failed'] },
    },
    required: ['id', 'status'],
  },
  response: {
    200: {
      type: 'object',
      properties: {
        withdrawalId: digest,
        status: { type: 'string' },
        refundIndex: count,
      },
      required: ['withdrawalId', 'status'],
    },
    '4xx': {
      type: 'object',
      properties: {
        error: { type: 'string' },
        message: { type: 'string' },
        status: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['error', 'message'],
    },
    503: { ...errorBody, description: 'pool_unavailable' },
  },
} as const;
