/**
 * @module The wire of `POST /proofs` (TypeBox), declared once: the body a wallet hands a proof over
 * with before a compact payment (docs/compact-payments.md) — the payment fields the proof is bound
 * to, its public inputs, the proof — and the reference the node answers. The route checks the
 * body against the schema; the wallet's client, the tests and the benches take its static type.
 */

import { type Static, Type } from 'typebox';

import type { ProofReference } from '../core/facade.js';
import { HANDOVER_FRAME_MEDIA_TYPE } from '../scheme/index.js';
import {
  amount,
  count,
  digest,
  digestText,
  errorBody,
  expiry,
  proofText,
  SENT_AMOUNT,
} from './schema-parts.js';

/** The body of `POST /proofs`. */
export const HandOverBodySchema = Type.Object(
  {
    scheme: Type.String({ minLength: 1, maxLength: 64 }),
    network: Type.String({ minLength: 1, maxLength: 128 }),
    asset: Type.String({ minLength: 1, maxLength: 128 }),
    payTo: Type.String({ minLength: 1, maxLength: 256, description: 'the recipient (pstark1…)' }),
    amount: amount({ pattern: SENT_AMOUNT }),
    resourceId: Type.String({ maxLength: 256, description: '"" when the route has none' }),
    expiry: expiry(),
    root: digestText(),
    nullifier: digestText(),
    commitment: digestText('the change note'),
    proof: proofText(),
  },
  { additionalProperties: false },
);
/**
 * What `POST /proofs` takes: the payment fields the proof is bound to (`resourceId` is `""` when
 * the route has none), its inputs (`commitment` is the change note) and the proof in canonical
 * standard base64 — or, as a frame, its bytes ({@link HandOverFrameRequest}).
 */
export type HandOverRequest = Static<typeof HandOverBodySchema>;

/**
 * The fields of a hand-over sent as a frame (`application/octet-stream`, `scheme/handover-frame.ts`):
 * the JSON body's, checked by the same rules, with the proof as the frame's bytes (its length is
 * bounded by the frame's decoder before this schema runs).
 */
export const HandOverFrameBodySchema = Type.Object(
  {
    ...HandOverBodySchema.properties,
    proof: Type.Unsafe<Uint8Array>({ description: "the proof's bytes, the frame's tail" }),
  },
  { additionalProperties: false },
);
/** A hand-over as its frame decodes: the JSON body's fields, the proof as bytes. */
export type HandOverFrameRequest = Static<typeof HandOverFrameBodySchema>;

const reference = () => Type.Unsafe<ProofReference>(digest());
const expires = () => count('unix seconds when the node drops it');

/** What `POST /proofs` answers. */
export const HandOverReplySchema = Type.Object({ reference: reference(), expires: expires() });
/** What `POST /proofs` answers: the proof's reference and when the node drops it (unix seconds). */
export type HandOverReply = Static<typeof HandOverReplySchema>;

/** `POST /proofs`: a proof handed over before a compact payment (docs/compact-payments.md). */
export const handOverSchema = {
  description:
    'keeps a verified spend proof for a compact payment and answers its reference; the payment fields are only those the proof is bound to',
  // Per media type: Fastify validates a body that is not JSON only against a schema named for it.
  body: {
    content: {
      'application/json': { schema: HandOverBodySchema },
      [HANDOVER_FRAME_MEDIA_TYPE]: { schema: HandOverFrameBodySchema },
    },
  },
  response: {
    200: Type.Object(
      { reference: reference(), expires: expires() },
      { description: 'kept (201), or kept before (200): the same reference' },
    ),
    201: HandOverReplySchema,
    '4xx': errorBody('a stable reason of the registry (docs/compact-payments.md)'),
    503: errorBody('proof_store_full (with Retry-After) or pool_unavailable'),
  },
};
