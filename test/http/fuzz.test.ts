// fast-check over malformed bodies, headers and encodings: never a 5xx, always x402-shaped JSON
// with a reason of the registry and its status, and the server stays healthy.

import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { isReason, statusOf } from '../../src/scheme/index.js';
import { AUTH, facilitatorHarness } from './helpers/harness.js';
import { liveSpec, requestOf } from './helpers/requests.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 250);

/** Asserts the reply invariants of the two routes. */
function expectShaped(response: LightMyRequestResponse, kind: 'verify' | 'settle') {
  expect(response.statusCode).toBeLessThan(500);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json() as Record<string, unknown>;
  if (kind === 'verify') {
    expect(typeof body.isValid).toBe('boolean');
    if (body.isValid) {
      expect(response.statusCode).toBe(200);
      return;
    }
    expect(isReason(body.invalidReason)).toBe(true);
    expect(response.statusCode).toBe(statusOf(body.invalidReason as never));
    expect(typeof body.invalidMessage).toBe('string');
  } else {
    expect(typeof body.success).toBe('boolean');
    expect(typeof body.transaction).toBe('string');
    expect(typeof body.network).toBe('string');
    if (body.success) {
      expect(response.statusCode).toBe(200);
      return;
    }
    expect(isReason(body.errorReason)).toBe(true);
    expect(response.statusCode).toBe(statusOf(body.errorReason as never));
  }
  expect(Object.keys(body)).not.toContain('payer');
}

/** Every path (array of keys) of a JSON value. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const out: (string | number)[][] = [prefix];
  for (const [key, child] of Object.entries(value))
    out.push(...pathsOf(child, [...prefix, Array.isArray(value) ? Number(key) : key]));
  return out;
}

/** A copy of `value` with `path` replaced (or deleted when `replacement` is the DELETE marker). */
const DELETE = Symbol('delete');
function mutate(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement === DELETE ? undefined : replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (replacement === DELETE) delete node[last];
  else node[last] = replacement;
  return copy;
}

describe('malformed requests (fast-check)', () => {
  const h = facilitatorHarness('sqlite', liveSpec('http-fuzz', 3, 1));
  // One app per test: the store harness closes its stores after each test.
  let app: FastifyInstance;
  beforeEach(async () => {
    app = (await h.app()).app;
  });
  afterEach(async () => {
    await app.close();
  });

  const kinds = fc.constantFrom('verify' as const, 'settle' as const);
  const valid = () => requestOf(h.fixtures().payments[0]!);

  it('JSON mutations of a valid request: a field deleted, retyped or replaced anywhere', async () => {
    const base = valid();
    const paths = pathsOf(base);
    const replacement = fc.oneof(
      fc.constant(DELETE),
      fc.jsonValue({ maxDepth: 2 }),
      fc.string({ maxLength: 80 }),
      fc.integer(),
      fc.double(),
      fc.constantFrom(
        '',
        '0',
        '-1',
        '1e400',
        '0x',
        'priv-stark/v1',
        'shielded:devnet',
        '__proto__',
        'A'.repeat(2000),
      ),
    );
    await fc.assert(
      fc.asyncProperty(kinds, fc.constantFrom(...paths), replacement, async (kind, path, value) => {
        const body = mutate(base, path, value);
        const response = await app.inject({
          method: 'POST',
          url: `/${kind}`,
          headers: AUTH,
          payload: JSON.stringify(body ?? null),
        });
        expectShaped(response, kind);
      }),
      { numRuns: RUNS },
    );
  });

  it('encodings: the proof, digests, amounts and addresses edited character by character', async () => {
    const base = valid();
    const payload = base.paymentPayload.payload;
    const fields = ['proof', 'root', 'nullifier', 'commitment', 'amount', 'recipient'] as const;
    await fc.assert(
      fc.asyncProperty(
        kinds,
        fc.constantFrom(...fields),
        fc.nat(),
        fc.constantFrom('=', '-', '_', ' ', '\n', 'A', '0', 'f', 'F', 'é', '\u0000', '+', '/', ''),
        fc.constantFrom('insert', 'replace', 'truncate', 'upper'),
        async (kind, field, at, char, op) => {
          const text = String(payload[field]);
          const i = at % (text.length + 1);
          const edited =
            op === 'insert'
              ? text.slice(0, i) + char + text.slice(i)
              : op === 'replace'
                ? text.slice(0, i) + char + text.slice(i + 1)
                : op === 'truncate'
                  ? text.slice(0, i)
                  : text.toUpperCase();
          const body = mutate(base, ['paymentPayload', 'payload', field], edited);
          const response = await app.inject({
            method: 'POST',
            url: `/${kind}`,
            headers: AUTH,
            payload: body as object,
          });
          expectShaped(response, kind);
          if (edited !== text && kind === 'settle') expect(response.json().success).toBe(false);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('raw bodies and content types', async () => {
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/octet-stream',
      '',
      'application/json; charset=latin1',
    );
    const body = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.constantFrom(
        '{',
        '[]',
        'null',
        '"x"',
        '{"x402Version":2}',
        '{"constructor":{"prototype":{"x":1}}}',
        '\ufeff{}',
      ),
    );
    await fc.assert(
      fc.asyncProperty(kinds, contentType, body, async (kind, type, payload) => {
        const headers: Record<string, string> = { ...AUTH };
        if (type) headers['content-type'] = type;
        const response = await app.inject({ method: 'POST', url: `/${kind}`, headers, payload });
        expectShaped(response, kind);
      }),
      { numRuns: RUNS },
    );
  });

  it('headers, methods and paths', async () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 120,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
        fc.oneof(
          fc.constantFrom(
            '/verify',
            '/settle',
            '/health',
            '/',
            '/verify?x=1',
            '/settle/',
            '//verify',
            '/VERIFY',
            '/%00',
            '/verify%20',
          ),
          printable.map((p) => `/${encodeURIComponent(p)}`),
        ),
        fc.oneof(
          fc.constant(AUTH.authorization),
          printable,
          printable.map((p) => `Bearer ${p}`),
        ),
        async (method, url, authorization) => {
          const response = await app.inject({
            method: method as 'GET',
            url,
            headers: { authorization, 'content-type': 'application/json' },
            ...(method === 'GET' ? {} : { payload: JSON.stringify(valid()) }),
          });
          expect(response.statusCode).toBeLessThan(500);
          if (url.startsWith('/health') && method === 'GET') return;
          expectShaped(
            response,
            url.split('?')[0] === '/settle' || url.startsWith('/settle/') ? 'settle' : 'verify',
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('stays healthy after a storm of junk: /health is 200 and a valid payment still verifies', async () => {
    await fc.assert(
      fc.asyncProperty(kinds, fc.jsonValue({ maxDepth: 4 }), async (kind, junk) => {
        expectShaped(
          await app.inject({
            method: 'POST',
            url: `/${kind}`,
            headers: AUTH,
            payload: JSON.stringify(junk),
          }),
          kind,
        );
      }),
      { numRuns: RUNS },
    );
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    const response = await app.inject({
      method: 'POST',
      url: '/verify',
      headers: AUTH,
      payload: requestOf(h.fixtures().payments[1]!),
    });
    expect(response.json()).toEqual({ isValid: true });
  });
});
