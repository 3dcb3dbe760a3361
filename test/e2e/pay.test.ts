// End to end on loopback with the stock packages: @x402/fetch pays (through this project's scheme
// client and wallet), @x402/express and @x402/hono charge (through this project's scheme server
// and facilitator client), the facilitator and the devnet pool node run as `priv-stark start` runs
// them. Both flows on both frameworks, compactly (the merchants' default): 200 with a
// PAYMENT-RESPONSE whose settlement is in the pool, balances move from the pool's log, and the
// merchant spends what it received at a second merchant. A merchant that opts into inline payments
// (and raises its header limit) is paid inline; one that refuses even the compact header gets a
// clear error. test/e2e/stock-merchants.test.ts has the merchants on stock limits and behind nginx.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  PAYMENT_SIGNATURE_HEADER,
  PaymentHeaderTooLargeError,
  payingFetch,
  settlementOf,
  Wallet,
} from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { settlementId } from '../../src/ledger/index.js';
import { COMPACT_HEADER_MAX_BYTES } from '../../src/scheme/index.js';
import { MERCHANT_MAX_HEADER_BYTES } from '../../src/server/index.js';
import {
  expressMerchant,
  fastifyMerchant,
  honoMerchant,
  type Merchant,
  PRICE_ATOMIC,
  type Stack,
  startStack,
} from '../../testkit/stack.js';

let core: PrivStarkCore;
let stack: Stack;

beforeAll(async () => {
  core = await loadCore();
  stack = await startStack(core);
});
afterAll(async () => {
  await stack?.close();
});

const frameworks = [
  ['express', expressMerchant],
  ['hono', honoMerchant],
  ['fastify', fastifyMerchant],
] as const;
const routes = [
  ['/weather', 'upfront'],
  ['/report', 'authorization'],
] as const;

describe.each(frameworks)('%s merchant', (_name, makeMerchant) => {
  let payer: Wallet;
  let merchantWallet: Wallet;
  let merchant: Merchant;
  beforeAll(async () => {
    payer = await stack.wallet();
    merchantWallet = await stack.wallet();
    merchant = await makeMerchant(stack.facilitatorUrl, merchantWallet.address);
    await stack.fund(payer, '100000');
    await stack.fund(payer, '50000');
  });
  afterAll(async () => {
    await merchant?.close();
  });

  it('answers 402 with priv-stark/v1 requirements bound to the route', async () => {
    const response = await fetch(`${merchant.url}/weather`);
    expect(response.status).toBe(402);
    const required = JSON.parse(
      Buffer.from(response.headers.get('payment-required')!, 'base64').toString('utf8'),
    );
    expect(required.accepts).toEqual([
      expect.objectContaining({
        scheme: 'priv-stark/v1',
        network: 'shielded:devnet',
        asset: 'dUSD',
        amount: PRICE_ATOMIC.toString(),
        payTo: merchantWallet.address,
        extra: expect.objectContaining({ resourceId: 'GET /weather' }),
      }),
    ]);
  });

  it.each(routes)(
    'pays %s (%s flow) in one call; the settlement is in the pool',
    async (path, flow) => {
      const before = payer.balance().total;
      const calls = { ...merchant.calls };
      const received = merchantWallet.balance().total;
      const pay = payingFetch(payer);
      const response = await pay(`${merchant.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toHaveProperty(path === '/weather' ? 'weather' : 'report');
      // upfront: only /settle, before the handler; authorization: /verify, handler, /settle.
      expect(merchant.calls.verify - calls.verify).toBe(flow === 'upfront' ? 0 : 1);
      expect(merchant.calls.settle - calls.settle).toBe(1);
      // The merchant lists only `reference` (stock header limits): the proof was handed over.
      expect(merchant.settled.at(-1)).toBe('reference');
      const settlement = settlementOf(response);
      const pending = payer.payments().at(-1)!;
      expect(pending.status).toBe('pending');
      expect(settlement).toMatchObject({
        success: true,
        network: 'shielded:devnet',
        transaction: settlementId(pending.nullifier),
      });
      // The merchant's header moves nothing; the pool's log does.
      expect(payer.balance().total).toBe(before);
      await stack.settle(payer, merchantWallet);
      expect(payer.payments().at(-1)).toMatchObject({
        status: 'settled',
        settlementId: settlement!.transaction,
      });
      expect(payer.balance().total).toBe(before - PRICE_ATOMIC);
      expect(merchantWallet.balance().total).toBe(received + PRICE_ATOMIC);
    },
  );

  it("keeps x402's spend controls on: a price above the default $1 cap is refused before any proof", async () => {
    const payments = payer.payments().length;
    await expect(payingFetch(payer)(`${merchant.url}/premium`)).rejects.toThrow(
      /spendControls\.maxAmountPerPayment/,
    );
    expect(payer.payments()).toHaveLength(payments);
  });

  it('the merchant pays a second merchant with the note it received', async () => {
    const secondWallet = await stack.wallet();
    const second = await makeMerchant(stack.facilitatorUrl, secondWallet.address);
    try {
      await stack.settle(merchantWallet);
      const before = merchantWallet.balance().total;
      expect(before).toBeGreaterThanOrEqual(PRICE_ATOMIC);
      const response = await payingFetch(merchantWallet)(`${second.url}/weather`);
      expect(response.status).toBe(200);
      await stack.settle(merchantWallet, secondWallet);
      expect(merchantWallet.balance().total).toBe(before - PRICE_ATOMIC);
      expect(secondWallet.balance().total).toBe(PRICE_ATOMIC);
    } finally {
      await second.close();
    }
  });
});

describe('wallet and header size', () => {
  it('a wallet restored from its spending key alone finds the same balance and notes', async () => {
    const payer = await stack.wallet();
    const merchantWallet = await stack.wallet();
    const merchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address);
    try {
      await stack.fund(payer, '40000');
      // One note: its change becomes spendable once the pool's log shows the settlement and a checkpoint covers it.
      for (const path of ['/weather', '/report']) {
        expect((await payingFetch(payer)(`${merchant.url}${path}`)).status).toBe(200);
        await stack.settle(payer, merchantWallet);
      }
      for (const wallet of [payer, merchantWallet]) {
        const restored = await Wallet.create({ core, pool: stack.poolUrl, sk: wallet.spendingKey });
        await restored.sync();
        expect(restored.address).toBe(wallet.address);
        expect(restored.balance()).toEqual(wallet.balance());
        expect(
          restored
            .notes()
            .map((n) => n.commitment)
            .sort(),
        ).toEqual(
          wallet
            .notes()
            .map((n) => n.commitment)
            .sort(),
        );
      }
      expect(payer.balance().total).toBe(40000n - 2n * PRICE_ATOMIC);
    } finally {
      await merchant.close();
    }
  });

  it('a merchant that opts into inline payments (and raises its header limit) is paid inline', async () => {
    const payer = await stack.wallet();
    const merchantWallet = await stack.wallet();
    const merchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address, {
      proofTransports: ['inline', 'reference'],
      maxHeaderSize: MERCHANT_MAX_HEADER_BYTES,
    });
    try {
      await stack.fund(payer, '40000');
      const sent: string[] = [];
      const response = await payingFetch(payer, {
        fetch: (input, init) => {
          const request = new Request(input, init);
          const header = request.headers.get(PAYMENT_SIGNATURE_HEADER);
          if (header !== null) sent.push(header);
          return fetch(request);
        },
      })(`${merchant.url}/weather`);
      expect(response.status).toBe(200);
      // One request, the proof in it: far above Node's default 16 KiB.
      expect(sent).toHaveLength(1);
      expect(sent[0]!.length).toBeGreaterThan(16 * 1024);
      expect(merchant.settled).toEqual(['inline']);
      await stack.settle(payer, merchantWallet);
      expect(payer.payments()).toEqual([expect.objectContaining({ status: 'settled' })]);
      expect(merchantWallet.balance().total).toBe(PRICE_ATOMIC);
    } finally {
      await merchant.close();
    }
  });

  it('fails with a clear error when the merchant refuses even the compact header (431)', async () => {
    const payer = await stack.wallet();
    // A limit below any compact payment's headers (the unpaid request still fits).
    const merchant = await expressMerchant(stack.facilitatorUrl, (await stack.wallet()).address, {
      maxHeaderSize: 1024,
    });
    try {
      await stack.fund(payer, '40000');
      const error = await payingFetch(payer)(`${merchant.url}/weather`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PaymentHeaderTooLargeError);
      expect(error).toMatchObject({ transport: 'reference', code: 'payment_header_too_large' });
      const bytes = (error as PaymentHeaderTooLargeError).headerBytes;
      expect(bytes).toBeGreaterThan(1024);
      expect(bytes).toBeLessThanOrEqual(COMPACT_HEADER_MAX_BYTES);
      expect((error as Error).message).toMatch(
        /431 even to the \d+-byte compact PAYMENT-SIGNATURE/,
      );
      // The payment never reached the merchant: nothing was served or settled. It left the wallet
      // (handed over), so it stays pending until the pool's log resolves it.
      expect(merchant.calls.settle).toBe(0);
      expect(merchant.served.size).toBe(0);
      expect(payer.payments()).toEqual([expect.objectContaining({ status: 'pending' })]);
    } finally {
      await merchant.close();
    }
  });
});
