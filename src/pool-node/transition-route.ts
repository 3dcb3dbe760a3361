/**
 * @module `POST /transitions`: a merge, a split or an exit of notes, proven by their owner with the
 * transition statement (`crates/proof/src/transition/`) and applied by the pool node itself — not
 * the facilitator, whose surface stays the three payment endpoints. Two inputs and two outputs
 * always (dummies fill in), so the node learns two nullifiers and two commitments, as from a
 * payment, and not which kind of transition it was; an exit also shows its amount and its
 * destination (a CAIP-10 account id), and is recorded as a withdrawal for the operator's payout
 * process (`payout-routes.ts`).
 *
 * In a chain pool an exit to a destination its payout rail could never pay (another chain, another
 * namespace, the escrow or the token) is refused first, `unpayable_destination`: nothing is spent.
 * The ledger refuses before applying anything (`Ledger.noteTransition`: shapes, a spent nullifier,
 * expiry and its bound, the anchor, the proof); refusals are stable reasons of the registry with
 * their status, never a 5xx but `pool_unavailable`. The route is one of the wallets' writes
 * (`wallet-writes.ts`): their per-client rate limit, the body limit of one proof and the node's
 * CORS origins.
 */

import type { FastifyInstance } from 'fastify';

import type { DigestHex } from '../core/index.js';
import type { Ledger } from '../ledger/ledger.js';
import type { PayoutRail } from './payout-rail.js';
import { decodeProof, HANDOVER_BODY_LIMIT_BYTES } from '../scheme/index.js';
import type { WriteCors } from './cors.js';
import { refuse } from './refusal.js';
import { type TransitionRequest, transitionSchema } from './transition-schema.js';

/** Registers `POST /transitions` in the wallets' writes' scope (rate limit and CORS already there). */
export function registerTransition(
  scope: FastifyInstance,
  options: {
    ledger: Ledger;
    rateLimit: { max: number; timeWindow: number };
    cors: WriteCors;
    /** A chain pool's payout rail: an exit it could never pay is refused before anything else. */
    payoutRail?: Pick<PayoutRail, 'refusal'> | undefined;
  },
): void {
  const { ledger } = options;
  scope.post<{ Body: TransitionRequest }>(
    '/transitions',
    {
      schema: transitionSchema,
      bodyLimit: HANDOVER_BODY_LIMIT_BYTES,
      config: { rateLimit: options.rateLimit },
      onRequest: async (request, reply) => options.cors(request, reply),
    },
    async (request, reply) => {
      const body = request.body;
      if (body.scheme !== ledger.scheme) return refuse(reply, 'unsupported_scheme');
      if (body.network !== ledger.network) return refuse(reply, 'unsupported_network');
      if (body.destination !== undefined && options.payoutRail?.refusal(body.destination))
        return refuse(reply, 'unpayable_destination');
      const proof = decodeProof(body.proof);
      if (!proof.ok) return refuse(reply, proof.reason);
      const result = await ledger.noteTransition({
        proof: proof.bytes,
        publicInputs: {
          root: body.root as DigestHex,
          nullifiers: [body.nullifiers[0] as DigestHex, body.nullifiers[1] as DigestHex],
          outputs: [body.outputs[0] as DigestHex, body.outputs[1] as DigestHex],
          exit: body.exit ?? '0',
          memo: [body.memo[0], body.memo[1]],
          refund: body.refund as DigestHex,
        },
        expiry: body.expiry,
        ...(body.destination !== undefined ? { destination: body.destination } : {}),
      });
      if (!result.ok) return refuse(reply, result.reason, result.settlementId);
      return reply.code(200).send({
        transaction: result.transitionId,
        outputIndexes: result.outputIndexes,
      });
    },
  );
}
