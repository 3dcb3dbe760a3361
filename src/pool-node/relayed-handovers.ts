/**
 * @module Hand-overs relayed by a merchant (`priv-stark/server`'s relay, docs/privacy.md,
 * "Transports"): they come from the merchant's server with its API key, so every payer of that
 * merchant shares one address. `POST /proofs` therefore limits a request with a known API key per
 * key — the facilitator's per-key limit (its policy's rate limit; none when it has none) — and one
 * without a key per address as before. An `Authorization` header with an unknown key is refused
 * (401 `unauthorized`) rather than counted as anonymous. Keys are the facilitator's, looked up by
 * its constant-time comparison; the key itself is never kept, logged or put in a counter's name
 * (the key's label is).
 */

import type { FastifyReply, FastifyRequest } from 'fastify';

import { messageOf } from '../scheme/index.js';

/** The facilitator's API keys as the pool node needs them (the service passes its `ApiKeys`). */
export interface RelayKeys {
  /** The caller presenting `key` (its label and policy), or `null`. */
  find(key: string): {
    readonly id: string;
    readonly policy: {
      readonly rateLimit?: { readonly max: number; readonly timeWindowMs: number } | undefined;
    };
  } | null;
}

/** A relaying merchant, as the hand-over route's limit sees it. */
interface Relayer {
  readonly id: string;
  readonly rateLimit: { readonly max: number; readonly timeWindowMs: number } | undefined;
}

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

/** The per-request answer of {@link relayerOf}, found once per request. */
const found = new WeakMap<FastifyRequest, Relayer | null | 'unknown'>();

/**
 * The merchant relaying `request` (`null`: no key, a payer's own hand-over; `'unknown'`: a key
 * that is not one of `keys`, or keys not configured).
 */
export function relayerOf(
  request: FastifyRequest,
  keys: RelayKeys | undefined,
): Relayer | null | 'unknown' {
  const known = found.get(request);
  if (known !== undefined) return known;
  const header = request.headers.authorization;
  let answer: Relayer | null | 'unknown' = null;
  if (header !== undefined) {
    const token = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    const caller = token !== undefined && keys ? keys.find(token) : null;
    answer = caller ? { id: caller.id, rateLimit: caller.policy.rateLimit } : 'unknown';
  }
  found.set(request, answer);
  return answer;
}

/**
 * The hand-over route's rate limit: per API key for a relaying merchant (the key's own limit, or
 * none), per client address otherwise (`perClient`, keyed by `clientKey`).
 */
export function handOverRateLimit(
  keys: RelayKeys | undefined,
  perClient: { readonly max: number; readonly timeWindowMs: number },
  clientKey: (request: FastifyRequest) => string,
) {
  const relayed = (request: FastifyRequest) => {
    const relayer = relayerOf(request, keys);
    return relayer === null || relayer === 'unknown' ? null : relayer;
  };
  return {
    keyGenerator: (request: FastifyRequest) => {
      const relayer = relayed(request);
      return relayer ? `relay:${relayer.id}` : clientKey(request);
    },
    max: async (request: FastifyRequest) => {
      const relayer = relayed(request);
      if (!relayer) return perClient.max;
      return relayer.rateLimit?.max ?? Number.MAX_SAFE_INTEGER;
    },
    timeWindow: async (request: FastifyRequest) =>
      relayed(request)?.rateLimit?.timeWindowMs ?? perClient.timeWindowMs,
  };
}

/** An `onRequest` guard: 401 `unauthorized` for an `Authorization` header with an unknown key. */
export function refuseUnknownRelayer(keys: RelayKeys | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    if (relayerOf(request, keys) !== 'unknown') return undefined;
    return reply.code(401).send({ error: 'unauthorized', message: messageOf('unauthorized') });
  };
}
