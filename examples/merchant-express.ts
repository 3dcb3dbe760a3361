// A merchant on Express charging $0.01 (10000 dUSD atomic units) per GET /weather in priv-stark/v1,
// with the stock @x402/express middleware and this project's scheme server and facilitator client.
//
//   FACILITATOR_URL=http://127.0.0.1:4020 API_KEY=… PAY_TO=pstark1… npx tsx examples/merchant-express.ts
//
// PAY_TO is the merchant's shielded address (`priv-stark wallet address`). The server keeps Node's
// default header limit: payments are compact (the payer hands its proof to the pool node first, the
// PAYMENT-SIGNATURE header carries a reference, about 1.2 KB). To take inline payments too, list
// them (new PrivStarkSchemeServer({ proofTransports: ['reference', 'inline'] })) and raise the
// limit on the server and every proxy in front of it (createServer({ maxHeaderSize:
// MERCHANT_MAX_HEADER_BYTES }, app)); docs/compact-payments.md.

import { createServer } from 'node:http';

import { x402ResourceServer } from '@x402/core/server';
import { paymentMiddleware } from '@x402/express';
import express from 'express';
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

const http = createServer(app);
http.listen(Number(env.PORT ?? 3000), env.HOST ?? '127.0.0.1', () => {
  const { port } = http.address() as { port: number };
  process.stdout.write(`merchant listening on http://${env.HOST ?? '127.0.0.1'}:${port}\n`);
});
