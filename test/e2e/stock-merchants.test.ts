// Compact payments through stock infrastructure on its defaults (issue 14), with real parts only:
// stock @x402/express on http.createServer(app), stock @x402/hono on @hono/node-server's serve(),
// this project's Fastify plugin on Fastify(), each with no options, and the Express merchant behind
// Debian's nginx on its default header buffers — all paid through the stock @x402/fetch
// (payingFetch) from wallets synced with the real pool node, settled by the real facilitator.
// Each: 200, the price in the merchant's wallet from the pool's log, a PAYMENT-SIGNATURE within
// COMPACT_HEADER_MAX_BYTES. Must-fail twins: the same merchants refuse an inline payment (Node 431,
// nginx 400) when the payer forces inline without the fallback; with it, the refused inline
// payment turns compact and is paid under its one pending record. nginx comes from
// scripts/system-deps.sh; without it the nginx cases are skipped with a warning, except under
// CI=true or PRIV_STARK_REQUIRE_NGINX=1, where a missing nginx fails.

import { createServer } from 'node:http';

import { x402Client } from '@x402/core/client';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { x402ResourceServer } from '@x402/core/server';
import type { PaymentPayloadResult, PaymentRequirements } from '@x402/core/types';
import { paymentMiddleware as expressPayment } from '@x402/express';
import { wrapFetchWithPayment } from '@x402/fetch';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  compactFallback,
  PAYMENT_SIGNATURE_HEADER,
  PaymentHeaderTooLargeError,
  payingFetch,
  PrivStarkSchemeClient,
  Wallet,
} from '../../src/client/index.js';
import { loadCore } from '../../src/core/index.js';
import {
  COMPACT_HEADER_MAX_BYTES,
  type PaymentRequirements as ProfileRequirements,
} from '../../src/scheme/index.js';
import {
  MERCHANT_MAX_HEADER_BYTES,
  PrivStarkFacilitatorClient,
  PrivStarkSchemeServer,
  privStarkRoutes,
} from '../../src/server/index.js';
import { nginxPath, startNginx } from '../../testkit/nginx.js';
import {
  API_KEY,
  expressMerchant,
  fastifyMerchant,
  honoMerchant,
  type Merchant,
  type MerchantOptions,
  PRICE_ATOMIC,
  type Stack,
  startStack,
} from '../../testkit/stack.js';

const NGINX_REQUIRED = process.env.CI === 'true' || process.env.PRIV_STARK_REQUIRE_NGINX === '1';
const nginxAvailable = nginxPath() !== null || NGINX_REQUIRED;
if (!nginxAvailable)
  process.stderr.write(
    'stock-merchants.test.ts: no nginx found (apt-get install nginx, or NGINX_PATH): its cases skipped\n',
  );

/** Node's default limit of all request headers (http.maxHeaderSize). */
const NODE_DEFAULT_HEADER_BYTES = 16 * 1024;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack(await loadCore());
});
afterAll(async () => {
  await stack?.close();
});

/** A fetch that records the PAYMENT-SIGNATURE header of every request it sends. */
function capturing(inner: typeof fetch = globalThis.fetch) {
  const sent: string[] = [];
  const wrapped: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    const header = request.headers.get(PAYMENT_SIGNATURE_HEADER);
    if (header !== null) sent.push(header);
    return inner(request);
  };
  return { fetch: wrapped, sent };
}

/** Bytes a header takes on the wire: name, `: `, value. */
const headerBytes = (value: string) => PAYMENT_SIGNATURE_HEADER.length + 2 + value.length;

/** The priv-stark payload a PAYMENT-SIGNATURE carries. */
const payloadOf = (value: string) =>
  decodePaymentSignatureHeader(value).payload as {
    nullifier: string;
    proof?: string;
    proofRef?: string;
  };

/** The scheme client with the transport forced inline, whatever the merchant lists. */
class InlineScheme extends PrivStarkSchemeClient {
  override async createPaymentPayload(
    x402Version: number,
    requirements: PaymentRequirements,
  ): Promise<PaymentPayloadResult> {
    const payload = await this.wallet.createPayment(
      requirements as unknown as ProfileRequirements,
      { transport: 'inline' },
    );
    return { x402Version, payload: { ...payload } };
  }
}

/** The stock @x402/fetch paying inline, over `inner` — with or without the compact fallback. */
function inlinePaying(wallet: Wallet, inner: typeof fetch, fallback: boolean): typeof fetch {
  const client = new x402Client().register('shielded:devnet', new InlineScheme(wallet));
  return wrapFetchWithPayment(fallback ? compactFallback(wallet, inner) : inner, client);
}

/** The Express merchant behind nginx (nginx's defaults; the merchant's own options). */
async function nginxMerchant(
  facilitatorUrl: string,
  payTo: string,
  options: MerchantOptions = {},
): Promise<Merchant> {
  const merchant = await expressMerchant(facilitatorUrl, payTo, options);
  const proxy = await startNginx(merchant.url).catch(async (error: unknown) => {
    await merchant.close();
    throw error;
  });
  return {
    ...merchant,
    url: proxy.url,
    close: async () => {
      await proxy.close();
      await merchant.close();
    },
  };
}

type MakeMerchant = (
  facilitatorUrl: string,
  payTo: string,
  options?: MerchantOptions,
) => Promise<Merchant>;

/** Records of the wallet's payments with this nullifier. */
const recordsOf = (wallet: Wallet, nullifier: string) =>
  wallet.payments().filter((p) => p.nullifier === nullifier);

const merchants: [name: string, make: MakeMerchant, refusal: number, skip: boolean][] = [
  ['stock @x402/express on http.createServer(app)', expressMerchant, 431, false],
  ["stock @x402/hono on @hono/node-server's serve()", honoMerchant, 431, false],
  ["the Fastify plugin on Fastify's defaults", fastifyMerchant, 431, false],
  ["stock @x402/express behind nginx's defaults", nginxMerchant, 400, !nginxAvailable],
];

for (const [name, make, refusal, skip] of merchants) {
  describe.skipIf(skip)(name, () => {
    let payer: Wallet;
    let merchantWallet: Wallet;
    let merchant: Merchant;
    beforeAll(async () => {
      payer = await stack.wallet();
      merchantWallet = await stack.wallet();
      merchant = await make(stack.facilitatorUrl, merchantWallet.address);
      // Three notes: the refused inline payment locks one until its expiry.
      for (const amount of ['40000', '40000', '40000']) {
        const ticket = await payer.depositTicket(amount);
        await stack.operator.deposit(ticket.amount, ticket.pre);
      }
      await stack.settle(payer);
    }, 60_000);
    afterAll(async () => {
      await merchant?.close();
    });

    it('is paid compactly through payingFetch: 200, the price in its wallet, a header within 4096 bytes', async () => {
      const sent = capturing();
      const response = await payingFetch(payer, { fetch: sent.fetch })(`${merchant.url}/weather`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ weather: 'sunny' });
      expect(sent.sent).toHaveLength(1);
      const header = sent.sent[0]!;
      expect(headerBytes(header)).toBeLessThanOrEqual(COMPACT_HEADER_MAX_BYTES);
      expect(payloadOf(header).proofRef).toMatch(/^0x[0-9a-f]{64}$/);
      expect(payloadOf(header).proof).toBeUndefined();
      expect(merchant.settled).toEqual(['reference']);
      await stack.settle(payer, merchantWallet);
      expect(merchantWallet.balance().total).toBe(PRICE_ATOMIC);
      expect(recordsOf(payer, payloadOf(header).nullifier)).toEqual([
        expect.objectContaining({ status: 'settled' }),
      ]);
    });

    it(`refuses an inline payment (${refusal}) when the payer forces inline without the fallback`, async () => {
      const sent = capturing();
      const settles = merchant.calls.settle;
      const response = await inlinePaying(payer, sent.fetch, false)(`${merchant.url}/weather`);
      expect(response.status).toBe(refusal);
      await response.body?.cancel();
      expect(sent.sent).toHaveLength(1);
      expect(headerBytes(sent.sent[0]!)).toBeGreaterThan(NODE_DEFAULT_HEADER_BYTES);
      expect(payloadOf(sent.sent[0]!).proof).toBeDefined();
      // Nothing reached the facilitator; the payment left the wallet, so it stays pending.
      expect(merchant.calls.settle).toBe(settles);
      expect(recordsOf(payer, payloadOf(sent.sent[0]!).nullifier)).toEqual([
        expect.objectContaining({ status: 'pending' }),
      ]);
    });

    it('with the fallback, the refused inline payment turns compact and is paid under its one pending record', async () => {
      const sent = capturing();
      const records = payer.payments().length;
      const received = merchantWallet.balance().total;
      const response = await inlinePaying(payer, sent.fetch, true)(`${merchant.url}/weather`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ weather: 'sunny' });
      // The inline attempt, then the same payment compactly: one nullifier, one record.
      expect(sent.sent).toHaveLength(2);
      const [inline, compact] = sent.sent.map(payloadOf);
      expect(inline!.proof).toBeDefined();
      expect(compact!.proofRef).toMatch(/^0x[0-9a-f]{64}$/);
      expect(compact!.nullifier).toBe(inline!.nullifier);
      expect(headerBytes(sent.sent[1]!)).toBeLessThanOrEqual(COMPACT_HEADER_MAX_BYTES);
      expect(payer.payments()).toHaveLength(records + 1);
      expect(recordsOf(payer, inline!.nullifier)).toEqual([
        expect.objectContaining({ status: 'pending' }),
      ]);
      expect(merchant.settled.at(-1)).toBe('reference');
      await stack.settle(payer, merchantWallet);
      expect(recordsOf(payer, inline!.nullifier)).toEqual([
        expect.objectContaining({ status: 'settled' }),
      ]);
      expect(merchantWallet.balance().total).toBe(received + PRICE_ATOMIC);
    });
  });
}

describe('merchants that list inline behind stock limits: payingFetch falls back by default', () => {
  const cases: [string, MakeMerchant, MerchantOptions, number, boolean][] = [
    [
      'stock @x402/express on Node’s default limit',
      expressMerchant,
      { proofTransports: ['inline', 'reference'] },
      431,
      false,
    ],
    [
      'stock @x402/express with raised limits behind nginx’s defaults',
      nginxMerchant,
      { proofTransports: ['inline', 'reference'], maxHeaderSize: MERCHANT_MAX_HEADER_BYTES },
      400,
      !nginxAvailable,
    ],
  ];
  for (const [name, make, options, refusal, skip] of cases) {
    it.skipIf(skip)(
      `${name}: inline refused (${refusal}), then paid compactly under one record`,
      async () => {
        const payer = await stack.wallet();
        const merchantWallet = await stack.wallet();
        const merchant = await make(stack.facilitatorUrl, merchantWallet.address, options);
        try {
          await stack.fund(payer, '40000');
          // The refusal itself, seen under the fallback.
          const statuses: number[] = [];
          const sent = capturing(async (input, init) => {
            const response = await fetch(input, init);
            statuses.push(response.status);
            return response;
          });
          const response = await payingFetch(payer, { fetch: sent.fetch })(
            `${merchant.url}/weather`,
          );
          expect(response.status).toBe(200);
          expect(statuses).toEqual([402, refusal, 200]);
          expect(sent.sent.map((h) => (payloadOf(h).proofRef ? 'reference' : 'inline'))).toEqual([
            'inline',
            'reference',
          ]);
          expect(headerBytes(sent.sent[1]!)).toBeLessThanOrEqual(COMPACT_HEADER_MAX_BYTES);
          expect(payer.payments()).toEqual([expect.objectContaining({ status: 'pending' })]);
          expect(merchant.settled).toEqual(['reference']);
          await stack.settle(payer, merchantWallet);
          expect(payer.payments()).toEqual([expect.objectContaining({ status: 'settled' })]);
          expect(merchantWallet.balance().total).toBe(PRICE_ATOMIC);
        } finally {
          await merchant.close();
        }
      },
    );
  }

  it("hands over only the wallet's own pending payments: another wallet's inline header refused 431 is an error, nothing handed over", async () => {
    const payer = await stack.wallet();
    const other = await stack.wallet();
    const merchant = await expressMerchant(stack.facilitatorUrl, (await stack.wallet()).address, {
      proofTransports: ['inline', 'reference'],
    });
    try {
      await stack.fund(other, '40000');
      // The other wallet's inline payment, as its own header.
      const sent = capturing();
      const refused = await inlinePaying(other, sent.fetch, false)(`${merchant.url}/weather`);
      expect(refused.status).toBe(431);
      await refused.body?.cancel();
      const header = sent.sent[0]!;
      const proofs = await stack.service.ledger.store.proofCount();
      const error = await compactFallback(payer)(`${merchant.url}/weather`, {
        headers: { [PAYMENT_SIGNATURE_HEADER]: header },
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PaymentHeaderTooLargeError);
      expect(error).toMatchObject({ transport: 'inline' });
      expect((error as Error).message).toMatch(/431.*inline/);
      expect(payer.payments()).toEqual([]);
      expect(await stack.service.ledger.store.proofCount()).toBe(proofs);
      expect(merchant.calls.settle).toBe(0);
    } finally {
      await merchant.close();
    }
  });
});

describe('the route helper bounds what every compact header carries', () => {
  const payTo = 'pstark1merchant';
  /** A route key of `bytes` UTF-8 bytes. */
  const keyOf = (bytes: number) => `GET /${'r'.repeat(bytes - 5)}`;
  /** A description that JSON writes in `bytes` bytes: multi-byte characters and escapes. */
  const descriptionOf = (bytes: number) => {
    const text = `"\u0001${'€'.repeat(80)}`; // 2 + 6 + 240 bytes as JSON
    return text + 'd'.repeat(bytes - 248);
  };

  it('refuses a resource id over 256 bytes and a description over ROUTE_DESCRIPTION_MAX_BYTES', () => {
    expect(() => privStarkRoutes({ [keyOf(257)]: { payTo, price: '$0.01' } })).toThrow(
      /resource id, at most 256 bytes in UTF-8, got 257/,
    );
    expect(() =>
      privStarkRoutes({ 'GET /x': { payTo, price: '$0.01', description: descriptionOf(257) } }),
    ).toThrow(/at most 256 bytes \(as JSON, in UTF-8\), got 257/);
    // Counted as JSON writes it: 43 control characters are 258 bytes there, 43 in UTF-8.
    expect(() =>
      privStarkRoutes({ 'GET /x': { payTo, price: '$0.01', description: '\u0001'.repeat(43) } }),
    ).toThrow(/got 258/);
    expect(
      Object.keys(
        privStarkRoutes({
          [keyOf(256)]: { payTo, price: '$0.01', description: descriptionOf(256) },
        }),
      ),
    ).toEqual([keyOf(256)]);
  });

  it('at those bounds, on a stock Express merchant with no options, the compact header stays within 4096 bytes', async () => {
    const payer = await stack.wallet();
    const merchantWallet = await stack.wallet();
    const key = keyOf(256);
    const app = express();
    app.use(
      expressPayment(
        privStarkRoutes({
          [key]: { payTo: merchantWallet.address, price: '$0.01', description: descriptionOf(256) },
        }),
        new x402ResourceServer(
          new PrivStarkFacilitatorClient({ url: stack.facilitatorUrl, apiKey: API_KEY }),
        ).register('shielded:devnet', new PrivStarkSchemeServer()),
      ),
    );
    app.get(key.slice(4), (_request, response) => {
      response.json({ paid: true });
    });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      await stack.fund(payer, '40000');
      const sent = capturing();
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}${key.slice(4)}`;
      const response = await payingFetch(payer, { fetch: sent.fetch })(url);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ paid: true });
      const envelope = decodePaymentSignatureHeader(sent.sent[0]!);
      expect(envelope.resource).toMatchObject({ url, description: descriptionOf(256) });
      expect(envelope.accepted.extra).toMatchObject({ resourceId: key });
      expect(headerBytes(sent.sent[0]!)).toBeLessThanOrEqual(COMPACT_HEADER_MAX_BYTES);
      await stack.settle(payer, merchantWallet);
      expect(merchantWallet.balance().total).toBe(PRICE_ATOMIC);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("a merchant's own 400 to a payment it settled is returned as is, never paid again", () => {
  /** Express taking inline payments (limit raised) whose `GET /broken` settles, then answers 400. */
  async function brokenMerchant(payTo: string) {
    const app = express();
    app.use(
      expressPayment(
        privStarkRoutes({ 'GET /broken': { payTo, price: '$0.01' } }),
        new x402ResourceServer(
          new PrivStarkFacilitatorClient({ url: stack.facilitatorUrl, apiKey: API_KEY }),
        ).register(
          'shielded:devnet',
          new PrivStarkSchemeServer({ proofTransports: ['inline', 'reference'] }),
        ),
      ),
    );
    app.get('/broken', (_request, response) => {
      response.status(400).json({ error: 'the handler failed' });
    });
    const server = createServer({ maxHeaderSize: MERCHANT_MAX_HEADER_BYTES }, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return {
      url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  const cases: [string, boolean, boolean][] = [
    ['with its PAYMENT-RESPONSE: no hand-over, no second request', false, false],
    [
      'behind nginx dropping PAYMENT-RESPONSE: the hand-over finds the nullifier spent, no second request',
      true,
      !nginxAvailable,
    ],
  ];
  for (const [name, proxied, skip] of cases) {
    it.skipIf(skip)(name, async () => {
      // The wallet's hand-overs, counted on their way to the pool node.
      const handOvers: number[] = [];
      const payer = await Wallet.create({
        core: stack.service.core,
        pool: stack.poolUrl,
        handOverFetch: async (input, init) => {
          const response = await fetch(input, init);
          handOvers.push(response.status);
          return response;
        },
      });
      const merchantWallet = await stack.wallet();
      const merchant = await brokenMerchant(merchantWallet.address);
      const proxy = proxied
        ? await startNginx(merchant.url, {
            server: ['large_client_header_buffers 4 256k;', 'proxy_hide_header PAYMENT-RESPONSE;'],
          })
        : null;
      try {
        await stack.fund(payer, '40000');
        const sent = capturing();
        const response = await payingFetch(payer, { fetch: sent.fetch })(
          `${proxy?.url ?? merchant.url}/broken`,
        );
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({ error: 'the handler failed' });
        expect(response.headers.has('payment-response')).toBe(!proxied);
        // One inline payment, settled by the merchant before its handler failed; nothing sent again.
        expect(sent.sent).toHaveLength(1);
        expect(payloadOf(sent.sent[0]!).proof).toBeDefined();
        // Without the merchant's PAYMENT-RESPONSE, the pool node's answer tells: already spent.
        expect(handOvers).toEqual(proxied ? [409] : []);
        await stack.settle(payer, merchantWallet);
        expect(payer.payments()).toEqual([expect.objectContaining({ status: 'settled' })]);
        expect(merchantWallet.balance().total).toBe(PRICE_ATOMIC);
      } finally {
        await proxy?.close();
        await merchant.close();
      }
    });
  }
});
