// A merchant on Hono (Node adapter) with the stock @x402/hono middleware.
//
//   FACILITATOR_URL=http://127.0.0.1:4020 API_KEY=… PAY_TO=pstark1… npx tsx examples/merchant-hono.ts
//
// On serve()'s defaults: payments are compact (see merchant-express.ts).

import { serve } from '@hono/node-server';
import { x402ResourceServer } from '@x402/core/server';
import { paymentMiddleware } from '@x402/hono';
import { Hono } from 'hono';
import {
  PrivStarkFacilitatorClient,
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

const app = new Hono();
app.use(paymentMiddleware(privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01' } }), server));
app.get('/weather', (c) => c.json({ weather: 'sunny', temperature: 21 }));

serve(
  {
    fetch: app.fetch,
    port: Number(env.PORT ?? 3000),
    hostname: env.HOST ?? '127.0.0.1',
  },
  (info) =>
    process.stdout.write(`merchant listening on http://${env.HOST ?? '127.0.0.1'}:${info.port}\n`),
);
