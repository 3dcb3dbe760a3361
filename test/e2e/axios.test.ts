// A payer on stock @x402/axios 2.11 (its own @x402/core 2.11, not this package's 2.27): the
// scheme client registered with `registerPrivStark` on *that* version's `x402Client`, axios
// wrapped by `wrapAxiosWithPayment`, paying a stock @x402/express 2.27 merchant on Node's default
// 16 KiB header limit — so only a compact payment (the proof handed over to the pool node, a
// reference in the header) gets through. 200, the header under 4 KiB, the merchant's wallet holds
// the price; twins: an unfunded wallet pays nothing, a payment for one route is refused at another.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { wrapAxiosWithPayment, x402Client } from '@x402/axios';
import { x402Client as OurX402Client } from '@x402/core/client';
import axios, { type AxiosError } from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  PAYMENT_SIGNATURE_HEADER,
  registerPrivStark,
  type Wallet,
} from '../../src/client/index.js';
import { loadCore } from '../../src/core/index.js';
import {
  expressMerchant,
  type Merchant,
  PRICE_ATOMIC,
  type Stack,
  startStack,
} from '../../testkit/stack.js';

/** Node's default request header limit, which stock merchants keep. */
const NODE_DEFAULT_MAX_HEADER = 16 * 1024;

let stack: Stack;
let merchantWallet: Wallet;
let merchant: Merchant;

beforeAll(async () => {
  stack = await startStack(await loadCore());
  merchantWallet = await stack.wallet();
  merchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address, {
    maxHeaderSize: NODE_DEFAULT_MAX_HEADER,
  });
});
afterAll(async () => {
  await merchant?.close();
  await stack?.close();
});

/** axios paying from `wallet` through @x402/axios, recording the payment headers it sends. */
function payingAxios(wallet: Wallet) {
  const sent: string[] = [];
  const api = axios.create();
  api.interceptors.request.use((config) => {
    const header = config.headers.get(PAYMENT_SIGNATURE_HEADER);
    if (typeof header === 'string') sent.push(header);
    return config;
  });
  return { api: wrapAxiosWithPayment(api, registerPrivStark(new x402Client(), wallet)), sent };
}

describe('@x402/axios 2.11 payer', () => {
  it('uses its own @x402/core 2.11, not this package’s', async () => {
    const fromAxios = createRequire(fileURLToPath(import.meta.resolve('@x402/axios'))).resolve(
      '@x402/core/client',
    );
    const root = /^(.*\/node_modules\/@x402\/axios\/node_modules\/@x402\/core)\//.exec(
      fromAxios,
    )?.[1];
    expect(root, fromAxios).toBeDefined();
    const { version } = JSON.parse(readFileSync(join(root!, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version).toMatch(/^2\.11\./);
    expect(x402Client).not.toBe(OurX402Client);
  });

  it('pays a stock merchant compactly: 200, the header under 4 KiB, the merchant holds the price', async () => {
    const payer = await stack.wallet();
    await stack.fund(payer, '50000');
    const { api, sent } = payingAxios(payer);
    const response = await api.get(`${merchant.url}/weather`);
    expect(response.status).toBe(200);
    expect(response.data).toEqual({ weather: 'sunny', by: 'express' });
    expect(sent).toHaveLength(1);
    const payment = JSON.parse(Buffer.from(sent[0]!, 'base64').toString('utf8')) as {
      payload: Record<string, unknown>;
    };
    expect(payment.payload.proofRef).toMatch(/^0x[0-9a-f]{64}$/);
    expect(payment.payload.proof).toBeUndefined();
    expect(sent[0]!.length + PAYMENT_SIGNATURE_HEADER.length + 2).toBeLessThanOrEqual(4096);
    expect(response.headers['payment-response']).toBeTypeOf('string');

    await stack.settle(payer, merchantWallet);
    expect(merchantWallet.balance().total).toBe(PRICE_ATOMIC);
    expect(payer.balance().total).toBe(50000n - PRICE_ATOMIC);
  });

  it('an unfunded wallet pays nothing: the request fails and the merchant serves nothing', async () => {
    const before = merchant.calls.settle;
    const served = merchant.served.get('GET /weather') ?? 0;
    const { api, sent } = payingAxios(await stack.wallet());
    const error = await api.get(`${merchant.url}/weather`).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/Failed to create payment payload/);
    expect(sent).toHaveLength(0);
    expect(merchant.calls.settle).toBe(before);
    expect(merchant.served.get('GET /weather') ?? 0).toBe(served);
  });

  it('a payment for one route is refused at another, and moves nothing', async () => {
    const payer = await stack.wallet();
    await stack.fund(payer, '50000');
    const { api, sent } = payingAxios(payer);
    expect((await api.get(`${merchant.url}/report`)).status).toBe(200);
    await stack.settle(payer, merchantWallet);
    const held = merchantWallet.balance().total;
    const served = merchant.served.get('GET /weather') ?? 0;
    const replay = await axios
      .get(`${merchant.url}/weather`, { headers: { [PAYMENT_SIGNATURE_HEADER]: sent[0]! } })
      .then(
        () => null,
        (e: AxiosError) => e.response?.status,
      );
    expect(replay).toBe(402);
    expect(merchant.served.get('GET /weather') ?? 0).toBe(served);
    await stack.settle(merchantWallet);
    expect(merchantWallet.balance().total).toBe(held);
  });
});
