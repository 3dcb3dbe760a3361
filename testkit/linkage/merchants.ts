/**
 * @module The population's merchants, each on its own loopback address: a merchant with a relay
 * runs Fastify with this project's plugin and its hand-over relay as docs/privacy.md says to mount
 * it (`relay: { poolNode, apiKey }`, forwarding through the operator's recording proxy),
 * one without runs stock `@x402/express` with this project's scheme server and route helper and
 * nothing else. Both call the facilitator through the operator's recording proxy with their API
 * key, from their own address, so the operator knows them as merchants.
 */

import { createServer, type Server } from 'node:http';

import { x402ResourceServer } from '@x402/core/server';
import { paymentMiddleware } from '@x402/express';
import express from 'express';
import Fastify from 'fastify';

import {
  PrivStarkFacilitatorClient,
  privStarkFastify,
  PrivStarkSchemeServer,
  privStarkRoutes,
} from '../../src/server/index.js';
import { DEVNET_NETWORK, type NetworkProfile } from '../../src/scheme/index.js';
import { withSourceAddress } from './source-address.js';

/** A running merchant of the population. */
export interface RunningMerchant {
  readonly id: number;
  readonly url: string;
  readonly address: string;
  readonly payTo: string;
  readonly relay: boolean;
  close(): Promise<void>;
}

/** What a merchant is made from. */
export interface MerchantSetup {
  readonly id: number;
  readonly address: string;
  readonly payTo: string;
  readonly price: bigint;
  readonly relay: boolean;
  readonly facilitatorUrl: string;
  /** The pool node (behind the operator's recording proxy) the relay forwards hand-overs to. */
  readonly poolNodeUrl: string;
  readonly apiKey: string;
  /** The pool's network (default the devnet pool). */
  readonly network?: NetworkProfile | undefined;
}

/** `$0.01` for 10,000 atomic units of a 6-decimal dollar. */
const dollars = (atomic: bigint) => `$${(Number(atomic) / 1e6).toFixed(6).replace(/0+$/, '')}`;

function routes(setup: MerchantSetup) {
  return privStarkRoutes({
    'GET /item': {
      payTo: setup.payTo,
      price: dollars(setup.price),
      network: (setup.network ?? DEVNET_NETWORK).network,
    },
  });
}

function resourceServer(setup: MerchantSetup): x402ResourceServer {
  const client = new PrivStarkFacilitatorClient({
    url: setup.facilitatorUrl,
    apiKey: setup.apiKey,
    timeoutMs: 30_000,
  });
  const network = setup.network ?? DEVNET_NETWORK;
  return new x402ResourceServer(client).register(
    network.network as `${string}:${string}`,
    new PrivStarkSchemeServer(setup.network ? { networks: [setup.network] } : {}),
  );
}

async function relayMerchant(
  setup: MerchantSetup,
): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  await app.register(privStarkFastify, {
    routes: routes(setup),
    server: resourceServer(setup),
    relay: { poolNode: setup.poolNodeUrl, apiKey: setup.apiKey },
  });
  app.get('/item', async () => ({ item: setup.id }));
  closeEachConnection(app.server);
  const url = await app.listen({ port: 0, host: setup.address });
  return { url, close: () => app.close() };
}

async function plainMerchant(
  setup: MerchantSetup,
): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(paymentMiddleware(routes(setup), resourceServer(setup)));
  app.get('/item', (_req, res) => {
    res.json({ item: setup.id });
  });
  const server: Server = createServer(app);
  closeEachConnection(server);
  const url = await new Promise<string>((resolve) =>
    server.listen(0, setup.address, () =>
      resolve(`http://${setup.address}:${(server.address() as { port: number }).port}`),
    ),
  );
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Closes each connection after its reply, as the recording proxy does: a connection is bound to
 * the address of the actor that opened it (`source-address.ts`), and fetch's pool would hand a
 * kept-alive one to another wallet's next request — which the link observer would then see leave
 * from the first wallet's address.
 */
function closeEachConnection(server: Server): void {
  server.prependListener('request', (_req, res) => res.setHeader('connection', 'close'));
}

/**
 * Starts a merchant inside its address's context, so what its server does for a request —
 * calling the facilitator, relaying a hand-over — leaves from that address.
 */
export async function startMerchant(setup: MerchantSetup): Promise<RunningMerchant> {
  const running = await withSourceAddress(setup.address, () =>
    setup.relay ? relayMerchant(setup) : plainMerchant(setup),
  );
  return {
    id: setup.id,
    url: running.url,
    address: setup.address,
    payTo: setup.payTo,
    relay: setup.relay,
    close: running.close,
  };
}
