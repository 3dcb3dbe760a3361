// The scrubbing every span goes through: whatever an instrumentation records — at start, later,
// in events, exceptions, status messages, links or a new name — only allowlisted attributes reach
// the SDK. The must-fail twin makes the same calls on the bare provider, and the scanner finds
// every value.

import { type Span, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';

import {
  ALLOWED_ATTRIBUTES,
  safeSpanName,
  scrubbedTracerProvider,
} from '../../src/tracing/index.js';
import { type Forbidden, findForbidden } from './helpers/scan.js';

const NULLIFIER = `0x${'3f9a'.repeat(16)}`;
const FORBIDDEN: Forbidden = {
  nullifier: NULLIFIER,
  'client address': '203.0.113.9',
  query: 'from=17',
  header: 'secret-agent/1.0',
};

/** Every way a span can be given data, with forbidden values in each. */
function record(tracer: Tracer): void {
  const span = tracer.startSpan('request', {
    attributes: {
      'http.request.method': 'POST',
      'url.path': '/leaves?from=17',
      'client.address': '203.0.113.9',
      'priv_stark.reason': 'unknown_root',
    },
    links: [
      {
        context: {
          traceId: '0af7651916cd43dd8448eb211c80319c',
          spanId: 'b7ad6b7169203331',
          traceFlags: 1,
        },
        attributes: { nullifier: NULLIFIER },
      },
    ],
  });
  span.setAttribute('http.request.header.user_agent', 'secret-agent/1.0');
  span.setAttributes({ 'http.route': '/leaves', 'app.nullifier': NULLIFIER });
  span.addEvent('parsed', { nullifier: NULLIFIER });
  span.recordException(new SyntaxError(`Unexpected token in "${NULLIFIER}"`));
  span.setStatus({ code: SpanStatusCode.ERROR, message: `bad body from=17 ${NULLIFIER}` });
  span.updateName(`GET /leaves?from=17`);
  span.end();
  tracer.startActiveSpan(`settle ${NULLIFIER}`, (active: Span) => {
    active.setAttribute('url.query', 'from=17');
    active.end();
  });
  tracer.startActiveSpan('ok', { attributes: { 'client.address': '203.0.113.9' } }, (s: Span) =>
    s.end(),
  );
}

function spansOf(scrub: boolean): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  record((scrub ? scrubbedTracerProvider(provider) : provider).getTracer('test'));
  return exporter.getFinishedSpans().slice();
}

describe('scrubbing', () => {
  it('lets only allowlisted attributes through, and no event, exception, message or data-like name', () => {
    const spans = spansOf(true);
    expect(spans.map((s) => s.name)).toEqual(['span', 'span', 'ok']);
    expect(findForbidden(spans, FORBIDDEN)).toEqual([]);
    for (const span of spans) {
      for (const key of Object.keys(span.attributes))
        expect(ALLOWED_ATTRIBUTES.has(key)).toBe(true);
      expect(span.events).toEqual([]);
      expect(span.status.message).toBeUndefined();
      for (const link of span.links) expect(link.attributes ?? {}).toEqual({});
    }
    expect(spans[0]!.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/leaves',
      'priv_stark.reason': 'unknown_root',
    });
    expect(spans[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[0]!.links).toHaveLength(1);
  });

  it('keeps names made of code: route patterns, our span names', () => {
    for (const name of [
      'POST /verify',
      'GET /leaves',
      'handler POST /proofs',
      'store.checkpointByRoot',
    ])
      expect(safeSpanName(name)).toBe(name);
    for (const name of ['GET /leaves?from=1', `x ${NULLIFIER}`, `y ${'A'.repeat(48)}`])
      expect(safeSpanName(name)).toBe('span');
  });

  it('must-fail twin: the bare provider keeps every value, and the scanner finds them', () => {
    const found = findForbidden(spansOf(false), FORBIDDEN);
    expect(found).toEqual(
      expect.arrayContaining([
        'GET /leaves?from=17: attribute key url.path',
        'GET /leaves?from=17: attribute key client.address',
        'GET /leaves?from=17: name: query',
        'GET /leaves?from=17: attribute app.nullifier: nullifier',
        'GET /leaves?from=17: status message: nullifier',
        'GET /leaves?from=17: event parsed nullifier: nullifier',
        expect.stringMatching(/event exception exception\.message: nullifier$/),
        'GET /leaves?from=17: link nullifier: nullifier',
        `settle ${NULLIFIER}: name: nullifier`,
        'ok: attribute client.address: client address',
      ]),
    );
  });
});
