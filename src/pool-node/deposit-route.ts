/**
 * @module `POST /deposit`: the operator shields funds to a wallet's precommitment (a deposit
 * ticket's `pre`); the ledger computes the note's commitment `H_NOTE(amount, pre)` and appends it.
 * Operator token required, checked before the body is parsed. The devnet's route only: a pool backed
 * by a chain takes deposits through its escrow (`deposit-source.ts`), and the route answers 409
 * `chain_deposits_only` to an authorised caller before the body is read.
 */

import type { FastifyInstance } from 'fastify';

import type { Ledger } from '../ledger/ledger.js';
import { messageOf, statusOf } from '../scheme/reasons.js';
import type { OperatorGuard } from './operator-auth.js';
import { type DepositRequest, depositSchema } from './operator-schemas.js';

/** Registers `POST /deposit` behind `authorize`. */
export function registerDeposit(
  app: FastifyInstance,
  options: { ledger: Ledger; authorize: OperatorGuard; chainBacked?: boolean },
): void {
  const { ledger } = options;
  const refused = {
    error: 'chain_deposits_only',
    message: messageOf('chain_deposits_only'),
  } as const;
  app.post<{ Body: DepositRequest }>(
    '/deposit',
    {
      schema: depositSchema,
      // Before any parsing: anonymous requests cost nothing.
      onRequest: options.authorize,
      ...(options.chainBacked
        ? {
            preValidation: async (_request, reply) =>
              reply.code(statusOf('chain_deposits_only')).send(refused),
          }
        : {}),
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
