/**
 * @module `POST /proofs`: a wallet hands its spend proof to the pool operator's node before a
 * compact payment, and pays with the reference it gets back (docs/compact-payments.md). The ledger
 * refuses before storing anything (`Ledger.handOver`: shapes, this pool, ctx recomputed from the
 * payment sent with the proof, expiry, anchor, nullifier, then the proof itself), with a stable
 * reason of the registry and its status; hostile input is always a 4xx.
 *
 * The body is JSON (the proof in base64) or a frame (`application/octet-stream`,
 * `scheme/handover-frame.ts`: the same fields, the proof as bytes, a quarter fewer bytes and no
 * base64 to decode); both are checked by the same schema.
 *
 * Abuse bounds: a body limit of one proof; the wallets' writes' rate limit per client
 * (`wallet-writes.ts`), or per API key for a hand-over a merchant relays
 * (`relayed-handovers.ts`); the ledger's per-nullifier and total limits, with `Retry-After` when the
 * store is full. Browser wallets on the node's CORS origins may call it, with a preflight.
 */

import type { FastifyInstance } from 'fastify';

import type { HandOverInput } from '../ledger/index.js';
import type { Ledger } from '../ledger/ledger.js';
import {
  decodeHandOverFrame,
  decodeProof,
  HANDOVER_BODY_LIMIT_BYTES,
  HANDOVER_FRAME_LIMIT_BYTES,
  HANDOVER_FRAME_MEDIA_TYPE,
  type ProofDecoding,
} from '../scheme/index.js';
import { registerJsonBodyParser } from '../listener/json-body.js';
import type { WriteCors } from './cors.js';
import {
  type HandOverFrameRequest,
  type HandOverRequest,
  handOverSchema,
} from './handover-schema.js';
import { jsonBodyRefusal } from './listener-setup.js';
import { claimedInputs, HandOverFrameRefusal, refuse } from './refusal.js';
import { type RelayKeys, refuseUnknownRelayer } from './relayed-handovers.js';

/** What the ledger takes of a hand-over: the proof's bytes, its public inputs, its payment. */
function handOverInput(
  body: HandOverRequest | HandOverFrameRequest,
  proof: Uint8Array,
): HandOverInput {
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

/**
 * Registers `POST /proofs` in a scope of its own inside the wallets' writes' scope (rate limit and
 * CORS already there). Each media type has its parser and its limit there — the JSON body one
 * proof in base64 and its fields, a frame one proof's bytes and its header — so a body is never
 * read past its own type's limit, and the frame parser reaches no other route.
 */
export async function registerHandOver(
  scope: FastifyInstance,
  options: {
    ledger: Ledger;
    rateLimit: object;
    cors: WriteCors;
    relayKeys?: RelayKeys | undefined;
  },
): Promise<void> {
  const { ledger } = options;
  await scope.register(async (proofs) => {
    registerJsonBodyParser(proofs, jsonBodyRefusal, HANDOVER_BODY_LIMIT_BYTES);
    proofs.addContentTypeParser(
      HANDOVER_FRAME_MEDIA_TYPE,
      { parseAs: 'buffer', bodyLimit: HANDOVER_FRAME_LIMIT_BYTES },
      (_request, body, done) => {
        const frame = decodeHandOverFrame(body as Buffer);
        // The proof copied out of the body: a view would carry the rest of its buffer (for a
        // small body, Node's shared pool) wherever the proof is sent.
        if (frame.ok) done(null, { ...frame.fields, proof: new Uint8Array(frame.proof) });
        else done(new HandOverFrameRefusal(frame.reason), undefined);
      },
    );
    proofs.post<{ Body: HandOverRequest | HandOverFrameRequest }>(
      '/proofs',
      {
        schema: handOverSchema,
        config: { rateLimit: options.rateLimit },
        onRequest: [
          async (request, reply) => options.cors(request, reply),
          refuseUnknownRelayer(options.relayKeys),
        ],
        // No body at all (no content type, nothing sent) reaches no parser and no schema.
        preValidation: async (request, reply) => {
          if (request.body === undefined || request.body === null)
            return reply
              .code(400)
              .send({ error: 'invalid_request', message: 'the request has no body' });
        },
      },
      async (request, reply) => {
        const { body } = request;
        const proof =
          typeof body.proof === 'string' ? decodeProof(body.proof) : bytesOf(body.proof);
        if (!proof.ok) return refuse(reply, proof.reason);
        const result = await ledger.handOver(handOverInput(body, proof.bytes));
        if (!result.ok) return refuse(reply, result.reason);
        return reply
          .code(result.stored ? 201 : 200)
          .send({ reference: result.reference, expires: Math.floor(result.expiresAt / 1000) });
      },
    );
  });
}

/** A frame's proof, already bounded by its decoder (a schema-checked body holds nothing else). */
function bytesOf(proof: unknown): ProofDecoding {
  return proof instanceof Uint8Array && proof.length > 0
    ? { ok: true, bytes: proof }
    : { ok: false, reason: 'invalid_payload' };
}
