/**
 * @module The wallet's requests carry no tracing context (docs/privacy.md, "Notes"): a trace or
 * span id put on a request by the page, an instrumented `fetch` or a caller's headers would join
 * the wallet's requests to merchants and to the pool node for whoever reads them. The wallet's
 * `fetch` drops these headers from what it is handed before the request leaves; an
 * instrumentation that adds them below `fetch` itself is outside its reach.
 */

/** Tracing headers (W3C, Sentry, Zipkin B3, Jaeger, Datadog, cloud load balancers), lower case. */
export const TRACE_HEADERS: readonly string[] = [
  'traceparent',
  'tracestate',
  'baggage',
  'sentry-trace',
  'b3',
  'x-b3-traceid',
  'x-b3-spanid',
  'x-b3-parentspanid',
  'x-b3-sampled',
  'x-b3-flags',
  'uber-trace-id',
  'x-datadog-trace-id',
  'x-datadog-parent-id',
  'x-datadog-sampling-priority',
  'x-datadog-origin',
  'x-cloud-trace-context',
  'x-amzn-trace-id',
  'grpc-trace-bin',
];

/** Whether `name` is a tracing header (any `uberctx-` baggage item too). */
export function isTraceHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return TRACE_HEADERS.includes(lower) || lower.startsWith('uberctx-');
}

/** Removes the tracing headers of `headers` in place. */
function dropTraceHeaders(headers: Headers): void {
  const names: string[] = [];
  headers.forEach((_value, name) => {
    if (isTraceHeader(name)) names.push(name);
  });
  for (const name of names) headers.delete(name);
}

/** `inner` with every tracing header removed from the request it is handed. */
export function withoutTraceHeaders(inner: typeof fetch): typeof fetch {
  const stripped = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if (input instanceof Request) {
      const request = new Request(input, init);
      dropTraceHeaders(request.headers);
      return inner(request);
    }
    if (init?.headers === undefined) return inner(input, init);
    const headers = new Headers(init.headers);
    dropTraceHeaders(headers);
    return inner(input, { ...init, headers });
  };
  return stripped as typeof fetch;
}
