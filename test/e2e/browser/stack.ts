/**
 * The stack a browser wallet meets, on loopback: the service as `priv-stark start` runs it (an API
 * key, a SQLite pool with a fast checkpoint timer, the devnet pool node with CORS for the shop's
 * origin), and the shop: stock `@x402/express` on Node's default header limit charging
 * `GET /weather` with this project's scheme server (compact payments only, its default) and
 * facilitator client, and serving the page that pays it (so the paid request is same-origin; the
 * pool node is read, and the proof handed over, cross-origin), and the browser example at
 * `/example/`. `POST /fund` plays the operator: it shields a deposit ticket the page made
 * (the operator token stays on the server).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { x402ResourceServer } from '@x402/core/server';
import { paymentMiddleware } from '@x402/express';
import express from 'express';

import { PoolNodeClient } from '../../../src/pool-node/index.js';
import type { ProofTransport } from '../../../src/scheme/index.js';
import {
  PrivStarkFacilitatorClient,
  PrivStarkSchemeServer,
  privStarkRoutes,
} from '../../../src/server/index.js';
import { SERVICE_DEFAULTS, startService } from '../../../src/service/index.js';
import { NO_EPOCH_GRID } from '../../../src/scheme/index.js';

const API_KEY = 'browser-e2e-api-key-0123456789';
const OPERATOR_TOKEN = 'browser-e2e-operator-0123456789';

export interface BrowserStack {
  readonly shopUrl: string;
  readonly poolUrl: string;
  readonly operator: PoolNodeClient;
  /** Requests the shop's `GET /weather` handler served. */
  served(): number;
  /** How the proof travelled in each payment the shop asked its facilitator to settle. */
  settled(): ProofTransport[];
  close(): Promise<void>;
}

/** A page: its HTML and its scripts by path (served beside it). */
export interface Page {
  readonly html: string;
  readonly files: Readonly<Record<string, string>>;
}

export interface ShopAssets {
  /** Served at `/` (`__CONFIG__` in its HTML becomes `{ pool }`). */
  readonly page: Page;
  /** examples/browser, served at `/example/`. */
  readonly example: Page;
  readonly wasm: Uint8Array;
}

export async function startBrowserStack(payTo: string, assets: ShopAssets): Promise<BrowserStack> {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-browser-'));
  const closers: (() => Promise<unknown>)[] = [
    async () => rmSync(dir, { recursive: true, force: true }),
  ];
  const close = async () => {
    for (const run of closers.splice(0).reverse()) await run().catch(() => undefined);
  };
  try {
    // The shop listens first: its origin is what the pool node allows.
    let app: express.Express | null = null;
    const shop: Server = createServer((request, response) => {
      if (app) app(request, response);
      else response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', () => resolve()));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          shop.closeAllConnections();
          shop.close(() => resolve());
        }),
    );
    const shopUrl = `http://127.0.0.1:${(shop.address() as { port: number }).port}`;

    const service = await startService(
      {
        ...SERVICE_DEFAULTS,
        epoch: NO_EPOCH_GRID,
        port: 0,
        poolPort: 0,
        poolCorsOrigins: [shopUrl],
        dataDir: join(dir, 'pool'),
        logLevel: 'silent',
        checkpointIntervalMs: 100,
        apiKeys: API_KEY,
        operatorToken: OPERATOR_TOKEN,
      },
      () => undefined,
    );
    closers.push(() => service.close());
    const facilitatorUrl = service.facilitatorUrl!;
    const poolUrl = service.poolNodeUrl!;
    const operator = new PoolNodeClient(poolUrl, { token: OPERATOR_TOKEN });

    let served = 0;
    const settled: ProofTransport[] = [];
    const facilitator = new PrivStarkFacilitatorClient({
      url: facilitatorUrl,
      apiKey: API_KEY,
      timeoutMs: 20_000,
    });
    const settle = facilitator.settle.bind(facilitator);
    facilitator.settle = (payload, requirements) => {
      settled.push(
        (payload.payload as { proofRef?: unknown }).proofRef === undefined ? 'inline' : 'reference',
      );
      return settle(payload, requirements);
    };
    // This shop hands proofs to the pool node across origins: it mounts no relay and advertises
    // none (the relay: test/transport/, test/server/).
    const server = new x402ResourceServer(facilitator).register(
      'shielded:devnet',
      new PrivStarkSchemeServer({ handOverRelay: false }),
    );
    const shopApp = express();
    shopApp.use(
      paymentMiddleware(privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01' } }), server),
    );
    shopApp.get('/weather', (_request, response) => {
      served++;
      response.json({ weather: 'sunny', by: 'the shop' });
    });
    shopApp.get('/', (_request, response) => {
      response
        .type('html')
        .send(
          assets.page.html.replace(
            '__CONFIG__',
            JSON.stringify({ pool: poolUrl }).replace(/</g, '\\u003c'),
          ),
        );
    });
    shopApp.get('/example/', (_request, response) => {
      response.type('html').send(assets.example.html);
    });
    shopApp.get(['/priv_stark.wasm', '/example/priv_stark.wasm'], (_request, response) => {
      response.type('application/wasm').send(Buffer.from(assets.wasm));
    });
    shopApp.use((request, response, next) => {
      const [page, path] = request.path.startsWith('/example/')
        ? [assets.example, request.path.slice('/example/'.length)]
        : [assets.page, request.path.slice(1)];
      const js = request.method === 'GET' ? page.files[path] : undefined;
      if (js === undefined) return next();
      response.type('text/javascript').send(js);
    });
    shopApp.post('/fund', express.json(), async (request, response) => {
      const { amount, pre } = request.body as { amount: string; pre: string };
      await operator.deposit(amount, pre);
      response.json({ ok: true });
    });
    app = shopApp;

    return {
      shopUrl,
      poolUrl,
      operator,
      served: () => served,
      settled: () => [...settled],
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
