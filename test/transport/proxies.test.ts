// The wallet's writes through proxies (issue 25, part 1), on loopback listeners with a real pool
// node: a SOCKS5 server written here records every connection's username and password — each write
// brings fresh ones (Tor's stream isolation) and reaches the node; an HTTP proxy written here
// records each CONNECT — HTTP_PROXY and ALL_PROXY are honoured and NO_PROXY=localhost sends a
// localhost pool directly (with the warning), while the same pool by 127.0.0.1 goes through the
// proxy (no warning); private-only refuses without a proxy (no_private_transport, naming the
// remedies) and passes with one.

import type { Server } from 'node:net';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  NoPrivateTransportError,
  PoolTransport,
  type TransportWarning,
} from '../../src/client/index.js';
import { loadCore } from '../../src/core/index.js';
import { httpConnectProxy, listen, socks5, type Tunnel } from '../../testkit/proxy-servers.js';
import { type Stack, startStack } from '../../testkit/stack.js';

const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'] as const;

describe('writes through proxies', () => {
  let stack: Stack;
  let poolPort: number;
  const socksTunnels: Tunnel[] = [];
  const httpTunnels: Tunnel[] = [];
  const servers: Server[] = [];
  let socksUrl: string;
  let httpProxyUrl: string;
  const saved = new Map<string, string | undefined>();

  beforeAll(async () => {
    stack = await startStack(await loadCore());
    poolPort = Number(new URL(stack.poolUrl).port);
    const socks = socks5(socksTunnels);
    const http = httpConnectProxy(httpTunnels);
    servers.push(socks, http);
    socksUrl = `socks5h://127.0.0.1:${await listen(socks)}`;
    httpProxyUrl = `http://127.0.0.1:${await listen(http)}`;
    for (const name of PROXY_VARIABLES)
      for (const key of [name, name.toLowerCase()]) saved.set(key, process.env[key]);
  }, 120_000);
  afterEach(() => {
    for (const [key, value] of saved)
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    socksTunnels.length = 0;
    httpTunnels.length = 0;
  });
  afterAll(async () => {
    for (const server of servers) server.close();
    await stack?.close();
  });

  function clearProxyVariables() {
    for (const key of saved.keys()) delete process.env[key];
  }

  /** A transport for `poolUrl`, the warnings it said collected. */
  function transport(poolUrl: string, options: { proxy?: string; privateOnly?: boolean } = {}) {
    const warnings: TransportWarning[] = [];
    const pool = new PoolTransport({
      poolUrl,
      proxy: options.proxy,
      mode: options.privateOnly ? 'private-only' : 'private-first',
      onWarning: (warning) => warnings.push(warning),
    });
    return { pool, warnings };
  }

  it('SOCKS5: every write on a connection of its own with fresh credentials, reaching the pool node', async () => {
    clearProxyVariables();
    const { pool, warnings } = transport(stack.poolUrl, { proxy: socksUrl });
    for (const write of ['hand-over', 'transfer', 'transition'] as const) {
      const state = await (await pool.node(write)).state();
      expect(state).toHaveProperty('checkpoint');
    }
    expect(socksTunnels.map((t) => t.target)).toEqual(Array(3).fill(`127.0.0.1:${poolPort}`));
    const credentials = socksTunnels.map((t) => `${t.user}:${t.password}`);
    expect(new Set(credentials).size).toBe(3);
    for (const t of socksTunnels) expect(t.user).toMatch(/^[0-9a-f]{24}$/);
    expect(warnings).toEqual([]);
    // Must-fail twin: without a proxy the SOCKS server sees nothing, and the direct write warns.
    const direct = transport(stack.poolUrl);
    await (await direct.pool.node('transfer')).state();
    expect(socksTunnels).toHaveLength(3);
    expect(direct.warnings.map((w) => [w.code, w.write])).toEqual([['direct_to_pool', 'transfer']]);
  });

  it('honours HTTP_PROXY and ALL_PROXY; NO_PROXY=localhost sends a localhost pool directly, with the warning once', async () => {
    clearProxyVariables();
    process.env.HTTP_PROXY = httpProxyUrl;
    process.env.NO_PROXY = 'localhost';
    const proxied = transport(stack.poolUrl);
    await (await proxied.pool.node('hand-over', 'http://shop.example')).state();
    expect(httpTunnels.map((t) => t.target)).toEqual([`127.0.0.1:${poolPort}`]);
    expect(proxied.warnings).toEqual([]);

    const local = transport(`http://localhost:${poolPort}`);
    for (let i = 0; i < 2; i++)
      await (await local.pool.node('hand-over', 'http://shop.example')).state();
    expect(httpTunnels).toHaveLength(1);
    expect(local.warnings.map((w) => w.origin)).toEqual(['http://shop.example']);

    clearProxyVariables();
    process.env.ALL_PROXY = socksUrl;
    await (await transport(stack.poolUrl).pool.node('transition')).state();
    expect(socksTunnels.map((t) => t.target)).toEqual([`127.0.0.1:${poolPort}`]);
  });

  it('private-only refuses a write without a private transport, naming the remedies; the twin with a proxy passes', async () => {
    clearProxyVariables();
    const bare = transport(stack.poolUrl, { privateOnly: true });
    const refused = await bare.pool.node('hand-over').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NoPrivateTransportError);
    expect((refused as NoPrivateTransportError).code).toBe('no_private_transport');
    expect((refused as Error).message).toMatch(/--pool-proxy/);
    expect((refused as Error).message).toMatch(/relay/);
    expect(bare.warnings).toEqual([]);
    const proxied = transport(stack.poolUrl, { privateOnly: true, proxy: httpProxyUrl });
    await (await proxied.pool.node('hand-over')).state();
    expect(httpTunnels).toHaveLength(1);
  });
});
