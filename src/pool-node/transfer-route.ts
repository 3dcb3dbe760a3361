/**
 * @module `POST /transfers`: a payment statement settled by the pool node itself, with no merchant
 * and no facilitator — its context is the pool's transfer context (`TRANSFER_RESOURCE_ID`), so a
 * transfer proof pays nothing else and no merchant's proof is a transfer. Wallets use it to keep
 * ready notes (docs/client.md): a note split by a transfer to the wallet's own address leaves two
 * notes, each spendable once a checkpoint covers it, so one deposit pays several merchants at once.
 *
 * The ledger refuses before applying anything (`Ledger.transfer`: a settled nullifier first, then
 * shapes, the payment against the proof, expiry and its bound, the anchor, the proof); refusals are
 * stable reasons of the registry with their status, never a 5xx but `pool_unavailable`. The route
 * is one of the wallets' writes (`wallet-writes.ts`): their per-client rate limit, the body limit
 * of one proof and the node's CORS origins.
 */

import type { FastifyInstance } from 'fastify';

import type { Ledger } from '../ledger/ledger.js';
import { decodeProof, HANDOVER_BODY_LIMIT_BYTES } from '../scheme/index.js';
import type { WriteCors } from './cors.js';
import { claimedInputs, refuse } from './refusal.js';
import { type TransferRequest, transferSchema } from './transfer-schema.js';

/** Registers `POST /transfers` in the wallets' writes' scope (rate limit and CORS already there). */
export function registerTransfer(
  scope: FastifyInstance,
  options: {
    ledger: Ledger;
    rateLimit: { max: number; timeWindow: number };
    cors: WriteCors;
  },
): void {
  const { ledger } = options;
  scope.post<{ Body: TransferRequest }>(
    '/transfers',
    {
      schema: transferSchema,
      bodyLimit: HANDOVER_BODY_LIMIT_BYTES,
      config: { rateLimit: options.rateLimit },
      onRequest: async (request, reply) => options.cors(request, reply),
    },
    async (request, reply) => {
      const body = request.body;
      if (body.scheme !== ledger.scheme) return refuse(reply, 'unsupported_scheme');
      if (body.network !== ledger.network) return refuse(reply, 'unsupported_network');
      const proof = decodeProof(body.proof);
      if (!proof.ok) return refuse(reply, proof.reason);
      const result = await ledger.transfer({
        proof: proof.bytes,
        publicInputs: claimedInputs(body),
        recipient: body.recipient,
        expiry: body.expiry,
      });
      if (!result.ok) return refuse(reply, result.reason, result.settlementId);
      return reply.code(200).send({
        transaction: result.settlementId,
        changeIndex: result.changeIndex,
        recipientIndex: result.recipientIndex,
      });
    },
  );
}
