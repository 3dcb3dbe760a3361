/**
 * @module Traces (OpenTelemetry), for the service: the SDK started from the `OTEL_*` environment,
 * the request tracing of the two listeners, the scrubbing every span goes through, and the span
 * helpers the facilitator and the ledger use (those import `spans.ts` itself: it needs
 * `@opentelemetry/api` only, a no-op when no SDK is registered).
 */

export { type Listener, type ReplyReason, requestTracing } from './fastify.js';
export {
  ALLOWED_ATTRIBUTES,
  allowedAttributes,
  safeSpanName,
  scrubbedTracer,
  scrubbedTracerProvider,
} from './scrub.js';
export { tracingRequested } from './requested.js';
export { sharedTracing, type Tracing } from './sdk.js';
export {
  activeContext,
  inContext,
  inSpan,
  inSpanSync,
  type SpanFacts,
  type SpanName,
  type SpanOptions,
  TRACER_NAME,
  type TraceContext,
} from './spans.js';
