// A merchant on Express charging $0.01 (10000 dUSD atomic units) per GET /weather in priv-stark/v1,
// with the stock @x402/express middleware and this project's scheme server and facilitator client.
//
//   FACILITATOR_URL=http://127.0.0.1:4020 API_KEY=… PAY_TO=pstark1… npx tsx examples/merchant-express.ts
//
// PAY_TO is the merchant's shielded address (`priv-stark wallet address`). The server's header
// limit is raised to 256 KiB: the PAYMENT-SIGNATURE header carries the proof (~96 KB).

import { createServer } from 'node:http';

import { x402ResourceServer } from '@x402/core/server';
import { paymentMiddleware } from '@x402/express';
import express from 'express';
import {
  MERCHANT_MAX_HEADER_BYTES,
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

const app = express();
app.use(
  paymentMiddleware(
    privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01', description: "today's weather" } }),
    server,
  ),
);
app.get('/weather', (_req, res) => {
  res.json({ weather: 'sunny', temperature: 21 });
});

const http = createServer({ maxHeaderSize: MERCHANT_MAX_HEADER_BYTES }, app);
http.listen(Number(env.PORT ?? 3000), env.HOST ?? '127.0.0.1', () => {
  const { port } = http.address() as { port: number };
  process.stdout.write(`merchant listening on http://${env.HOST ?? '127.0.0.1'}:${port}\n`);
});
