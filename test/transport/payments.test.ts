// How payments hand their proof over (issue 25, part 1), with real parts on loopback: the service
// (facilitator and pool node), stock @x402/express merchants, wallets paying through the stock
// @x402/fetch (payingFetch). A merchant with the relay mounted in one line receives the hand-over
// and the wallet says no warning; a merchant that mounts nothing is still paid, the hand-over going
// directly with the warning event once for its origin; private-only refuses that merchant with
// no_private_transport and nothing recorded or spent, and its twin pays the relaying one.

import type { Server } from 'node:http';

import { x402ResourceServer } from '@x402/core/server';
import { paymentMiddleware } from '@x402/express';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  NoPrivateTransportError,
  payingFetch,
  type TransportWarning,
  type Wallet,
} from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import {
  PRIV_STARK_RELAY_PATH,
  PrivStarkFacilitatorClient,
  PrivStarkSchemeServer,
  privStarkRelay,
  privStarkRoutes,
} from '../../src/server/index.js';
import { API_KEY, PRICE_ATOMIC, type Stack, startStack } from '../../testkit/stack.js';

/**
 * Notes are spent as soon as they are funded: this test is about transports, not note ages (the
 * wallet's `notes` option, spread so the option is passed where the wallet has it).
 */
const YOUNG_NOTES_SPENDABLE: object = { notes: { spendNow: true } };

describe('hand-overs by relay, directly, or refused', () => {
  let core: PrivStarkCore;
  let stack: Stack;
  let merchantWallet: Wallet;
  const servers: Server[] = [];
  /** Hand-overs each merchant's relay received. */
  const relayed = { count: 0 };

  /** A stock express merchant of `GET /weather`, with the relay mounted or not. */
  async function merchant(withRelay: boolean): Promise<string> {
    const routes = privStarkRoutes({
      'GET /weather': { payTo: merchantWallet.address, price: '$0.01' },
    });
    const facilitator = new PrivStarkFacilitatorClient({
      url: stack.facilitatorUrl,
      apiKey: API_KEY,
    });
    const server = new x402ResourceServer(facilitator).register(
      'shielded:devnet',
      new PrivStarkSchemeServer(),
    );
    const app = express();
    if (withRelay) {
      const relay = privStarkRelay({ routes, poolNode: stack.poolUrl, apiKey: API_KEY });
      app.post(PRIV_STARK_RELAY_PATH, (request, response) => {
        relayed.count++;
        relay.node(request, response);
      });
    }
    app.use(paymentMiddleware(routes, server));
    app.get('/weather', (_request, response) => {
      response.json({ weather: 'sunny' });
    });
    const listening = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    servers.push(listening);
    return `http://127.0.0.1:${(listening.address() as { port: number }).port}`;
  }

  /** A funded wallet with its own options, its warnings collected. */
  async function payer(options: { privateOnly?: boolean } = {}) {
    const warnings: TransportWarning[] = [];
    const { Wallet } = await import('../../src/client/index.js');
    const wallet = await Wallet.create({
      ...YOUNG_NOTES_SPENDABLE,
      core,
      pool: stack.poolUrl,
      ...(options.privateOnly ? { transport: 'private-only' as const } : {}),
      onTransportWarning: (warning) => warnings.push(warning),
    });
    await stack.fund(wallet, '100000');
    return { wallet, warnings };
  }

  /** The requirements a merchant's 402 asks for. */
  async function requirementsOf(url: string): Promise<unknown> {
    const answer = await fetch(url);
    const header = answer.headers.get('payment-required')!;
    return (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { accepts: unknown[] })
      .accepts[0];
  }

  beforeAll(async () => {
    core = await loadCore();
    stack = await startStack(core);
    merchantWallet = await stack.wallet();
    // The environment's proxies stay out of this test's direct path.
    for (const name of [
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'ALL_PROXY',
      'http_proxy',
      'https_proxy',
      'all_proxy',
    ])
      delete process.env[name];
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await stack?.close();
  });

  it('relayed: paid with the hand-over at the merchant, no warning; mounting nothing: still paid, directly, the warning once per origin', async () => {
    const withRelay = await merchant(true);
    const bare = await merchant(false);
    const { wallet, warnings } = await payer();
    const pay = payingFetch(wallet);

    const first = await pay(`${withRelay}/weather`);
    expect(first.status).toBe(200);
    expect(relayed.count).toBe(1);
    expect(warnings).toEqual([]);

    // One note pays at a time: each change is spendable once settled.
    for (let i = 0; i < 2; i++) {
      await stack.settle(wallet, merchantWallet);
      expect((await pay(`${bare}/weather`)).status).toBe(200);
    }
    expect(relayed.count).toBe(1);
    expect(warnings.map((w) => [w.code, w.write, w.origin])).toEqual([
      ['direct_to_pool', 'hand-over', bare],
    ]);
    await stack.settle(wallet, merchantWallet);
    expect(wallet.balance().total).toBe(100_000n - 3n * PRICE_ATOMIC);
  }, 120_000);

  it('private-only: no relay, no inline, no proxy → no_private_transport with nothing recorded; the twin pays through the relay', async () => {
    const bare = await merchant(false);
    const withRelay = await merchant(true);
    const { wallet, warnings } = await payer({ privateOnly: true });
    // The stock wrapper rethrows the wallet's error by its message.
    const refused = await payingFetch(wallet)(`${bare}/weather`).catch((error: unknown) => error);
    expect(String(refused)).toMatch(/no private transport for this hand-over/);
    expect(String(refused)).toMatch(/--pool-proxy/);
    const direct = await wallet
      .createPayment((await requirementsOf(`${bare}/weather`)) as never, { resourceUrl: bare })
      .catch((error: unknown) => error);
    expect(direct).toBeInstanceOf(NoPrivateTransportError);
    expect((direct as NoPrivateTransportError).code).toBe('no_private_transport');
    expect(wallet.payments()).toEqual([]);
    expect(warnings).toEqual([]);
    const before = relayed.count;
    expect((await payingFetch(wallet)(`${withRelay}/weather`)).status).toBe(200);
    expect(relayed.count).toBe(before + 1);
    expect(warnings).toEqual([]);
  }, 120_000);
});
