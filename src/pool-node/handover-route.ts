/**
 * @module `POST /proofs`: a wallet hands its spend proof to the pool operator's node before a
 * compact payment, and pays with the reference it gets back (docs/compact-payments.md). The ledger
 * refuses before storing anything (`Ledger.handOver`: shapes, this pool, ctx recomputed from the
 * payment sent with the proof, expiry, anchor, nullifier, then the proof itself), with a stable
 * reason of the registry and its status; hostile input is always a 4xx.
 *
 * Abuse bounds: a body limit of one proof; the wallets' writes' rate limit per client
 * (`wallet-writes.ts`), or per API key for a hand-over a merchant relays
 * (`relayed-handovers.ts`); the ledger's per-nullifier and total limits, with `Retry-After` when the
 * store is full. Browser wallets on the node's CORS origins may call it, with a preflight.
 */

import type { FastifyInstance } from 'fastify';

import type { HandOverInput } from '../ledger/index.js';
import type { Ledger } from '../ledger/ledger.js';
import { decodeProof, HANDOVER_BODY_LIMIT_BYTES } from '../scheme/index.js';
import type { WriteCors } from './cors.js';
import { type HandOverRequest, handOverSchema } from './handover-schema.js';
import { claimedInputs, refuse } from './refusal.js';
import { type RelayKeys, refuseUnknownRelayer } from './relayed-handovers.js';

/** What the ledger takes of a hand-over: the proof's bytes, its public inputs, its payment. */
function handOverInput(body: HandOverRequest, proof: Uint8Array): HandOverInput {
  return {
    proof,
    publicInputs: claimedInputs(body),
    payment: {
      scheme: body.scheme,
      network: body.network,
      asset: body.asset,
      payTo: body.payTo,
      amount: body.amount,
      resourceId: body.resourceId,
      expiry: body.expiry,
    },
  };
}

/** Registers `POST /proofs` in the wallets' writes' scope (rate limit and CORS already there). */
export function registerHandOver(
  scope: FastifyInstance,
  options: {
    ledger: Ledger;
    rateLimit: object;
    cors: WriteCors;
    relayKeys?: RelayKeys | undefined;
  },
): void {
  const { ledger } = options;
  scope.post<{ Body: HandOverRequest }>(
    '/proofs',
    {
      schema: handOverSchema,
      bodyLimit: HANDOVER_BODY_LIMIT_BYTES,
      config: { rateLimit: options.rateLimit },
      onRequest: [
        async (request, reply) => options.cors(request, reply),
        refuseUnknownRelayer(options.relayKeys),
      ],
    },
    async (request, reply) => {
      const proof = decodeProof(request.body.proof);
      if (!proof.ok) return refuse(reply, proof.reason);
      const result = await ledger.handOver(handOverInput(request.body, proof.bytes));
      if (!result.ok) return refuse(reply, result.reason);
      return reply
        .code(result.stored ? 201 : 200)
        .send({ reference: result.reference, expires: Math.floor(result.expiresAt / 1000) });
    },
  );
}
