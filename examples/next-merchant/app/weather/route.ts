// GET /weather for $0.01 in priv-stark/v1: the stock @x402/next route wrapper (`withX402`, with its
// own @x402/core 2.25) over an `x402ResourceServer` of that version, holding this project's scheme
// server and facilitator client (`priv-stark/server`). The wrapper is made on the first request,
// so `next build` neither reads the merchant's settings nor asks the facilitator anything.
//
//   FACILITATOR_URL=http://127.0.0.1:4020 API_KEY=… PAY_TO=pstark1… npx next start -p 3000

import { withX402, x402ResourceServer } from '@x402/next';
import { type NextRequest, NextResponse } from 'next/server';
import {
  PrivStarkFacilitatorClient,
  PrivStarkSchemeServer,
  privStarkRoutes,
} from 'priv-stark/server';

export const dynamic = 'force-dynamic';

async function weather(): Promise<NextResponse<{ weather: string; temperature: number }>> {
  return NextResponse.json({ weather: 'sunny', temperature: 21 });
}

function paidWeather() {
  const payTo = process.env.PAY_TO;
  if (!payTo)
    throw new Error('set PAY_TO to the merchant wallet address (priv-stark wallet address)');
  const facilitator = new PrivStarkFacilitatorClient({
    url: process.env.FACILITATOR_URL ?? 'http://127.0.0.1:4020',
    apiKey: process.env.API_KEY,
  });
  const server = new x402ResourceServer(facilitator).register(
    'shielded:devnet',
    new PrivStarkSchemeServer(),
  );
  return withX402(
    weather,
    privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01', description: "today's weather" } }),
    server,
  );
}

let handler: ReturnType<typeof paidWeather> | undefined;

export function GET(request: NextRequest) {
  handler ??= paidWeather();
  return handler(request);
}
