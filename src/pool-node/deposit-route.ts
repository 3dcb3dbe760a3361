/**
 * @module `POST /deposit`: the operator shields funds to a wallet's precommitment (a deposit
 * ticket's `pre`); the ledger computes the note's commitment `H_NOTE(amount, pre)` and appends it.
 * Operator token required, checked before the body is parsed.
 */

import type { FastifyInstance } from 'fastify';

import type { Ledger } from '../ledger/ledger.js';
import { statusOf } from '../scheme/reasons.js';
import type { OperatorGuard } from './operator-auth.js';
import { type DepositRequest, depositSchema } from './operator-schemas.js';

/** Registers `POST /deposit` behind `authorize`. */
export function registerDeposit(
  app: FastifyInstance,
  options: { ledger: Ledger; authorize: OperatorGuard },
): void {
  const { ledger } = options;
  app.post<{ Body: DepositRequest }>(
    '/deposit',
    {
      schema: depositSchema,
      // Before any parsing: anonymous requests cost nothing.
      onRequest: options.authorize,
    },
    async (request, reply) => {
      const result = await ledger.deposit(request.body);
      if (result.ok) {
        request.log.info({ index: result.index }, 'deposit appended');
        return { commitment: result.commitment, index: result.index, eventId: result.eventId };
      }
      switch (result.reason) {
        case 'amount_out_of_range':
        case 'duplicate_commitment':
        case 'tree_full':
          return reply
            .code(statusOf(result.reason))
            .send({ error: result.reason, message: result.message });
        default:
          return reply.code(400).send({ error: 'invalid_request', message: result.message });
      }
    },
  );
}
