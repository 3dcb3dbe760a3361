/**
 * @module The HTTP side of the tools, with every input treated as hostile: the URL (http or https,
 * no credentials), the agent's headers (never the payment headers, which only the x402 client
 * writes), redirects not followed (an allowed host must not be able to hand the payment to another
 * one), a timeout, and response bodies read only up to a bound.
 */

import { ToolError } from './errors.js';

/** What the agent asks for. */
export interface FetchInput {
  readonly url: string;
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: string | undefined;
}

export const MAX_URL_CHARS = 4096;
export const MAX_HEADERS = 32;
export const MAX_HEADER_VALUE_CHARS = 4096;
export const MAX_REQUEST_BODY_CHARS = 64 * 1024;
/** A 402's body is read up to this (its requirements travel in the `PAYMENT-REQUIRED` header). */
export const MAX_402_BODY_BYTES = 64 * 1024;

/** Headers the agent may not set: the payment's own, and those the HTTP stack owns. */
const FORBIDDEN_HEADERS = new Set([
  'payment-signature',
  'x-payment',
  'payment-required',
  'payment-response',
  'x-payment-response',
  'access-control-expose-headers',
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/**
 * The URL to fetch.
 * @throws ToolError `invalid_url`
 */
export function parseTarget(url: string): URL {
  if (typeof url !== 'string' || url.length > MAX_URL_CHARS)
    throw new ToolError(
      'invalid_url',
      `the URL must be a string of at most ${MAX_URL_CHARS} characters`,
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError('invalid_url', 'the URL is not an absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ToolError(
      'invalid_url',
      `only http and https URLs are fetched, not ${parsed.protocol.slice(0, 20)}`,
    );
  if (parsed.username !== '' || parsed.password !== '')
    throw new ToolError('invalid_url', 'the URL must not carry credentials');
  return parsed;
}

/** Origin and path of a URL (the query may carry secrets; it is not recorded). */
export function recordedUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * The request's init from the agent's method, headers and body.
 * @throws ToolError `invalid_header`, `invalid_body`
 */
export function requestInit(input: FetchInput): RequestInit {
  const headers = new Headers();
  const entries = Object.entries(input.headers ?? {});
  if (entries.length > MAX_HEADERS)
    throw new ToolError('invalid_header', `at most ${MAX_HEADERS} headers`);
  for (const [name, value] of entries) {
    if (!TOKEN.test(name))
      throw new ToolError(
        'invalid_header',
        `${JSON.stringify(name.slice(0, 40))} is not a header name`,
      );
    if (FORBIDDEN_HEADERS.has(name.toLowerCase()))
      throw new ToolError(
        'invalid_header',
        `the header ${name} is set by the payment client or the HTTP stack, not by a tool call`,
      );
    if (
      typeof value !== 'string' ||
      value.length > MAX_HEADER_VALUE_CHARS ||
      /[\r\n\0]/.test(value)
    ) {
      throw new ToolError(
        'invalid_header',
        `the value of ${name} must be one line of at most ${MAX_HEADER_VALUE_CHARS} characters`,
      );
    }
    headers.set(name, value);
  }
  const method = input.method ?? 'GET';
  if (input.body !== undefined) {
    if (method === 'GET') throw new ToolError('invalid_body', 'a GET request has no body');
    if (input.body.length > MAX_REQUEST_BODY_CHARS)
      throw new ToolError(
        'invalid_body',
        `the body is longer than ${MAX_REQUEST_BODY_CHARS} characters`,
      );
  }
  return { method, headers, ...(input.body !== undefined ? { body: input.body } : {}) };
}

/** Reads at most `maxBytes` of a body, then stops reading. */
export async function readBounded(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.length > room) {
      chunks.push(value.subarray(0, room));
      size += room;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, truncated };
}

/** Text for textual content types, base64 otherwise. */
export function bodyText(
  bytes: Uint8Array,
  contentType: string,
): { body: string; encoding: 'utf8' | 'base64' } {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const textual =
    type.startsWith('text/') ||
    /[/+](json|xml)$/.test(type) ||
    type === 'application/javascript' ||
    type === 'application/x-www-form-urlencoded' ||
    type === '';
  if (textual) {
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    if (type !== '' || !text.includes('\uFFFD')) return { body: text, encoding: 'utf8' };
  }
  return { body: Buffer.from(bytes).toString('base64'), encoding: 'base64' };
}

/**
 * A `fetch` for merchants: redirects are returned, not followed; every request has a timeout; a
 * 402's body is cut to {@link MAX_402_BODY_BYTES} (x402 reads it whole).
 */
export function merchantFetch(
  inner: typeof fetch = globalThis.fetch,
  timeoutMs = 30_000,
): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await inner(request, {
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status !== 402) return response;
    const { bytes, truncated } = await readBounded(response, MAX_402_BODY_BYTES);
    return new Response(truncated ? null : Buffer.from(bytes), {
      status: 402,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
