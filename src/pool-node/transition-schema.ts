/**
 * @module The wire of `POST /transitions` (TypeBox), declared once: a merge, split or exit's public
 * inputs (with `exit` and `destination` for an exit only), its expiry and the proof inline, and
 * the receipt the node answers. The route checks the body against the schema; the wallet's client
 * and the tests take its static type.
 */

import { type Static, type TSchema, Type } from 'typebox';

import {
  amount,
  count,
  digestText,
  errorBody,
  expiry,
  proofText,
  SENT_AMOUNT,
  writeRefusal,
} from './schema-parts.js';

/** Two of `item` (the transition statement has two inputs and two outputs, always). */
const pair = <T extends TSchema>(item: T) =>
  Type.Unsafe<readonly [Static<T>, Static<T>]>(Type.Array(item, { minItems: 2, maxItems: 2 }));

/** The body of `POST /transitions`. */
export const TransitionBodySchema = Type.Object(
  {
    scheme: Type.String({ minLength: 1, maxLength: 64 }),
    network: Type.String({ minLength: 1, maxLength: 128 }),
    root: digestText(),
    nullifiers: pair(digestText()),
    outputs: pair(digestText()),
    memo: pair(Type.String({ pattern: '^(0|[1-9][0-9]{0,19})$' })),
    refund: digestText('the proven refund note of an exit'),
    exit: Type.Optional(
      amount({ pattern: SENT_AMOUNT, description: 'the amount leaving the pool' }),
    ),
    destination: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'an exit destination: a CAIP-10 account id',
      }),
    ),
    expiry: expiry(),
    proof: proofText(),
  },
  { additionalProperties: false },
);
/**
 * What `POST /transitions` takes: a merge, split or exit's public inputs — `memo` the masked
 * output values (two field elements in decimal), `refund` the exit's refund note (a note of 0 for
 * a merge or split), `exit` the decimal amount leaving the pool (absent or `"0"` for a merge or
 * split) and `destination` its CAIP-10 account (an exit only) — its expiry and the proof in
 * canonical standard base64.
 */
export type TransitionRequest = Static<typeof TransitionBodySchema>;

/** What `POST /transitions` answers. */
export const TransitionReceiptSchema = Type.Object(
  { transaction: Type.String(), outputIndexes: pair(count()) },
  { description: 'applied: the transition id and the leaves of its two outputs' },
);
/** What `POST /transitions` answers: the transition id and the leaves of its two outputs. */
export type TransitionReceipt = Static<typeof TransitionReceiptSchema>;

/** `POST /transitions`: a merge, split or exit, its proof inline. */
export const transitionSchema = {
  description:
    'applies a merge, split or exit of notes proven with the transition statement: two nullifiers, two output commitments, the masked output values, the refund note and the expiry, an exit amount and its CAIP-10 destination for an exit, the proof inline',
  body: TransitionBodySchema,
  response: {
    200: TransitionReceiptSchema,
    '4xx': writeRefusal(
      'a stable reason of the registry; duplicate_settlement carries the transition already applied',
    ),
    503: errorBody('pool_unavailable'),
  },
};
