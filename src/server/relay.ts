/**
 * @module The merchant's hand-over relay (docs/privacy.md, "Transports"): a wallet paying compactly
 * gives its proof to the merchant — the party it is already talking to — instead of to the pool
 * operator's node, and the relay forwards the body unchanged to the pool node (`POST /proofs`)
 * under the merchant's API key, so the operator sees the merchant's address, never the payer's.
 * The body is JSON or a hand-over frame (`scheme/handover-frame.ts`), forwarded as it came.
 * The pool node limits relayed hand-overs per API key (the facilitator's per-key limits), not per
 * address.
 *
 * Not an open relay: it takes only hand-overs whose payment names one of this merchant's own
 * routes with that route's `payTo` (`merchant_relay_foreign` otherwise), never a transfer, a
 * transition or an exit (`merchant_relay_handovers_only`), reads its own body with its own limit
 * (`payload_too_large`) and forwards nothing of the payer's request but the body. The scheme server
 * advertises it (`extra.handOverRelay`, {@link PRIV_STARK_RELAY_PATH}); wallets use it only on the
 * origin they are paying.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RoutesConfig } from '@x402/core/server';

import {
  decodeHandOverFrame,
  EXIT_RESOURCE_ID,
  HANDOVER_BODY_LIMIT_BYTES,
  HANDOVER_FRAME_MEDIA_TYPE,
  isHandOverFrame,
  messageOf,
  type PoolNodeReason,
  type Reason,
  SCHEME,
  statusOf,
  TRANSFER_RESOURCE_ID,
  TRANSITION_RESOURCE_ID,
} from '../scheme/index.js';

/** Where the relay is mounted and advertised by default. */
export const PRIV_STARK_RELAY_PATH = '/priv-stark/proofs';

/** Options of {@link privStarkRelay}. */
export interface PrivStarkRelayOptions {
  /** The merchant's paid routes (`privStarkRoutes(…)`): the payTo and resource ids it relays for. */
  readonly routes: RoutesConfig;
  /** The pool node's base URL, e.g. `http://127.0.0.1:4021`. */
  readonly poolNode: string;
  /** The merchant's API key (the facilitator's): the pool node limits relayed hand-overs by it. */
  readonly apiKey: string;
  /** Largest body read, bytes (default one proof's hand-over, `HANDOVER_BODY_LIMIT_BYTES`). */
  readonly bodyLimit?: number | undefined;
  /** Per forwarded request, ms (default 30000). */
  readonly timeoutMs?: number | undefined;
  /** The fetch that reaches the pool node (default `globalThis.fetch`). */
  readonly fetch?: typeof fetch | undefined;
}

/** One answer of the relay: the pool node's, or its own refusal. */
export interface RelayReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The relay, for any framework. */
export interface PrivStarkRelay {
  readonly path: string;
  /** A Fetch API handler (Hono, Next.js route handlers, workers). */
  fetch(request: Request): Promise<Response>;
  /** A Node handler (`express`, `node:http`): mount it before any JSON body parser. */
  node(request: IncomingMessage, response: ServerResponse): void;
  /** The relay of a body already read (at most `bodyLimit` bytes; `null` when it was longer). */
  relay(body: Uint8Array | null): Promise<RelayReply>;
}

/** The fields only a transfer or a transition (an exit) carries: never relayed. */
const NOT_HANDOVER_FIELDS = ['recipient', 'nullifiers', 'outputs', 'exit', 'destination', 'refund'];
/** The resource ids of the pool's own contexts: never a merchant's route. */
const POOL_CONTEXTS = new Set([TRANSFER_RESOURCE_ID, TRANSITION_RESOURCE_ID, EXIT_RESOURCE_ID]);

/** The `payTo` and resource id pairs of this merchant's `priv-stark/v1` routes. */
function merchantPayments(routes: RoutesConfig): Set<string> {
  const pairs = new Set<string>();
  const configs =
    'accepts' in routes ? [routes] : Object.values(routes as Record<string, { accepts: unknown }>);
  for (const config of configs) {
    const accepts = (config as { accepts: unknown }).accepts;
    for (const option of Array.isArray(accepts) ? accepts : [accepts]) {
      const { scheme, payTo, extra } = option as {
        scheme?: unknown;
        payTo?: unknown;
        extra?: { resourceId?: unknown };
      };
      if (scheme !== SCHEME || typeof payTo !== 'string') continue;
      const id = typeof extra?.resourceId === 'string' ? extra.resourceId : '';
      pairs.add(JSON.stringify([payTo, id]));
    }
  }
  return pairs;
}

/** Why the relay refuses `body`, or `null` when it forwards it. */
function refusalOf(body: unknown, payments: Set<string>): Reason | PoolNodeReason | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'invalid_payload';
  const fields = body as Record<string, unknown>;
  if (
    NOT_HANDOVER_FIELDS.some((name) => Object.hasOwn(fields, name)) ||
    POOL_CONTEXTS.has(fields.resourceId as string)
  )
    return 'merchant_relay_handovers_only';
  if (typeof fields.payTo !== 'string' || typeof fields.resourceId !== 'string')
    return 'merchant_relay_foreign';
  return payments.has(JSON.stringify([fields.payTo, fields.resourceId]))
    ? null
    : 'merchant_relay_foreign';
}

/**
 * The fields of a body — a hand-over frame (told by its first bytes, `scheme/handover-frame.ts`)
 * or JSON — and the media type it is forwarded as.
 */
function fieldsOf(
  body: Uint8Array,
):
  | { ok: true; fields: unknown; mediaType: string }
  | { ok: false; reason: 'invalid_payload' | 'payload_too_large' } {
  if (isHandOverFrame(body)) {
    const frame = decodeHandOverFrame(body);
    return frame.ok
      ? { ok: true, fields: frame.fields, mediaType: HANDOVER_FRAME_MEDIA_TYPE }
      : frame;
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    return { ok: true, fields: JSON.parse(text), mediaType: 'application/json' };
  } catch {
    return { ok: false, reason: 'invalid_payload' };
  }
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

function refusal(reason: Reason | PoolNodeReason): RelayReply {
  return {
    status: statusOf(reason),
    headers: JSON_HEADERS,
    body: JSON.stringify({ error: reason, message: messageOf(reason) }),
  };
}

/**
 * The relay over `options`.
 * @throws RangeError for a pool node URL that is not http(s) or an empty API key
 * @example
 * const relay = privStarkRelay({ routes, poolNode: 'http://127.0.0.1:4021', apiKey });
 * app.post(relay.path, relay.node); // express; Hono: app.post(relay.path, (c) => relay.fetch(c.req.raw))
 */
export function privStarkRelay(options: PrivStarkRelayOptions): PrivStarkRelay {
  const pool = new URL(options.poolNode);
  if (pool.protocol !== 'http:' && pool.protocol !== 'https:')
    throw new RangeError('"poolNode" expected an http(s) URL');
  if (options.apiKey.length === 0) throw new RangeError('"apiKey" expected a key');
  const target = new URL('proofs', pool.href.endsWith('/') ? pool.href : `${pool.href}/`);
  const limit = options.bodyLimit ?? HANDOVER_BODY_LIMIT_BYTES;
  const payments = merchantPayments(options.routes);
  const doFetch = options.fetch ?? globalThis.fetch;

  const relay = async (body: Uint8Array | null): Promise<RelayReply> => {
    if (body === null) return refusal('payload_too_large');
    const read = fieldsOf(body);
    if (!read.ok) return refusal(read.reason);
    const refused = refusalOf(read.fields, payments);
    if (refused !== null) return refusal(refused);
    let answer: Response;
    try {
      answer = await doFetch(target, {
        method: 'POST',
        headers: { 'content-type': read.mediaType, authorization: `Bearer ${options.apiKey}` },
        body: body as Uint8Array<ArrayBuffer>,
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch {
      return refusal('pool_unavailable');
    }
    const retryAfter = answer.headers.get('retry-after');
    return {
      status: answer.status,
      headers: { ...JSON_HEADERS, ...(retryAfter ? { 'retry-after': retryAfter } : {}) },
      body: await answer.text(),
    };
  };

  return {
    path: PRIV_STARK_RELAY_PATH,
    relay,
    fetch: async (request) => {
      const reply = await relay(await readLimited(request.body, limit));
      return new Response(reply.body, { status: reply.status, headers: reply.headers });
    },
    node: (request, response) => {
      readNode(request, limit)
        .then(relay)
        .then(
          (reply) => response.writeHead(reply.status, reply.headers).end(reply.body),
          () => response.writeHead(400, JSON_HEADERS).end(refusal('invalid_payload').body),
        );
    },
  };
}

/** A Fetch API body, or `null` once it is longer than `limit` (reading stops there). */
async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | null> {
  if (body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return concat(chunks, length);
}

/** A Node request's body, or `null` once it is longer than `limit` (reading stops there). */
function readNode(request: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let length = 0;
    request.on('data', (chunk: Uint8Array) => {
      length += chunk.length;
      if (length > limit) {
        request.removeAllListeners('data');
        request.resume();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(concat(chunks, length)));
    request.on('error', reject);
  });
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
