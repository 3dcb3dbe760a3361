/**
 * @module The payout contract between the pool and the operator's payout process, for exits
 * (docs/pool.md, "Exits and payouts"). Operator token required on every route.
 *
 * - `GET /withdrawals?after=<event id>&limit=`: withdrawals oldest first, each with its payout
 *   status; `next` is the cursor to keep.
 * - `POST /withdrawals/<id>/paying`: written durably before the process pays; answered the same
 *   if repeated. The withdrawal id (derived from the exit's first nullifier) is the idempotency key
 *   to hand the payment rail, so a payment retried after a crash is made once.
 * - `POST /withdrawals/<id>/paid`: after the rail confirmed it; adds to the paid-out total.
 * - `POST /withdrawals/<id>/failed`: the rail refused it for good; the exit's proven refund note is
 *   appended for its owner (who finds it from the key), and the refunded total grows.
 *
 * A step out of order (paid before paying, paying after paid, …) is `payout_conflict` with the
 * recorded status; an unknown id `unknown_withdrawal`. Nothing is paid or refunded twice.
 *
 * In a pool backed by a chain the payout sender pays exits on chain and records each step itself
 * (through the ledger, never this route), so a step recorded by hand could contradict the chain —
 * `failed` (a refund note) for an exit the escrow paid would pay it twice. There the steps route
 * answers 409 `chain_payouts_only` to an authorised caller before the path is read; the list stays.
 */

import type { FastifyInstance } from 'fastify';

import type { Ledger } from '../ledger/ledger.js';
import { messageOf, statusOf } from '../scheme/index.js';
import type { OperatorGuard } from './operator-auth.js';
import { type PayoutParams, payoutSchema, withdrawalsSchema } from './operator-schemas.js';
import { type AfterPage, limitOf } from './schema-parts.js';

/** Registers the payout routes; `authorize` answers 401 unless the operator token is sent. */
export function registerPayouts(
  app: FastifyInstance,
  options: {
    ledger: Ledger;
    authorize: OperatorGuard;
    pageLimit: { default: number; max: number };
    /** A pool backed by a chain: its payout sender alone records payout steps. */
    chainBacked?: boolean;
  },
): void {
  const { ledger } = options;
  const refused = {
    error: 'chain_payouts_only',
    message: messageOf('chain_payouts_only'),
  } as const;
  app.get<{ Querystring: AfterPage }>(
    '/withdrawals',
    { schema: withdrawalsSchema, onRequest: options.authorize },
    async (request, reply) => {
      const after = Number(request.query.after ?? 0);
      const limit = limitOf(request.query.limit, options.pageLimit);
      if (typeof limit === 'string')
        return reply.code(400).send({ error: 'invalid_request', message: limit });
      const withdrawals = await ledger.withdrawals(after, limit);
      return { withdrawals, next: withdrawals.at(-1)?.eventId ?? after };
    },
  );
  app.post<{ Params: PayoutParams }>(
    '/withdrawals/:id/:status',
    {
      schema: payoutSchema,
      // Before any parsing: anonymous requests cost nothing.
      onRequest: options.authorize,
      ...(options.chainBacked
        ? {
            preValidation: async (_request, reply) =>
              reply.code(statusOf('chain_payouts_only')).send(refused),
          }
        : {}),
    },
    async (request, reply) => {
      const { id, status } = request.params;
      const result = await ledger.payout(id, status);
      if (result.ok) {
        request.log.info({ status }, 'payout step recorded');
        return {
          withdrawalId: id,
          status: result.status,
          ...(result.refundIndex !== undefined ? { refundIndex: result.refundIndex } : {}),
        };
      }
      return reply.code(statusOf(result.reason)).send({
        error: result.reason,
        message: result.message,
        ...('status' in result && result.status !== undefined ? { status: result.status } : {}),
      });
    },
  );
}
