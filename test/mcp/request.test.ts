// The HTTP side of the tools with hostile inputs: URLs, the agent's headers (never the payment's),
// bodies read up to a bound, redirects returned rather than followed, and a merchant's 402 read
// without trusting it (which option this wallet would pay, as x402's client selects it).

import { createServer, type Server } from 'node:http';

import { encodePaymentRequiredHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ToolError } from '../../src/mcp/errors.js';
import { payableIndex, readPaymentRequired } from '../../src/mcp/quote.js';
import {
  bodyText,
  MAX_402_BODY_BYTES,
  merchantFetch,
  parseTarget,
  readBounded,
  requestInit,
} from '../../src/mcp/request.js';

const codeOf = (run: () => unknown) => {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof ToolError ? error.code : 'not a ToolError';
  }
};

describe('parseTarget and requestInit', () => {
  it.each([
    ['file:///etc/passwd', 'invalid_url'],
    ['javascript:alert(1)', 'invalid_url'],
    ['http://user:secret@example.com/', 'invalid_url'],
    ['/relative', 'invalid_url'],
    [`https://example.com/${'a'.repeat(5000)}`, 'invalid_url'],
    ['https://example.com/x?y=1', null],
  ])('%s → %s', (url, code) => {
    expect(codeOf(() => parseTarget(url))).toBe(code);
  });

  it.each([
    [{ 'PAYMENT-SIGNATURE': 'x' }, 'invalid_header'],
    [{ 'x-payment': 'x' }, 'invalid_header'],
    [{ Host: 'evil.example' }, 'invalid_header'],
    [{ 'Transfer-Encoding': 'chunked' }, 'invalid_header'],
    [{ 'bad name': 'x' }, 'invalid_header'],
    [{ accept: 'a\r\nx-payment: forged' }, 'invalid_header'],
    [Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`x-h${i}`, 'v'])), 'invalid_header'],
    [{ accept: 'application/json', authorization: 'Bearer agent-token' }, null],
  ])('headers %j → %s', (headers, code) => {
    expect(codeOf(() => requestInit({ url: 'https://example.com/', headers }))).toBe(code);
  });

  it('a body only with a method that has one, and bounded', () => {
    expect(codeOf(() => requestInit({ url: 'https://e.x/', body: 'x' }))).toBe('invalid_body');
    expect(
      codeOf(() =>
        requestInit({ url: 'https://e.x/', method: 'POST', body: 'x'.repeat(64 * 1024 + 1) }),
      ),
    ).toBe('invalid_body');
    expect(requestInit({ url: 'https://e.x/', method: 'POST', body: '{}' })).toMatchObject({
      method: 'POST',
      body: '{}',
    });
  });
});

describe('bodies', () => {
  it('reads up to the bound, and says it cut', async () => {
    expect(await readBounded(new Response('hello world'), 5)).toEqual({
      bytes: new TextEncoder().encode('hello'),
      truncated: true,
    });
    expect(await readBounded(new Response('hello'), 5)).toEqual({
      bytes: new TextEncoder().encode('hello'),
      truncated: false,
    });
    expect(await readBounded(new Response(null), 5)).toEqual({
      bytes: new Uint8Array(0),
      truncated: false,
    });
  });
  it('text for textual types, base64 otherwise', () => {
    const bytes = new Uint8Array([0xff, 0x00, 0x41]);
    expect(
      bodyText(new TextEncoder().encode('{"a":1}'), 'application/json; charset=utf-8'),
    ).toEqual({ body: '{"a":1}', encoding: 'utf8' });
    expect(bodyText(new TextEncoder().encode('<x/>'), 'application/atom+xml')).toEqual({
      body: '<x/>',
      encoding: 'utf8',
    });
    expect(bodyText(bytes, 'image/png')).toEqual({
      body: Buffer.from(bytes).toString('base64'),
      encoding: 'base64',
    });
    expect(bodyText(bytes, '')).toEqual({
      body: Buffer.from(bytes).toString('base64'),
      encoding: 'base64',
    });
  });
});

describe('merchantFetch on loopback', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect')
        return res.writeHead(302, { location: 'http://elsewhere.example/pay' }).end();
      if (req.url === '/big402') {
        res.writeHead(402, { 'content-type': 'application/json' });
        return res.end('x'.repeat(MAX_402_BODY_BYTES + 10));
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('returns a redirect instead of following it', async () => {
    const response = await merchantFetch()(`${base}/redirect`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('http://elsewhere.example/pay');
  });
  it('cuts an oversized 402 body (its requirements travel in a header)', async () => {
    const response = await merchantFetch()(`${base}/big402`);
    expect(response.status).toBe(402);
    expect(await response.text()).toBe('');
  });
});

describe("a merchant's 402", () => {
  const option = (extra: Record<string, unknown> = {}, over: Record<string, unknown> = {}) => ({
    scheme: 'priv-stark/v1',
    network: 'shielded:devnet',
    asset: 'dUSD',
    amount: '10000',
    payTo: 'pstark1abc',
    maxTimeoutSeconds: 300,
    extra: { resourceId: 'GET /x', ...extra },
    ...over,
  });
  const respond = (header: string) =>
    new Response(null, { status: 402, headers: { 'PAYMENT-REQUIRED': header } });
  const required = (accepts: unknown[]) =>
    respond(
      encodePaymentRequiredHeader({
        x402Version: 2,
        accepts,
        resource: { url: 'http://x/' },
      } as never),
    );

  it("lists the options and picks the one x402's client pays (authorization or no flow first)", () => {
    const info = readPaymentRequired(
      required([
        option({}, { scheme: 'exact', network: 'eip155:8453' }),
        option({ paymentFlow: 'upfront' }),
        option({ paymentFlow: 'authorization' }),
      ]),
    );
    expect(info.options).toHaveLength(3);
    expect(info.options[1]).toMatchObject({
      scheme: 'priv-stark/v1',
      amount: '10000',
      pay_to: 'pstark1abc',
      resource_id: 'GET /x',
      payment_flow: 'upfront',
    });
    expect(payableIndex(info.options, 'shielded:devnet')).toBe(2);
    expect(payableIndex(info.options.slice(0, 2), 'shielded:devnet')).toBe(1);
    expect(payableIndex(info.options, 'shielded:other')).toBe(-1);
  });

  it('does not pick an option with a bad amount, timeout or unknown flow', () => {
    for (const bad of [
      option({}, { amount: '1e3' }),
      option({}, { amount: '-1' }),
      option({}, { maxTimeoutSeconds: 0 }),
      option({ paymentFlow: 'later' }),
    ]) {
      expect(payableIndex(readPaymentRequired(required([bad])).options, 'shielded:devnet')).toBe(
        -1,
      );
    }
  });

  it('bounds what the merchant wrote', () => {
    const info = readPaymentRequired(
      required([option({}, { payTo: 'p'.repeat(10_000), network: 'n'.repeat(500) })]),
    );
    expect(info.options[0]!.pay_to).toHaveLength(200);
    expect(info.options[0]!.network).toHaveLength(100);
  });

  it.each([
    ['no header', new Response(null, { status: 402 })],
    ['not base64', respond('%%%')],
    ['JSON null', respond(Buffer.from('null').toString('base64'))],
    ['no options', respond(Buffer.from('{"x402Version":2}').toString('base64'))],
  ])('refuses %s with invalid_payment_required', (_name, response) => {
    expect(codeOf(() => readPaymentRequired(response))).toBe('invalid_payment_required');
  });
});
