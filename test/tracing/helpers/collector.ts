/**
 * An OTLP/HTTP collector on loopback for the trace suites. The service under test exports to it
 * because the suite sets the standard `OTEL_*` environment (JSON encoding), as an operator would:
 * no test-only way into the service. It keeps every export's bytes (to scan the wire) and the
 * spans decoded from them (to read the span trees). `flush()` has the process's SDK export what it
 * has queued, so a test reads the spans of the request it has just made.
 */

import { createServer } from 'node:http';

import {
  type Attributes,
  type AttributeValue,
  type ProxyTracerProvider,
  type SpanKind,
  type SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/** A span as it arrived at the collector. */
export interface ExportedSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  /** Undefined for a trace's root span. */
  readonly parentSpanId: string | undefined;
  readonly status: { readonly code: SpanStatusCode; readonly message?: string | undefined };
  readonly attributes: Attributes;
  readonly events: readonly { readonly name: string; readonly attributes: Attributes }[];
  readonly links: readonly { readonly attributes: Attributes }[];
  readonly resource: { readonly attributes: Attributes };
}

/** OTLP's JSON encoding, the parts read here. */
interface OtlpValue {
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly intValue?: number | string;
  readonly doubleValue?: number;
  readonly bytesValue?: string;
  readonly arrayValue?: { readonly values?: readonly OtlpValue[] };
  readonly kvlistValue?: { readonly values?: readonly OtlpKeyValue[] };
}
interface OtlpKeyValue {
  readonly key: string;
  readonly value?: OtlpValue;
}
interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes?: readonly OtlpKeyValue[];
  readonly events?: readonly { readonly name: string; readonly attributes?: OtlpKeyValue[] }[];
  readonly links?: readonly { readonly attributes?: OtlpKeyValue[] }[];
  readonly status?: { readonly code?: number; readonly message?: string };
}
interface OtlpExport {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly OtlpKeyValue[] };
    readonly scopeSpans?: readonly { readonly spans?: readonly OtlpSpan[] }[];
  }[];
}

function attributeValueOf(value: OtlpValue | undefined): AttributeValue {
  if (value === undefined) return '';
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined)
    return (value.arrayValue.values ?? []).map((item) => String(attributeValueOf(item)));
  // Bytes and key-value lists: kept as text, so a scan still sees what they hold.
  return JSON.stringify(value.bytesValue ?? value.kvlistValue ?? value);
}

function attributesOf(list: readonly OtlpKeyValue[] | undefined): Attributes {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, attributeValueOf(value)]));
}

function spansOf(body: OtlpExport): ExportedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = { attributes: attributesOf(resourceSpans.resource?.attributes) };
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map(
        (span): ExportedSpan => ({
          name: span.name,
          // OTLP counts kinds from 1 (unspecified is 0), the API from 0.
          kind: (span.kind - 1) as SpanKind,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          status: {
            code: (span.status?.code ?? 0) as SpanStatusCode,
            ...(span.status?.message ? { message: span.status.message } : {}),
          },
          attributes: attributesOf(span.attributes),
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            attributes: attributesOf(event.attributes),
          })),
          links: (span.links ?? []).map((link) => ({ attributes: attributesOf(link.attributes) })),
          resource,
        }),
      ),
    );
  });
}

/** A running collector: its URL for `OTEL_EXPORTER_OTLP_ENDPOINT`, what it received, its end. */
export interface Collector {
  readonly url: string;
  /** Every export's body as received, in order. */
  readonly bodies: readonly string[];
  /** Every span received, in order. */
  readonly spans: readonly ExportedSpan[];
  /** Has the process's SDK export its queue; resolves once the collector holds it. */
  flush(): Promise<void>;
  /** The spans received since the last call, after a flush. */
  take(): Promise<ExportedSpan[]>;
  close(): Promise<void>;
}

/**
 * Starts a collector that answers every trace export with success.
 * @example
 * const collector = await startCollector();
 * process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
 * process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
 */
export async function startCollector(): Promise<Collector> {
  const bodies: string[] = [];
  const spans: ExportedSpan[] = [];
  let taken = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const body = Buffer.concat(chunks).toString('utf8');
        bodies.push(body);
        spans.push(...spansOf(JSON.parse(body) as OtlpExport));
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const flush = async () => {
    // The SDK's provider behind the API's global proxy: the one the service registered.
    const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() as {
      forceFlush?: () => Promise<void>;
    };
    await provider.forceFlush?.();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    spans,
    flush,
    async take() {
      await flush();
      const fresh = spans.slice(taken);
      taken = spans.length;
      return fresh;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
