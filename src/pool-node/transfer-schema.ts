/**
 * @module The wire of `POST /transfers` (TypeBox), declared once: a `priv-stark/v1` payload's
 * fields with the proof inline, paying a shielded address in the pool's transfer context
 * (docs/pool.md), and the receipt the node answers. The route checks the body against the schema;
 * the wallet's client, the tests and the benches take its static type.
 */

import { type Static, Type } from 'typebox';

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

/** The body of `POST /transfers`. */
export const TransferBodySchema = Type.Object(
  {
    scheme: Type.String({ minLength: 1, maxLength: 64 }),
    network: Type.String({ minLength: 1, maxLength: 128 }),
    root: digestText(),
    nullifier: digestText(),
    commitment: digestText('the change note'),
    proof: proofText(),
    amount: amount({ pattern: SENT_AMOUNT }),
    recipient: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'the recipient (pstark1…)',
    }),
    expiry: expiry(),
  },
  { additionalProperties: false },
);
/**
 * What `POST /transfers` takes: a `priv-stark/v1` payload's fields with the proof inline
 * (`commitment` is the change note, `recipient` the recipient's shielded address).
 */
export type TransferRequest = Static<typeof TransferBodySchema>;

/** What `POST /transfers` answers. */
export const TransferReceiptSchema = Type.Object(
  { transaction: Type.String(), changeIndex: count(), recipientIndex: count() },
  { description: 'settled: the settlement id and the leaves of the change and recipient notes' },
);
/** What `POST /transfers` answers: the settlement id and the leaves of its two notes. */
export type TransferReceipt = Static<typeof TransferReceiptSchema>;

/** `POST /transfers`: a payment statement to a shielded address, settled by the pool (docs/pool.md). */
export const transferSchema = {
  description:
    'settles a payment statement bound to the pool transfer context (resourceId priv-stark:pool-transfer): the fields of a priv-stark/v1 payload with its proof inline',
  body: TransferBodySchema,
  response: {
    200: TransferReceiptSchema,
    '4xx': writeRefusal(
      'a stable reason of the registry; duplicate_settlement carries the transaction that spent the note',
    ),
    503: errorBody('pool_unavailable'),
  },
};
