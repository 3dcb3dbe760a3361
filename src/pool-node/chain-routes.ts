/**
 * @module A chain-backed pool node's routes for wallets (docs/chain.md, "Using it"):
 *
 * - `GET /chain`: the pool's chain facts — chain, escrow, token and its EIP-712 domain, decimals,
 *   the pool's network id and asset, minimum deposit, reclaim delay, and the relayer's address and
 *   fee. A wallet checks them against its own RPC before it signs anything.
 * - `POST /relay/deposit`: a wallet's signed EIP-3009 `ReceiveWithAuthorization`, sent by the
 *   pool's relayer key through the escrow's `depositWithAuthorization`; the relayer is paid
 *   `value − amount`, at least its advertised fee.
 * - `POST /relay/reclaim`: a depositor's signed `Reclaim(index, deadline)`, sent through the escrow's
 *   `reclaimWithSignature` (the funds go to the depositor).
 *
 * The relay routes answer once the transaction is mined (200 with its hash and, for a deposit, the
 * escrow's index), or with its hash alone (202, `mined: false`) when it is not mined within the
 * relayer's wait; a refusal is a stable reason of the registry with its 4xx, nothing sent — a
 * request the chain would refuse is simulated first — and `relay_unavailable` (503) when the
 * relayer cannot send now. They are rate-limited per client like the wallets' other writes; no
 * client address is logged. The relayer sees the depositor's network address beside its EVM
 * address, unless the wallet sends through a proxy.
 */

import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply } from 'fastify';

import { messageOf, statusOf } from '../scheme/index.js';
import {
  chainFactsSchema,
  type RelayDepositRequest,
  type RelayReclaimRequest,
  relayDepositSchema,
  relayReclaimSchema,
} from './chain-schemas.js';
import type { DepositRelay, RelayResult } from './deposit-relay.js';
import { type HandOverLimits, rateLimitOptions } from './wallet-writes.js';

/** The relay routes' body limit: a signature of at most 2 KiB and its fields. */
const RELAY_BODY_LIMIT_BYTES = 8192;

/** Sends what relaying came to: 200 mined, 202 sent, or the reason's status and message. */
function answer(reply: FastifyReply, result: RelayResult): FastifyReply {
  if (result.ok)
    return reply.code(result.mined ? 200 : 202).send({
      transaction: result.transaction,
      mined: result.mined,
      ...(result.depositIndex === undefined ? {} : { depositIndex: result.depositIndex }),
    });
  const message = messageOf(result.reason);
  return reply.code(statusOf(result.reason)).send({
    error: result.reason,
    message: result.detail ? `${message} (${result.detail})` : message,
  });
}

/** Registers `GET /chain` and, when the pool runs a relayer, the relay routes under their rate limit. */
export async function registerChainRoutes(
  app: FastifyInstance,
  options: { relay: DepositRelay; limits?: HandOverLimits | undefined },
): Promise<void> {
  const { relay } = options;
  app.get('/chain', { schema: chainFactsSchema }, async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return relay.facts();
  });
  if (relay.facts().relayer === null) return;
  const limits = options.limits ?? { max: 120, timeWindowMs: 60_000 };
  await app.register(async (scope) => {
    await scope.register(rateLimit, rateLimitOptions(limits));
    const config = { rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } };
    scope.post<{ Body: RelayDepositRequest }>(
      '/relay/deposit',
      { schema: relayDepositSchema, bodyLimit: RELAY_BODY_LIMIT_BYTES, config },
      async (request, reply) => answer(reply, await relay.deposit(request.body)),
    );
    scope.post<{ Body: RelayReclaimRequest }>(
      '/relay/reclaim',
      { schema: relayReclaimSchema, bodyLimit: RELAY_BODY_LIMIT_BYTES, config },
      async (request, reply) => answer(reply, await relay.reclaim(request.body)),
    );
  });
}
