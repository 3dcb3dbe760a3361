/**
 * @module The guard of the operator's routes (deposits, withdrawals, payout steps): 401
 * `unauthorized` unless the bearer token is the operator's. Tokens are compared as SHA-256 digests
 * in constant time, and the guard runs on `onRequest`, before any parsing, so anonymous requests
 * cost nothing.
 */

import { createHash, timingSafeEqual } from 'node:crypto';

import type { FastifyReply, FastifyRequest } from 'fastify';

import { MIN_TOKEN_LENGTH } from './operator-token.js';

/** An `onRequest` hook that answers 401 unless the operator's token is sent. */
export type OperatorGuard = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * The guard of `operatorToken`.
 * @throws RangeError when the token is shorter than {@link MIN_TOKEN_LENGTH}
 */
export function operatorGuard(operatorToken: string): OperatorGuard {
  if (typeof operatorToken !== 'string' || operatorToken.length < MIN_TOKEN_LENGTH) {
    throw new RangeError(
      `"operatorToken" expected a string of at least ${MIN_TOKEN_LENGTH} characters`,
    );
  }
  const tokenHash = sha256(operatorToken);
  return async (request, reply) => {
    const header = request.headers.authorization;
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!token || !timingSafeEqual(sha256(token), tokenHash))
      return reply
        .code(401)
        .send({ error: 'unauthorized', message: 'the operator token is required' });
    return undefined;
  };
}
