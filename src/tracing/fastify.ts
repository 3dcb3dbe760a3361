/**
 * @module The request spans of the two listeners: `@fastify/otel` registered first on each Fastify
 * app, one server span per request named by method and route pattern (`POST /verify`), no span per
 * lifecycle hook or for the handler (each costs as much as the spans that say something; the
 * facilitator's and the ledger's spans hang under the request span directly), no recorded
 * exceptions, and every span scrubbed (`scrub.ts`: no `url.path`, so no query string; no status
 * messages). No HTTP instrumentation runs, so no span records the client address, the headers or
 * the user agent.
 *
 * A failed reply sets the request span's status and `priv_stark.reason` (the registry reason the
 * reply carries). The pool node refuses inbound trace context: a wallet's `traceparent` or
 * `baggage` must not join its hand-over or its reads to the trace of a payment, so its request
 * spans always start new traces (the context extracted from headers is never consulted). The
 * facilitator accepts a merchant's `traceparent` and leaves `GET /health` (probes) untraced.
 */

import { FastifyOtelInstrumentation } from '@fastify/otel';
import {
  context,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type {
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from 'fastify';
import fp from 'fastify-plugin';

import { scrubbedTracerProvider } from './scrub.js';

/** The registry reason a reply carries (`null` for a success). */
export type ReplyReason = (
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
) => string | null;

/** Which listener: the pool node refuses inbound trace context, the facilitator accepts it. */
export type Listener = 'facilitator' | 'pool-node';

/**
 * A context whose span is invalid: a span started under it is the root of a new trace, and
 * `@fastify/otel` extracts nothing from the headers when a span is already active.
 */
const NO_INBOUND_CONTEXT = trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(INVALID_SPAN_CONTEXT));

/** The path of a request URL, without its query string. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** `POST /verify`: the method and the route pattern (the method alone when no route matched). */
function routeName(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  return route === undefined ? request.method : `${request.method} ${route}`;
}

/** Runs the rest of the request's hooks (the instrumentation's first) under no inbound context. */
function refuseInboundContext(
  _request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  context.with(NO_INBOUND_CONTEXT, done);
}

/** Each traced request's span, as the instrumentation started it (read by the hooks below). */
const requestSpans = new WeakMap<FastifyRequest, Span>();

/** Runs the rest of the request (its handler) under its span, when it has one. */
function enterRequestContext(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const span = requestSpans.get(request);
  if (span) context.with(trace.setSpan(context.active(), span), done);
  else done();
}

/**
 * The plugin that traces one listener's requests, its spans made by `provider`'s tracers.
 * Register it before anything else on the app (routes and hooks registered earlier are not seen).
 */
export function requestTracing(
  provider: TracerProvider,
  listener: Listener,
  reasonOf: ReplyReason,
): FastifyPluginAsync {
  const instrumentation = new FastifyOtelInstrumentation({
    instrumentHooks: false,
    instrumentHandler: false,
    recordExceptions: false,
    requestHook: (span, request) => {
      span.updateName(routeName(request));
      requestSpans.set(request, span);
    },
    ...(listener === 'facilitator'
      ? { ignorePaths: (route: { url: string }) => pathOf(route.url) === '/health' }
      : {}),
  });
  instrumentation.setTracerProvider(scrubbedTracerProvider(provider));

  const plugin: FastifyPluginAsync = async (app) => {
    if (listener === 'pool-node') app.addHook('onRequest', refuseInboundContext);
    // The handler runs under the request span: the context the instrumentation entered at
    // onRequest does not survive reading the body (stream events run in the socket's context).
    app.addHook('preHandler', enterRequestContext);
    // Instance hooks run before the route's own onSend, where the instrumentation ends the span.
    app.addHook('onSend', (request, reply, payload, done) => {
      const span = requestSpans.get(request);
      const reason = span ? reasonOf(request, reply, payload) : null;
      if (span && reason !== null) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('priv_stark.reason', reason);
      }
      done(null, payload);
    });
    await app.register(instrumentation.plugin());
  };
  return fp(plugin, { fastify: '5.x', name: `priv-stark-tracing-${listener}` });
}
