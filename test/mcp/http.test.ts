// The streamable HTTP endpoint in process, on loopback: the bearer token when one is configured,
// POST only, the MCP SDK's client through it. (The child-process suite covers Host and Origin.)

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { loadCore } from '../../src/core/index.js';
import {
  LedgerFile,
  PaymentAgent,
  PolicyFile,
  serveHttp,
  type HttpEndpoint,
  TOOL_NAMES,
} from '../../src/mcp/index.js';

const TOKEN = 'test-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-mcp-http-'));
let endpoint: HttpEndpoint;
let ledger: LedgerFile;

beforeAll(async () => {
  const core = await loadCore();
  // The pool node is never asked: these calls need only the policy and the ledger.
  const wallet = await Wallet.create({ core, pool: 'http://127.0.0.1:9' });
  const policyPath = join(dir, 'policy.json');
  writeFileSync(
    policyPath,
    JSON.stringify({
      maxPerPayment: '1',
      maxPer24h: '2',
      hosts: [],
      recipients: [],
      networks: [],
      assets: [],
    }),
  );
  chmodSync(policyPath, 0o600);
  ledger = await LedgerFile.open(join(dir, 'ledger.json'));
  endpoint = await serveHttp(
    new PaymentAgent({ wallet, policy: new PolicyFile(policyPath), ledger }),
    { port: 0, token: TOKEN },
  );
});
afterAll(async () => {
  await endpoint?.close();
  await ledger?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('serveHttp', () => {
  it('listens on loopback only, at /mcp', () => {
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('refuses requests without the bearer token, or with another one', async () => {
    const init = {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    };
    expect((await fetch(endpoint.url, init)).status).toBe(401);
    expect(
      (
        await fetch(endpoint.url, {
          ...init,
          headers: { ...init.headers, authorization: `Bearer ${TOKEN}x` },
        })
      ).status,
    ).toBe(401);
    expect((await fetch(endpoint.url.replace('/mcp', '/other'), init)).status).toBe(404);
    expect(
      (await fetch(endpoint.url, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(405);
  });

  it('serves the tools to an MCP client that has the token', async () => {
    const client = new Client({ name: 'http-test', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
      const policy = await client.callTool({ name: 'get_policy', arguments: {} });
      expect(policy.structuredContent).toMatchObject({
        policy: { max_per_payment: '1', hosts: [] },
        usage: { counted_24h: '0' },
      });
      // An empty host list allows nothing: refused before any request leaves.
      const refused = await client.callTool({
        name: 'pay_and_fetch',
        arguments: { url: 'http://127.0.0.1:9/x' },
      });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]!.text).toMatch(
        /^host_not_allowed: refused by the policy rule hosts/,
      );
      // Input outside the schema is refused by the schema.
      const invalid = await client.callTool({
        name: 'pay_and_fetch',
        arguments: { url: 'http://x/', max_bytes: 10 ** 9 },
      });
      expect(invalid.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
