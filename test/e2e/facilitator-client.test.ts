// priv-stark/server's facilitator client against the real facilitator on loopback: supported kinds
// from /health (exact networks, x402Version 2, the scheme, the proof transports it takes) or from
// configuration without asking, inline only for a facilitator from before compact payments, and a
// clear error when /health does not describe a priv-stark/v1 facilitator.

import { createServer } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadCore } from '../../src/core/index.js';
import { PrivStarkFacilitatorClient } from '../../src/server/index.js';
import { API_KEY, type Stack, startStack } from '../../testkit/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack(await loadCore());
});
afterAll(async () => {
  await stack?.close();
});

describe('PrivStarkFacilitatorClient.getSupported', () => {
  it('reads the networks from /health', async () => {
    const client = new PrivStarkFacilitatorClient({
      url: `${stack.facilitatorUrl}/`,
      apiKey: API_KEY,
    });
    expect(await client.getSupported()).toEqual({
      kinds: [
        {
          x402Version: 2,
          scheme: 'priv-stark/v1',
          network: 'shielded:devnet',
          extra: { proofTransports: ['reference', 'inline'] },
        },
      ],
      extensions: [],
      signers: {},
    });
  });

  it('answers from configuration without a request', async () => {
    const client = new PrivStarkFacilitatorClient({
      url: 'http://127.0.0.1:9',
      networks: ['shielded:devnet', 'shielded:other'],
      fetch: async () => {
        throw new Error('no request expected');
      },
    });
    expect((await client.getSupported()).kinds.map((k) => k.network)).toEqual([
      'shielded:devnet',
      'shielded:other',
    ]);
  });

  it('takes a facilitator whose /health lists no proof transports for one from before compact payments: inline only', async () => {
    const server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: 'ok',
          scheme: 'priv-stark/v1',
          networks: [{ network: 'shielded:devnet' }],
        }),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      expect((await new PrivStarkFacilitatorClient({ url }).getSupported()).kinds).toEqual([
        {
          x402Version: 2,
          scheme: 'priv-stark/v1',
          network: 'shielded:devnet',
          extra: { proofTransports: ['inline'] },
        },
      ]);
    } finally {
      server.close();
    }
  });

  it('refuses a /health that does not describe a priv-stark/v1 facilitator', async () => {
    const server = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ status: 'ok', scheme: 'exact', networks: [{ network: 'eip155:1' }] }),
        ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      await expect(new PrivStarkFacilitatorClient({ url }).getSupported()).rejects.toThrow(
        /serves exact, not priv-stark\/v1/,
      );
    } finally {
      server.close();
    }
    await expect(
      new PrivStarkFacilitatorClient({ url: 'http://127.0.0.1:9', timeoutMs: 2000 }).getSupported(),
    ).rejects.toThrow();
  });
});
