// A merchant on stock @x402/next 2.25 (its own @x402/core 2.25, not this package's 2.27): the
// real Next.js app in examples/next-merchant/, built with `next build` and run with `next start`
// on loopback against the real facilitator and pool node, charging GET /weather with this
// project's scheme server and facilitator client. Paid with the stock @x402/fetch
// (`payingFetch`): Next keeps Node's 16 KiB header limit, so only a compact payment (a proof
// reference in the header) gets through. 200, the header under 4 KiB, the merchant's wallet holds
// exactly the price; twins: the same payment again is refused and moves nothing, a proof-sized
// header is refused by Next itself before any payment code runs.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PAYMENT_SIGNATURE_HEADER, payingFetch, type Wallet } from '../../src/client/index.js';
import { loadCore } from '../../src/core/index.js';
import {
  NEXT_MERCHANT_DIR,
  type NextMerchant,
  startNextMerchant,
} from '../../testkit/next-merchant.js';
import { API_KEY, PRICE_ATOMIC, type Stack, startStack } from '../../testkit/stack.js';

let stack: Stack;
let merchantWallet: Wallet;
let merchant: NextMerchant;

beforeAll(async () => {
  stack = await startStack(await loadCore());
  merchantWallet = await stack.wallet();
  merchant = await startNextMerchant({
    facilitatorUrl: stack.facilitatorUrl,
    apiKey: API_KEY,
    payTo: merchantWallet.address,
  });
}, 900_000);
afterAll(async () => {
  await merchant?.close();
  await stack?.close();
});

const versionOf = (path: string) =>
  (
    JSON.parse(readFileSync(join(NEXT_MERCHANT_DIR, 'node_modules', path), 'utf8')) as {
      version: string;
    }
  ).version;

/** `fetch` that records the payment headers it sends. */
function recordingFetch(sent: string[]): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    const header = request.headers.get(PAYMENT_SIGNATURE_HEADER);
    if (header !== null) sent.push(header);
    return fetch(request);
  };
}

describe('Next.js merchant on stock @x402/next 2.25', () => {
  it('runs @x402/next 2.25 with its own @x402/core 2.25, and Next 16', () => {
    expect(versionOf('@x402/next/package.json')).toBe('2.25.0');
    expect(versionOf('@x402/core/package.json')).toMatch(/^2\.25\./);
    expect(versionOf('next/package.json')).toMatch(/^16\./);
  });

  it('answers 402 with priv-stark/v1 requirements that ask for a compact payment', async () => {
    const response = await fetch(`${merchant.url}/weather`);
    expect(response.status, merchant.output()).toBe(402);
    const required = JSON.parse(
      Buffer.from(response.headers.get('payment-required')!, 'base64').toString('utf8'),
    ) as { accepts: { scheme: string; amount: string; extra: Record<string, unknown> }[] };
    expect(required.accepts).toHaveLength(1);
    expect(required.accepts[0]).toMatchObject({
      scheme: 'priv-stark/v1',
      amount: String(PRICE_ATOMIC),
      extra: { resourceId: 'GET /weather', proofTransports: ['reference'] },
    });
  });

  it('is paid compactly by stock @x402/fetch: 200, the header under 4 KiB, the merchant holds the price', async () => {
    const payer = await stack.wallet();
    await stack.fund(payer, '50000');
    const sent: string[] = [];
    const response = await payingFetch(payer, { fetch: recordingFetch(sent) })(
      `${merchant.url}/weather`,
    );
    expect(response.status, merchant.output()).toBe(200);
    expect(await response.json()).toEqual({ weather: 'sunny', temperature: 21 });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.length + PAYMENT_SIGNATURE_HEADER.length + 2).toBeLessThanOrEqual(4096);
    const payment = JSON.parse(Buffer.from(sent[0]!, 'base64').toString('utf8')) as {
      payload: Record<string, unknown>;
    };
    expect(payment.payload.proofRef).toMatch(/^0x[0-9a-f]{64}$/);
    expect(payment.payload.proof).toBeUndefined();

    await stack.settle(payer, merchantWallet);
    expect(merchantWallet.balance().total).toBe(PRICE_ATOMIC);
    expect(payer.balance().total).toBe(50000n - PRICE_ATOMIC);

    // Twin: the same payment again is refused, serves nothing and moves nothing.
    const replay = await fetch(`${merchant.url}/weather`, {
      headers: { [PAYMENT_SIGNATURE_HEADER]: sent[0]! },
    });
    expect(replay.status).toBe(402);
    expect(await replay.text()).not.toContain('sunny');
    await stack.settle(payer, merchantWallet);
    expect(merchantWallet.balance().total).toBe(PRICE_ATOMIC);
  });

  it('refuses a proof-sized header with 431 before any payment code runs (why it needs compact payments)', async () => {
    const inlineSized = Buffer.alloc(20 * 1024, 'A').toString();
    const response = await fetch(`${merchant.url}/weather`, {
      headers: { [PAYMENT_SIGNATURE_HEADER]: inlineSized },
    }).catch((error: unknown) => error as Error);
    expect(response instanceof Response ? response.status : response.message).toBe(431);
  });
});
