/**
 * @module A Fastify plugin for merchants on Fastify: the same x402 HTTP resource server the stock
 * Express and Hono middleware use (`x402HTTPResourceServer` from `@x402/core/server`), wired into
 * Fastify's hooks. `onRequest` answers 402 (or settles first, in the `upfront` flow);
 * `onSend` settles after the handler in the `authorization` flow, replaces the reply with the 402
 * when that fails, and adds `PAYMENT-RESPONSE`. Given where to forward (`relay`), it mounts the
 * hand-over relay (`relay.ts`) that the scheme server advertises. Fastify's defaults take compact payments; a
 * merchant that opts into inline ones builds the instance with {@link FASTIFY_MERCHANT_OPTIONS}.
 */

import {
  type CompletedSettlement,
  FacilitatorResponseError,
  type HTTPAdapter,
  type HTTPRequestContext,
  type PaymentCancellationDispatcher,
  type PaywallConfig,
  type RoutesConfig,
  SETTLEMENT_OVERRIDES_HEADER,
  withPrivateCacheControl,
  x402HTTPResourceServer,
  type x402ResourceServer,
} from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import { HANDOVER_BODY_LIMIT_BYTES, messageOf, statusOf } from '../scheme/index.js';
import { type PrivStarkRelayOptions, privStarkRelay } from './relay.js';
import { MERCHANT_MAX_HEADER_BYTES } from './routes.js';

/**
 * Fastify options for a merchant that takes inline payments (`proofTransports` with `inline`):
 * request headers up to 256 KiB. Not needed for compact payments, the default.
 */
export const FASTIFY_MERCHANT_OPTIONS = {
  http: { maxHeaderSize: MERCHANT_MAX_HEADER_BYTES },
} as const;

/** Options of {@link privStarkFastify}. */
export interface PrivStarkFastifyOptions {
  /** Paid routes (see `privStarkRoutes`), keyed `"METHOD /path"`. */
  readonly routes: RoutesConfig;
  /** The resource server with the `priv-stark/v1` scheme server and a facilitator client registered. */
  readonly server: x402ResourceServer;
  readonly paywallConfig?: PaywallConfig;
  /**
   * Where the hand-over relay forwards (the pool node and the merchant's API key): the plugin
   * mounts it at `POST /priv-stark/proofs` (`privStarkRelay` over these routes), which the scheme
   * server advertises by default. `false`, or leaving it out, mounts nothing: wallets then pay
   * inline where the merchant takes it, or hand over through a proxy or directly.
   */
  readonly relay?: Omit<PrivStarkRelayOptions, 'routes'> | false | undefined;
}

interface PaidState {
  readonly context: HTTPRequestContext;
  readonly paymentPayload: PaymentPayload;
  readonly paymentRequirements: PaymentRequirements;
  readonly declaredExtensions: Record<string, unknown> | undefined;
  readonly beforeHandlerSettlement: CompletedSettlement | undefined;
  readonly cancellationDispatcher: PaymentCancellationDispatcher;
}

const PAID = Symbol('priv-stark.paid');
type PaidRequest = FastifyRequest & { [PAID]?: PaidState };

class FastifyAdapter implements HTTPAdapter {
  constructor(private readonly request: FastifyRequest) {}
  getHeader(name: string): string | undefined {
    const value = this.request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }
  getMethod(): string {
    return this.request.method;
  }
  getPath(): string {
    return this.request.url.split('?')[0] ?? '/';
  }
  getUrl(): string {
    return `${this.request.protocol}://${this.request.headers.host ?? 'localhost'}${this.request.url}`;
  }
  getAcceptHeader(): string {
    return this.getHeader('accept') ?? '';
  }
  getUserAgent(): string {
    return this.getHeader('user-agent') ?? '';
  }
  getQueryParams(): Record<string, string | string[]> {
    return (this.request.query ?? {}) as Record<string, string | string[]>;
  }
  getQueryParam(name: string): string | string[] | undefined {
    return this.getQueryParams()[name];
  }
  getBody(): unknown {
    return this.request.body;
  }
}

function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function sendInstructions(
  reply: FastifyReply,
  response: { status: number; headers: Record<string, string>; body?: unknown; isHtml?: boolean },
) {
  reply.code(response.status).headers(response.headers);
  if (response.isHtml) return reply.type('text/html').send(response.body);
  return reply.type('application/json').send(JSON.stringify(response.body ?? {}));
}

/**
 * Mounts the hand-over relay in a scope of its own: the body is read as bytes (forwarded
 * unchanged) with the relay's own limit, whatever parsers the merchant's app has.
 */
async function mountRelay(app: FastifyInstance, options: PrivStarkRelayOptions): Promise<void> {
  const relay = privStarkRelay(options);
  const bodyLimit = options.bodyLimit ?? HANDOVER_BODY_LIMIT_BYTES;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler(async (error: { statusCode?: number }, _request, reply) => {
      const reason = error.statusCode === 413 ? 'payload_too_large' : 'invalid_payload';
      return reply
        .code(statusOf(reason))
        .type('application/json')
        .send(JSON.stringify({ error: reason, message: messageOf(reason) }));
    });
    scope.post(relay.path, { bodyLimit }, async (request, reply) => {
      const body = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
      const answer = await relay.relay(body);
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    });
  });
}

const plugin: FastifyPluginAsync<PrivStarkFastifyOptions> = async (app, options) => {
  if (options.relay) await mountRelay(app, { ...options.relay, routes: options.routes });
  const http = new x402HTTPResourceServer(options.server, options.routes);
  let init: Promise<void> | null = null;
  const initialize = async () => {
    init ??= http.initialize().catch((error: unknown) => {
      init = null;
      throw error;
    });
    return init;
  };
  // Kinds are fetched at start (like the stock middleware); a facilitator down now is retried per request.
  await initialize().catch(() => undefined);

  app.addHook('onRequest', async (request: PaidRequest, reply) => {
    const adapter = new FastifyAdapter(request);
    const path = adapter.getPath();
    const context: HTTPRequestContext = {
      adapter,
      path,
      decodedPath: decoded(path),
      method: request.method,
      ...(adapter.getHeader('payment-signature')
        ? { paymentHeader: adapter.getHeader('payment-signature')! }
        : {}),
    };
    if (!http.requiresPayment(context)) return;
    let result: Awaited<ReturnType<typeof http.processHTTPRequest>>;
    try {
      await initialize();
      result = await http.processHTTPRequest(context, options.paywallConfig);
    } catch (error) {
      if (error instanceof FacilitatorResponseError)
        return reply.code(502).send({ error: error.message });
      request.log.error({ err: error }, 'x402 payment processing failed');
      return reply.code(500).send({ error: 'Internal Server Error' });
    }
    if (result.type === 'payment-error') return sendInstructions(reply, result.response);
    if (result.type === 'payment-verified') {
      request[PAID] = {
        context,
        paymentPayload: result.paymentPayload,
        paymentRequirements: result.paymentRequirements,
        declaredExtensions: result.declaredExtensions,
        beforeHandlerSettlement: result.beforeHandlerSettlement,
        cancellationDispatcher: result.cancellationDispatcher,
      };
    }
    return undefined;
  });

  app.addHook('onSend', async (request: PaidRequest, reply, payload) => {
    const paid = request[PAID];
    if (!paid) return payload;
    delete request[PAID];
    reply.removeHeader(SETTLEMENT_OVERRIDES_HEADER);
    const cacheControl = () => {
      const value = reply.getHeader('cache-control');
      return value == null ? null : String(value);
    };
    if (reply.statusCode >= 400) {
      const cancel = await paid.cancellationDispatcher.cancel({
        reason: 'handler_failed',
        responseStatus: reply.statusCode,
      });
      const headers = http.createFailurePathSettlementHeaders(
        cancel,
        paid.beforeHandlerSettlement,
        paid.paymentPayload,
        cacheControl(),
      );
      if (headers)
        for (const [key, value] of Object.entries(headers)) reply.header(key, String(value));
      return payload;
    }
    const body =
      typeof payload === 'string'
        ? Buffer.from(payload)
        : Buffer.isBuffer(payload)
          ? payload
          : Buffer.alloc(0);
    const responseHeaders: Record<string, string> = {};
    for (const [key, value] of Object.entries(reply.getHeaders()))
      if (value != null) responseHeaders[key] = String(value);
    try {
      const settled = await http.processSettlement(
        paid.paymentPayload,
        paid.paymentRequirements,
        paid.declaredExtensions,
        { request: paid.context, responseBody: body, responseHeaders },
        undefined,
        paid.beforeHandlerSettlement,
      );
      if (!settled.success) {
        const { response } = settled;
        reply.code(response.status).headers(response.headers);
        if (response.isHtml) {
          reply.type('text/html');
          return String(response.body ?? '');
        }
        reply.type('application/json');
        return JSON.stringify(response.body ?? {});
      }
      reply.headers(settled.headers);
      reply.header('cache-control', withPrivateCacheControl(cacheControl()));
      return payload;
    } catch (error) {
      reply.type('application/json');
      if (error instanceof FacilitatorResponseError) {
        reply.code(502);
        return JSON.stringify({ error: error.message });
      }
      request.log.error({ err: error }, 'x402 settlement failed');
      reply.code(402);
      return '{}';
    }
  });
};

/**
 * The merchant plugin.
 * @example
 * const app = Fastify();
 * await app.register(privStarkFastify, { routes: privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01' } }), server });
 * app.get('/weather', async () => ({ weather: 'sunny' }));
 */
export const privStarkFastify = fp(plugin, { fastify: '5.x', name: 'priv-stark-merchant' });
