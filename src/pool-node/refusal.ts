/**
 * @module How the wallets' write routes (`POST /proofs`, `POST /transfers`) refuse: the registry's
 * status and generic message for a stable reason, `Retry-After` when the proof store is full, and
 * for `duplicate_settlement` the transaction that spent the note — and what a proof's public
 * inputs are, read from either route's body.
 */

import type { FastifyReply } from 'fastify';

import {
  type ClaimedInputs,
  messageOf,
  type PoolNodeReason,
  type Reason,
  statusOf,
} from '../scheme/index.js';

/** How long a client should wait when the proof store is full, seconds. */
export const FULL_RETRY_AFTER_SECONDS = 30;

/** Sends the refusal of `reason` (with the spending `transaction` of a duplicate settlement). */
export function refuse(
  reply: FastifyReply,
  reason: Reason | PoolNodeReason,
  transaction?: string,
): FastifyReply {
  if (reason === 'proof_store_full') reply.header('retry-after', String(FULL_RETRY_AFTER_SECONDS));
  return reply
    .code(statusOf(reason))
    .send({ error: reason, message: messageOf(reason), ...(transaction ? { transaction } : {}) });
}

/** A frame the decoder refused, answered with its reason by the node's error handler (`error-replies.ts`). */
export class HandOverFrameRefusal extends Error {
  readonly statusCode: number;
  constructor(readonly reason: 'payload_too_large' | 'invalid_payload') {
    super(messageOf(reason));
    this.name = 'HandOverFrameRefusal';
    this.statusCode = statusOf(reason);
  }
}

/** The public inputs a route's body claims (the change note travels as `commitment`). */
export function claimedInputs(body: {
  readonly root: string;
  readonly nullifier: string;
  readonly commitment: string;
  readonly amount: string;
}): ClaimedInputs {
  return {
    root: body.root,
    nullifier: body.nullifier,
    change: body.commitment,
    amount: body.amount,
  };
}
