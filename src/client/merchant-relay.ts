/**
 * @module The merchant's relay as the wallet sees it: the path a merchant advertises in its
 * requirements (`extra.handOverRelay`, written by `PrivStarkSchemeServer`), taken only as a path on
 * the origin being paid — a relay elsewhere is never used — and one hand-over sent to it. The relay
 * forwards the body unchanged to the pool node under the merchant's API key, so the operator sees
 * the merchant's address, not the payer's. A relay that is not there (404, 405), refuses the
 * payment as not its merchant's, or gives no clear answer makes the wallet go on to the next
 * transport; the pool node's own refusal, forwarded, is final.
 */

import {
  type HandOverBody,
  type HandOverFrameRequest,
  type HandOverReply,
  type HandOverRequest,
  handOverBodies,
  PoolNodeError,
} from '../pool-node/client.js';
import type { PaymentRequirements } from '../scheme/index.js';

/** The merchant a payment goes to, as far as its transport cares. */
export interface Merchant {
  /** The origin being paid (`https://shop.example`). */
  readonly origin: string;
  /** The relay on that origin, when the merchant advertises one. */
  readonly relay: URL | null;
}

/** The longest relay path taken. */
const RELAY_PATH_MAX = 256;

/**
 * The merchant of a payment for `resourceUrl` (the URL being paid) under `requirements`, or `null`
 * without a URL. The relay is a path (`/…`, not `//…`) on that very origin, or none.
 */
export function merchantOf(
  resourceUrl: string | undefined,
  requirements: PaymentRequirements,
): Merchant | null {
  if (resourceUrl === undefined) return null;
  let origin: string;
  try {
    origin = new URL(resourceUrl).origin;
  } catch {
    return null;
  }
  if (origin === 'null') return null;
  const path = (requirements.extra as { handOverRelay?: unknown } | undefined)?.handOverRelay;
  if (
    typeof path !== 'string' ||
    path.length > RELAY_PATH_MAX ||
    !/^\/(?![/\\])[\x21-\x7e]*$/.test(path) ||
    path.includes('\\')
  )
    return { origin, relay: null };
  const relay = new URL(path, origin);
  return { origin, relay: relay.origin === origin ? relay : null };
}

/** The reasons of the relay itself: another transport may still take the hand-over. */
const RELAY_OWN_REASONS = new Set([
  'merchant_relay_foreign',
  'merchant_relay_handovers_only',
  'payload_too_large',
  'rate_limited',
]);

/**
 * What a relay made of a hand-over when it gave no reference: `absent` — none there (404, 405) or
 * its own refusal, so the pool node has nothing; `unclear` — no clear answer, so the node may hold
 * the proof. Either way the wallet goes on to the next transport (the node answers the same proof
 * handed over again with the same reference).
 */
export type RelayMiss = 'absent' | 'unclear';

/**
 * Sends one hand-over to the merchant's relay: the node's answer, or why the wallet goes on. A
 * proof given as bytes goes as a frame (`scheme/handover-frame.ts`); a relay that takes no frames
 * (415, or its own `invalid_payload` from a relay that reads JSON only) gets the JSON body once
 * (`pool-node/handover-request.ts`).
 * @throws PoolNodeError with the pool node's refusal, forwarded by the relay (a 4xx of its own)
 */
export async function relayHandOver(
  relay: URL,
  body: HandOverRequest | HandOverFrameRequest,
  doFetch: typeof fetch = globalThis.fetch,
): Promise<HandOverReply | RelayMiss> {
  const { frame, json } = handOverBodies(body);
  if (frame !== null) {
    const framed = await relayOnce(relay, frame, doFetch).catch((error: unknown) => {
      if (error instanceof PoolNodeError && error.code === 'invalid_payload')
        return 'unsupported' as const;
      throw error;
    });
    if (framed !== 'unsupported') return framed;
  }
  const answer = await relayOnce(relay, json(), doFetch);
  // A relay that takes no JSON either is no relay for this wallet.
  return answer === 'unsupported' ? 'absent' : answer;
}

/** One hand-over sent to the relay as `request` says; `unsupported` when it takes no such body. */
async function relayOnce(
  relay: URL,
  request: HandOverBody,
  doFetch: typeof fetch,
): Promise<HandOverReply | RelayMiss | 'unsupported'> {
  let response: Response;
  try {
    response = await doFetch(relay, {
      method: 'POST',
      ...request,
      redirect: 'error',
      credentials: 'omit',
    });
  } catch {
    return 'unclear';
  }
  const answer = (await response.json().catch(() => null)) as {
    reference?: unknown;
    expires?: unknown;
    error?: unknown;
    message?: unknown;
  } | null;
  if (response.ok) {
    if (typeof answer?.reference !== 'string' || typeof answer.expires !== 'number')
      return 'unclear';
    return { reference: answer.reference as HandOverReply['reference'], expires: answer.expires };
  }
  if (response.status === 415) return 'unsupported';
  // Final only when it is a stable reason the relay forwarded from the pool node.
  const code =
    typeof answer?.error === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(answer.error)
      ? answer.error
      : null;
  if (response.status === 404 || response.status === 405) return 'absent';
  if (response.status < 400 || response.status >= 500 || code === null) return 'unclear';
  if (RELAY_OWN_REASONS.has(code)) return 'absent';
  throw new PoolNodeError(
    code,
    response.status,
    typeof answer?.message === 'string' ? answer.message.slice(0, 200) : code,
  );
}
