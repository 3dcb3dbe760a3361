// A merchant on Fastify with priv-stark's plugin (the x402 HTTP resource server in Fastify hooks).
//
//   FACILITATOR_URL=http://127.0.0.1:4020 API_KEY=… PAY_TO=pstark1… npx tsx examples/merchant-fastify.ts
//
// On Fastify's defaults: payments are compact (see merchant-express.ts; a merchant that also takes
// inline payments builds the app with FASTIFY_MERCHANT_OPTIONS).

import { x402ResourceServer } from '@x402/core/server';
import Fastify from 'fastify';
import {
  PrivStarkFacilitatorClient,
  privStarkFastify,
  PrivStarkSchemeServer,
  privStarkRoutes,
} from 'priv-stark/server';

const env = process.env;
const payTo = env.PAY_TO;
if (!payTo)
  throw new Error('set PAY_TO to the merchant wallet address (priv-stark wallet address)');

const facilitator = new PrivStarkFacilitatorClient({
  url: env.FACILITATOR_URL ?? 'http://127.0.0.1:4020',
  apiKey: env.API_KEY,
});
const server = new x402ResourceServer(facilitator).register(
  'shielded:devnet',
  new PrivStarkSchemeServer(),
);

const app = Fastify();
await app.register(privStarkFastify, {
  routes: privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01' } }),
  server,
});
app.get('/weather', async () => ({ weather: 'sunny', temperature: 21 }));

const url = await app.listen({ port: Number(env.PORT ?? 3000), host: env.HOST ?? '127.0.0.1' });
process.stdout.write(`merchant listening on ${url}\n`);
