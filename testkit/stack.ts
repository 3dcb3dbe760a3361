/**
 * The whole stack on loopback for the end-to-end suites: the facilitator and the devnet pool node
 * as `priv-stark start` runs them (same code, a temporary data directory, an API key, a fast
 * checkpoint timer), and merchants on the stock `@x402/express` and `@x402/hono` middleware and
 * this project's Fastify plugin, with this project's scheme server and facilitator client, each on
 * its own listener with the framework's default header limit (compact payments fit it). A merchant
 * may opt into inline payments (`proofTransports`) and raise its limit (`maxHeaderSize`). Wallets
 * talk to the pool node over HTTP like any wallet.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { serve } from '@hono/node-server';
import { x402ResourceServer } from '@x402/core/server';
import { paymentMiddleware as expressPayment } from '@x402/express';
import { paymentMiddleware as honoPayment } from '@x402/hono';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';

import { Wallet } from '../src/client/index.js';
import type { PrivStarkCore } from '../src/core/index.js';
import { PoolNodeClient } from '../src/pool-node/index.js';
import type { ProofTransport } from '../src/scheme/index.js';
import {
  PrivStarkFacilitatorClient,
  privStarkFastify,
  PrivStarkSchemeServer,
  privStarkRoutes,
} from '../src/server/index.js';
import { type RunningService, SERVICE_DEFAULTS, startService } from '../src/service/index.js';
import { NO_EPOCH_GRID } from '../src/scheme/index.js';

export const API_KEY = 'e2e-api-key-0123456789abcdef';
export const OPERATOR_TOKEN = 'e2e-operator-token-0123456789';
export const PRICE = '$0.01';
export const PRICE_ATOMIC = 10_000n;

export interface Stack {
  readonly service: RunningService;
  /** Base URL of the facilitator listener. */
  readonly facilitatorUrl: string;
  readonly poolUrl: string;
  readonly operator: PoolNodeClient;
  wallet(options?: { path?: string; sk?: `0x${string}` }): Promise<Wallet>;
  /** Deposits `amount` to the wallet and syncs it once a checkpoint covers the deposit. */
  fund(wallet: Wallet, amount: string): Promise<void>;
  /** Syncs wallets until a checkpoint covers every leaf the pool had when called. */
  settle(...wallets: Wallet[]): Promise<void>;
  close(): Promise<void>;
}

/** How {@link startStack} is set up. */
export interface StackOptions {
  /**
   * The service's data directory, kept on close (default: a temporary one, removed on close) —
   * a pool written earlier, say.
   */
  readonly dataDir?: string;
  /** The pool node's per-client limit of the wallets' writes (default the service's, 120 a minute). */
  readonly handOverRateLimit?: { readonly max: number; readonly timeWindowMs: number };
}

export async function startStack(core: PrivStarkCore, options: StackOptions = {}): Promise<Stack> {
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'priv-stark-e2e-'));
  const service = await startService(
    {
      ...SERVICE_DEFAULTS,
      epoch: NO_EPOCH_GRID,
      port: 0,
      poolPort: 0,
      dataDir: dir,
      logLevel: 'silent',
      checkpointIntervalMs: 100,
      apiKeys: API_KEY,
      operatorToken: OPERATOR_TOKEN,
      ...(options.handOverRateLimit ? { handOverRateLimit: options.handOverRateLimit } : {}),
    },
    () => undefined,
  );
  const poolUrl = service.poolNodeUrl!;
  const operator = new PoolNodeClient(poolUrl, { token: OPERATOR_TOKEN });

  async function settle(...wallets: Wallet[]): Promise<void> {
    // The ledger's own head (the node's /state shows only what a checkpoint published).
    const size = (await service.ledger.state()).size;
    for (let i = 0; i < 200; i++) {
      const state = await operator.state();
      if ((state.checkpoint?.size ?? 0) >= size) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    for (const w of wallets) await w.sync();
  }

  return {
    service,
    facilitatorUrl: service.facilitatorUrl!,
    poolUrl,
    operator,
    wallet: (options = {}) =>
      Wallet.create({
        core,
        pool: poolUrl,
        ...(options.path ? { path: options.path } : {}),
        ...(options.sk ? { sk: options.sk } : {}),
      }),
    async fund(wallet, amount) {
      const ticket = await wallet.depositTicket(amount);
      await operator.deposit(ticket.amount, ticket.pre);
      await settle(wallet);
    },
    settle,
    async close() {
      await service.close();
      if (options.dataDir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A running merchant. */
export interface Merchant {
  readonly url: string;
  /** Handler runs per route key. */
  readonly served: Map<string, number>;
  /** Calls the middleware made to the facilitator. */
  readonly calls: { verify: number; settle: number };
  /** How the proof travelled in each payment the middleware asked the facilitator to settle. */
  readonly settled: ProofTransport[];
  close(): Promise<void>;
}

/** How a merchant is set up (default: the framework's own header limit, compact payments only). */
export interface MerchantOptions {
  /** Request header limit of the merchant's server, bytes (default: the framework's). */
  readonly maxHeaderSize?: number;
  /** What the scheme server advertises (default its own: `['reference']`). */
  readonly proofTransports?: readonly ProofTransport[];
}

/** What a merchant's middleware reports to the test. */
interface Recorder {
  readonly calls: Merchant['calls'];
  readonly settled: ProofTransport[];
}

/** Routes every merchant serves: `GET /weather` (upfront) and `GET /report` (authorization). */
function routesFor(payTo: string) {
  return privStarkRoutes({
    'GET /weather': { payTo, price: PRICE, description: 'the weather' },
    'GET /report': { payTo, price: PRICE, flow: 'authorization' },
    'GET /premium': { payTo, price: '$2' },
  });
}

function recorder(): Recorder {
  return { calls: { verify: 0, settle: 0 }, settled: [] };
}

function resourceServer(
  facilitatorUrl: string,
  record: Recorder,
  options: MerchantOptions,
): x402ResourceServer {
  const client = new PrivStarkFacilitatorClient({
    url: facilitatorUrl,
    apiKey: API_KEY,
    timeoutMs: 20_000,
  });
  const verify = client.verify.bind(client);
  const settle = client.settle.bind(client);
  client.verify = (...args) => {
    record.calls.verify++;
    return verify(...args);
  };
  client.settle = (...args) => {
    record.calls.settle++;
    const payload = args[0].payload as { proofRef?: unknown };
    record.settled.push(payload.proofRef === undefined ? 'inline' : 'reference');
    return settle(...args);
  };
  return new x402ResourceServer(client).register(
    'shielded:devnet',
    new PrivStarkSchemeServer(
      options.proofTransports ? { proofTransports: options.proofTransports } : {},
    ),
  );
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`),
    ),
  );
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** A merchant on Express with the stock `@x402/express` middleware. */
export async function expressMerchant(
  facilitatorUrl: string,
  payTo: string,
  options: MerchantOptions = {},
): Promise<Merchant> {
  const served = new Map<string, number>();
  const record = recorder();
  const app = express();
  app.use(expressPayment(routesFor(payTo), resourceServer(facilitatorUrl, record, options)));
  app.get('/weather', (_req, res) => {
    served.set('GET /weather', (served.get('GET /weather') ?? 0) + 1);
    res.json({ weather: 'sunny', by: 'express' });
  });
  app.get('/premium', (_req, res) => {
    res.json({ premium: true });
  });
  app.get('/report', (_req, res) => {
    served.set('GET /report', (served.get('GET /report') ?? 0) + 1);
    res.json({ report: 'quarterly', by: 'express' });
  });
  const server =
    options.maxHeaderSize === undefined
      ? createServer(app)
      : createServer({ maxHeaderSize: options.maxHeaderSize }, app);
  return { url: await listen(server), served, ...record, close: closer(server) };
}

/** A merchant on Hono (Node adapter) with the stock `@x402/hono` middleware. */
export async function honoMerchant(
  facilitatorUrl: string,
  payTo: string,
  options: MerchantOptions = {},
): Promise<Merchant> {
  const served = new Map<string, number>();
  const record = recorder();
  const app = new Hono();
  app.use(honoPayment(routesFor(payTo), resourceServer(facilitatorUrl, record, options)));
  app.get('/weather', (c) => {
    served.set('GET /weather', (served.get('GET /weather') ?? 0) + 1);
    return c.json({ weather: 'sunny', by: 'hono' });
  });
  app.get('/premium', (c) => c.json({ premium: true }));
  app.get('/report', (c) => {
    served.set('GET /report', (served.get('GET /report') ?? 0) + 1);
    return c.json({ report: 'quarterly', by: 'hono' });
  });
  const url = await new Promise<{ server: Server; url: string }>((resolve) => {
    const server = serve(
      {
        fetch: app.fetch,
        port: 0,
        hostname: '127.0.0.1',
        ...(options.maxHeaderSize === undefined
          ? {}
          : { serverOptions: { maxHeaderSize: options.maxHeaderSize } }),
      },
      (info) => resolve({ server, url: `http://127.0.0.1:${info.port}` }),
    ) as Server;
  });
  return { url: url.url, served, ...record, close: closer(url.server) };
}

/** A merchant on Fastify with this project's plugin. */
export async function fastifyMerchant(
  facilitatorUrl: string,
  payTo: string,
  options: MerchantOptions = {},
): Promise<Merchant> {
  const served = new Map<string, number>();
  const record = recorder();
  const app = Fastify({
    logger: false,
    ...(options.maxHeaderSize === undefined
      ? {}
      : { http: { maxHeaderSize: options.maxHeaderSize } }),
  });
  await app.register(privStarkFastify, {
    routes: routesFor(payTo),
    server: resourceServer(facilitatorUrl, record, options),
  });
  app.get('/weather', async () => {
    served.set('GET /weather', (served.get('GET /weather') ?? 0) + 1);
    return { weather: 'sunny', by: 'fastify' };
  });
  app.get('/report', async () => {
    served.set('GET /report', (served.get('GET /report') ?? 0) + 1);
    return { report: 'quarterly', by: 'fastify' };
  });
  app.get('/premium', async () => ({ premium: true }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, served, ...record, close: () => app.close() };
}
