// What leaves the merchant for the facilitator (docs/privacy.md, "Notes"): a real facilitator on
// loopback, behind a recording proxy that keeps every body it forwards. A stock merchant paid for
// `/weather?user=alice` sends `resource.url` without the query; the merchant's facilitator client
// handed a payload with a query, a fragment, a description and extensions sends none of them and
// the facilitator still checks that same payment (its nullifier already spent by the settlement); the twin — the stock HTTPFacilitatorClient through the same
// proxy — sends them all, so the recorder would see them. The wallet's fetch drops trace headers
// (a loopback server records the headers it receives; its twin, the plain fetch, carries them).

import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { payingFetch, withoutTraceHeaders } from '../../src/client/index.js';
import { loadCore } from '../../src/core/index.js';
import { PrivStarkFacilitatorClient } from '../../src/server/index.js';
import { facilitatorPayload, withoutQuery } from '../../src/server/facilitator-request.js';
import {
  API_KEY,
  expressMerchant,
  type Merchant,
  type Stack,
  startStack,
} from '../../testkit/stack.js';

/** A reverse proxy to `target` recording each request's path and body. */
async function recordingProxy(target: string) {
  const seen: { path: string; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ path: req.url ?? '', body: body.toString('utf8') });
      const out = httpRequest(
        `${target}${req.url}`,
        { method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('the facilitator client strips the resource', () => {
  it('withoutQuery and facilitatorPayload (pure)', () => {
    expect(withoutQuery('https://m.example/a/b?user=alice&q=1#frag')).toBe('https://m.example/a/b');
    expect(withoutQuery('/a?x#y')).toBe('/a');
    const payload = {
      x402Version: 2,
      resource: { url: 'https://m.example/a?x=1#f', description: 'secret', mimeType: 'text/plain' },
      accepted: {},
      payload: { p: 1 },
      extensions: { bazaar: { who: 'alice' } },
    } as unknown as PaymentPayload;
    expect(facilitatorPayload(payload)).toEqual({
      x402Version: 2,
      resource: { url: 'https://m.example/a', mimeType: 'text/plain' },
      accepted: {},
      payload: { p: 1 },
    });
    // The caller's object is left as it was.
    expect(payload.resource?.description).toBe('secret');
  });
});

describe('at a real facilitator on loopback', () => {
  let stack: Stack;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let merchant: Merchant;

  beforeAll(async () => {
    stack = await startStack(await loadCore());
    proxy = await recordingProxy(stack.facilitatorUrl);
    merchant = await expressMerchant(proxy.url, (await stack.wallet()).address);
  }, 120_000);
  afterAll(async () => {
    await merchant?.close();
    await proxy?.close();
    await stack?.close();
  });

  it('never receives the query, fragment, description or extensions; the stock client (the twin) sends them', async () => {
    const payer = await stack.wallet();
    await stack.fund(payer, '1000000');
    const response = await payingFetch(payer)(`${merchant.url}/weather?user=alice`);
    expect(response.status).toBe(200);
    const sent = proxy.seen.filter((s) => s.path === '/verify' || s.path === '/settle');
    expect(sent.length).toBeGreaterThanOrEqual(1);
    for (const s of sent) {
      expect(s.body).not.toContain('alice');
      const body = JSON.parse(s.body) as { paymentPayload: PaymentPayload };
      expect(body.paymentPayload.resource?.url).toBe(`${merchant.url}/weather`);
    }

    // The same payment, handed over with everything a caller might add.
    const first = JSON.parse(sent[0]!.body) as {
      paymentPayload: PaymentPayload;
      paymentRequirements: PaymentRequirements;
    };
    const loaded = {
      ...first.paymentPayload,
      resource: { url: `${merchant.url}/weather?user=alice#bob`, description: 'carol' },
      extensions: { trace: { who: 'dave' } },
    } as PaymentPayload;
    proxy.seen.length = 0;
    const ours = new PrivStarkFacilitatorClient({ url: proxy.url, apiKey: API_KEY });
    // The facilitator checks the same payment (settled already: its nullifier is spent).
    await expect(ours.verify(loaded, first.paymentRequirements)).rejects.toThrow(
      /nullifier_already_spent/,
    );
    expect(proxy.seen).toHaveLength(1);
    for (const name of ['alice', 'bob', 'carol', 'dave', 'extensions', 'description'])
      expect(proxy.seen[0]!.body).not.toContain(name);

    proxy.seen.length = 0;
    const stock = new HTTPFacilitatorClient({
      url: proxy.url,
      createAuthHeaders: async () => ({
        verify: { Authorization: `Bearer ${API_KEY}` },
        settle: {},
        supported: {},
      }),
    });
    await stock.verify(loaded, first.paymentRequirements).catch(() => undefined);
    for (const name of ['alice', 'bob', 'carol', 'dave'])
      expect(proxy.seen[0]!.body).toContain(name);
  }, 120_000);
});

describe("the wallet's requests carry no trace headers", () => {
  it('drops traceparent, tracestate, baggage, sentry-trace and b3; the plain fetch (the twin) carries them', async () => {
    const received: Record<string, string | string[] | undefined>[] = [];
    const server = createServer((req, res) => {
      received.push(req.headers);
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    const headers = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=1',
      baggage: 'user=alice',
      'sentry-trace': '0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1',
      b3: '80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1',
      'X-B3-TraceId': '80f198ee56343ba8',
      accept: 'application/json',
    };
    try {
      await withoutTraceHeaders(fetch)(url, { headers });
      await withoutTraceHeaders(fetch)(new Request(url, { headers }));
      await fetch(url, { headers });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    const traced = ['traceparent', 'tracestate', 'baggage', 'sentry-trace', 'b3', 'x-b3-traceid'];
    for (const got of received.slice(0, 2)) {
      for (const name of traced) expect(got[name]).toBeUndefined();
      expect(got.accept).toBe('application/json');
    }
    for (const name of traced) expect(received[2]![name]).toBeDefined();
  });
});
