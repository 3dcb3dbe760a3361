// End to end on loopback with the stock packages: @x402/fetch pays (through this project's scheme
// client and wallet), @x402/express and @x402/hono charge (through this project's scheme server
// and facilitator client), the facilitator and the devnet pool node run as `priv-stark start` runs
// them. Both flows on both frameworks: 200 with a PAYMENT-RESPONSE whose settlement is in the
// pool, balances move from the pool's log, and the merchant spends what it received at a second
// merchant.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { payingFetch, settlementOf, type Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { settlementId } from '../../src/pool/index.js';
import { expressMerchant, honoMerchant, type Merchant, PRICE_ATOMIC, type Stack, startStack } from './helpers/stack.js';

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
    merchant = await makeMerchant(stack.facilitator.url, merchantWallet.address);
    await stack.fund(payer, '100000');
    await stack.fund(payer, '50000');
  });
  afterAll(async () => {
    await merchant?.close();
  });

  it('answers 402 with priv-stark/v1 requirements bound to the route', async () => {
    const response = await fetch(`${merchant.url}/weather`);
    expect(response.status).toBe(402);
    const required = JSON.parse(Buffer.from(response.headers.get('payment-required')!, 'base64').toString('utf8'));
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

  it.each(routes)('pays %s (%s flow) in one call; the settlement is in the pool', async (path, _flow) => {
    const before = payer.balance().total;
    const received = merchantWallet.balance().total;
    const pay = payingFetch(payer);
    const response = await pay(`${merchant.url}${path}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveProperty(path === '/weather' ? 'weather' : 'report');
    const settlement = settlementOf(response);
    const pending = payer.payments().at(-1)!;
    expect(pending.status).toBe('pending');
    expect(settlement).toMatchObject({ success: true, network: 'shielded:devnet', transaction: settlementId(pending.nullifier) });
    // The merchant's header moves nothing; the pool's log does.
    expect(payer.balance().total).toBe(before);
    await stack.settle(payer, merchantWallet);
    expect(payer.payments().at(-1)).toMatchObject({ status: 'settled', settlementId: settlement!.transaction });
    expect(payer.balance().total).toBe(before - PRICE_ATOMIC);
    expect(merchantWallet.balance().total).toBe(received + PRICE_ATOMIC);
  });

  it('the merchant pays a second merchant with the note it received', async () => {
    const secondWallet = await stack.wallet();
    const second = await makeMerchant(stack.facilitator.url, secondWallet.address);
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
