// Requests the routes never see — an unknown route carrying a bad or oversized body, a path that is
// not a valid URL, bytes Node's HTTP parser cannot read (headers over the limit, a malformed request
// line) — still get x402-shaped JSON with a reason of the registry, each paired with a twin on a
// real route that keeps its own reason; the server stays healthy.

import { connect } from 'node:net';

import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { clientErrorReply } from '../../src/http/client-errors.js';
import {
  BODY_LIMIT_BYTES,
  isReason,
  messageOf,
  type Reason,
  statusOf,
} from '../../src/scheme/index.js';
import { AUTH, facilitatorHarness } from './helpers/harness.js';
import { liveSpec } from './helpers/requests.js';

const SPEC = liveSpec('http-unreadable', 1);

/** The x402 failure body of `reason` in the shape of `kind`. */
function failure(kind: 'verify' | 'settle', reason: Reason) {
  return kind === 'verify'
    ? { isValid: false, invalidReason: reason, invalidMessage: messageOf(reason) }
    : {
        success: false,
        errorReason: reason,
        errorMessage: messageOf(reason),
        transaction: '',
        network: '',
      };
}

/**
 * Sends raw bytes, half-closes, and reads until the server closes (or 5 s pass): the first
 * reply's status, headers and body (by its Content-Length); status 0 when nothing came back.
 */
function raw(
  port: number,
  bytes: string | Buffer,
): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? text.length);
      const body = split < 0 ? '' : text.slice(split + 4, split + 4 + length);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body });
    });
    // Half-close: a request the parser took as complete is answered, then the server closes too.
    socket.end(bytes);
  });
}

describe('requests the routes never see', () => {
  const h = facilitatorHarness('sqlite', SPEC);
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    ({ app } = await h.app());
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers an unknown route 404 not_found before reading its body, however bad or large', async () => {
    const big = 'x'.repeat(BODY_LIMIT_BYTES + 1);
    const cases: [string, string, 'verify' | 'settle'][] = [
      ['/nope', '{not json', 'verify'],
      ['/nope', big, 'verify'],
      ['/verify/', '{"__proto__":{}}', 'verify'],
      ['/settle/extra', '{not json', 'settle'],
      ['/settle/extra', big, 'settle'],
    ];
    for (const [url, payload, kind] of cases) {
      const response = await app.inject({
        method: 'POST',
        url,
        payload,
        headers: { ...AUTH, 'content-type': 'application/json' },
      });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toEqual(failure(kind, 'not_found'));
    }
    // The twins: the real routes read the body and answer for it.
    for (const kind of ['verify', 'settle'] as const) {
      const bad = await app.inject({
        method: 'POST',
        url: `/${kind}`,
        payload: '{not json',
        headers: { ...AUTH, 'content-type': 'application/json' },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject(
        kind === 'verify'
          ? { invalidReason: 'invalid_payload' }
          : { errorReason: 'invalid_payload' },
      );
      const large = await app.inject({
        method: 'POST',
        url: `/${kind}`,
        payload: big,
        headers: { ...AUTH, 'content-type': 'application/json' },
      });
      expect(large.statusCode).toBe(413);
    }
  });

  it('answers a path that is not a valid URL 404 not_found in the x402 shape, without echoing it', async () => {
    for (const [url, kind] of [
      ['/verify%', 'verify'],
      ['/%zz', 'verify'],
      ['/%', 'verify'],
      ['/settle%', 'verify'],
    ] as const) {
      const response = await app.inject({
        method: 'POST',
        url,
        payload: '{}',
        headers: { ...AUTH, 'content-type': 'application/json' },
      });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
      expect(response.json()).toEqual(failure(kind, 'not_found'));
      expect(response.body).not.toContain('%');
    }
  });

  it('answers headers over the limit 413 payload_too_large in the shape of the route named, and closes the connection', async () => {
    const huge = `x-filler: ${'a'.repeat(20_000)}\r\n`;
    for (const kind of ['verify', 'settle'] as const) {
      const reply = await raw(
        port,
        `POST /${kind} HTTP/1.1\r\nhost: localhost\r\n${huge}content-length: 2\r\n\r\n{}`,
      );
      expect(reply.status).toBe(413);
      expect(reply.headers.toLowerCase()).toContain('connection: close');
      expect(JSON.parse(reply.body)).toEqual(failure(kind, 'payload_too_large'));
    }
    // The twin: the same request with small headers reaches the route (and its auth).
    const small = await raw(
      port,
      'POST /verify HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}',
    );
    expect(small.status).toBe(401);
  });

  it('answers an HTTP/1.1 request without a Host header like any other (Node alone would send 400 with no body)', async () => {
    for (const kind of ['verify', 'settle'] as const) {
      const reply = await raw(port, `POST /${kind} HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}`);
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.body)).toEqual(failure(kind, 'unauthorized'));
    }
    const unknown = await raw(port, 'GET / HTTP/1.1\r\n\r\n');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toEqual(failure('verify', 'not_found'));
  });

  it('answers a request line the parser cannot read 400 invalid_payload, and stays healthy (fast-check)', async () => {
    const malformed = await raw(port, 'GARBAGE\r\n\r\n');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body)).toEqual(failure('verify', 'invalid_payload'));
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 200 }),
        async (junk) => {
          const reply = await raw(port, `${junk}\r\n\r\n`);
          if (reply.status === 0) return; // closed without a reply (nothing complete arrived)
          expect(reply.status).toBeLessThan(500);
          if (reply.status === 200) return; // junk that happened to spell a request for /health
          const body = JSON.parse(reply.body) as Record<string, unknown>;
          const reason = 'isValid' in body ? body.invalidReason : body.errorReason;
          expect(isReason(reason)).toBe(true);
          expect(reply.status).toBe(statusOf(reason as Reason));
        },
      ),
      // Junk that spells a whole request (answered, then closed) or half of one (closed).
      {
        numRuns: 60,
        examples: [
          ['GET / HTTP/1.1'],
          ['GET /health HTTP/1.1'],
          ['POST /verify HTTP/1.1\r\ncontent-length: 5'],
        ],
      },
    );
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
  });

  it('builds the raw reply from the request line it could read, verify shape when there is none', () => {
    const settle = clientErrorReply({
      code: 'HPE_HEADER_OVERFLOW',
      rawPacket: Buffer.from('POST /settle HTTP/1.1\r\nx: y'),
    });
    expect(settle).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(JSON.parse(settle.split('\r\n\r\n')[1]!)).toEqual(
      failure('settle', 'payload_too_large'),
    );
    const none = clientErrorReply({ code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    expect(none).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(none.split('\r\n\r\n')[1]!)).toEqual(failure('verify', 'invalid_payload'));
  });
});
