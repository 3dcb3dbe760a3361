/**
 * @module What a span may carry, enforced where spans are made: a tracer provider that wraps
 * another and lets through only attributes on an allowlist — the method, the route pattern, the
 * status code, the instrumentation's hook names, and this project's reasons, kinds and counts — and
 * no status message, event or recorded exception (an error's message can quote the request: a JSON
 * parse error quotes the body). So a span never holds a client address, a URL or its query string,
 * a header, or a nullifier, root, recipient, amount, resource id, proof or reference, whatever an
 * instrumentation would have recorded: dropped values never reach the SDK, its sampler or an
 * exporter. `@opentelemetry/api` only.
 */

import type {
  Attributes,
  AttributeValue,
  Context,
  Link,
  Span,
  SpanContext,
  SpanOptions,
  SpanStatus,
  Tracer,
  TracerOptions,
  TracerProvider,
} from '@opentelemetry/api';

/**
 * The attributes a span may carry. `@fastify/otel`'s own, less `url.path` (the path as sent, query
 * string included), and ours.
 */
export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set([
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'fastify.root',
  'fastify.type',
  'hook.name',
  'hook.callback.name',
  'error.type',
  'priv_stark.reason',
  'priv_stark.transport',
  'priv_stark.store',
  'priv_stark.ops',
]);

/**
 * A name that could hold request data: a query string, or a run of hex or base64 digits as long
 * as a digest or an address. Span names come from code (route patterns, function names), so this
 * only guards against a future instrumentation naming spans by URL.
 */
const DATA_LIKE = /[?=&]|[0-9a-fA-F]{16}|[A-Za-z0-9+/_-]{40}/;

/**
 * The attributes of `attributes` on the allowlist: `attributes` itself when all are (the common
 * case, no copy), `undefined` when none is.
 */
export function allowedAttributes(attributes: Attributes | undefined): Attributes | undefined {
  if (attributes === undefined) return undefined;
  for (const key in attributes) {
    if (ALLOWED_ATTRIBUTES.has(key)) continue;
    let kept: Attributes | undefined;
    for (const allowed in attributes) {
      if (!ALLOWED_ATTRIBUTES.has(allowed)) continue;
      kept ??= {};
      kept[allowed] = attributes[allowed];
    }
    return kept;
  }
  return attributes;
}

/** Names already judged: span names come from code, so there are few (bounded all the same). */
const judgedNames = new Map<string, string>();
const JUDGED_NAMES_MAX = 1024;

/** `name`, or a neutral one when it looks like it could hold request data. */
export function safeSpanName(name: string): string {
  const judged = judgedNames.get(name);
  if (judged !== undefined) return judged;
  const safe = DATA_LIKE.test(name) ? 'span' : name;
  // A name that looks like data is not kept: it could be data.
  if (safe === name && judgedNames.size < JUDGED_NAMES_MAX) judgedNames.set(name, safe);
  return safe;
}

/** A span that drops what {@link ALLOWED_ATTRIBUTES} does not allow, events and messages. */
class ScrubbedSpan implements Span {
  constructor(private readonly span: Span) {}

  spanContext(): SpanContext {
    return this.span.spanContext();
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (ALLOWED_ATTRIBUTES.has(key)) this.span.setAttribute(key, value);
    return this;
  }

  setAttributes(attributes: Attributes): this {
    const kept = allowedAttributes(attributes);
    if (kept) this.span.setAttributes(kept);
    return this;
  }

  addEvent(): this {
    return this;
  }

  addLink(link: Link): this {
    this.span.addLink({ context: link.context });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    this.span.setStatus({ code: status.code });
    return this;
  }

  updateName(name: string): this {
    this.span.updateName(safeSpanName(name));
    return this;
  }

  end(endTime?: Parameters<Span['end']>[0]): void {
    this.span.end(endTime);
  }

  isRecording(): boolean {
    return this.span.isRecording();
  }

  recordException(): void {
    // Dropped: an exception's message and stack can quote the request.
  }
}

/** The options of a span with its attributes scrubbed and its links' attributes dropped. */
function scrubbedOptions(options: SpanOptions | undefined): SpanOptions | undefined {
  if (options === undefined) return undefined;
  const kept = allowedAttributes(options.attributes);
  if (kept === options.attributes && options.links === undefined) return options;
  const scrubbed: SpanOptions = { ...options };
  if (kept) scrubbed.attributes = kept;
  else delete scrubbed.attributes;
  if (options.links) scrubbed.links = options.links.map((link) => ({ context: link.context }));
  return scrubbed;
}

class ScrubbingTracer implements Tracer {
  constructor(private readonly tracer: Tracer) {}

  startSpan(name: string, options?: SpanOptions, context?: Context): Span {
    return new ScrubbedSpan(
      this.tracer.startSpan(safeSpanName(name), scrubbedOptions(options), context),
    );
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    context: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]
  ): ReturnType<F> {
    const fn = rest.at(-1) as F;
    const wrapped = ((span: Span) => fn(new ScrubbedSpan(span))) as F;
    const name_ = safeSpanName(name);
    if (rest.length === 1) return this.tracer.startActiveSpan(name_, wrapped);
    const options = scrubbedOptions(rest[0]) ?? {};
    if (rest.length === 2) return this.tracer.startActiveSpan(name_, options, wrapped);
    return this.tracer.startActiveSpan(name_, options, rest[1], wrapped);
  }
}

/**
 * `provider`'s tracers with every span scrubbed (see the module comment).
 * @example
 * instrumentation.setTracerProvider(scrubbedTracerProvider(trace.getTracerProvider()));
 */
export function scrubbedTracerProvider(provider: TracerProvider): TracerProvider {
  return {
    getTracer: (name: string, version?: string, options?: TracerOptions) =>
      new ScrubbingTracer(provider.getTracer(name, version, options)),
  };
}

const scrubbedTracers = new WeakMap<Tracer, Tracer>();

/** `tracer`, scrubbed (the same wrapper for the same tracer). */
export function scrubbedTracer(tracer: Tracer): Tracer {
  let scrubbed = scrubbedTracers.get(tracer);
  if (scrubbed === undefined) {
    scrubbed = new ScrubbingTracer(tracer);
    scrubbedTracers.set(tracer, scrubbed);
  }
  return scrubbed;
}
