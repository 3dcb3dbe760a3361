// The wallet's writes through proxies (issue 25, part 1), on loopback listeners with a real pool
// node: a SOCKS5 server written here records every connection's username and password — each write
// brings fresh ones (Tor's stream isolation) and reaches the node; an HTTP proxy written here
// records each CONNECT — HTTP_PROXY and ALL_PROXY are honoured and NO_PROXY=localhost sends a
// localhost pool directly (with the warning), while the same pool by 127.0.0.1 goes through the
// proxy (no warning); private-only refuses without a proxy (no_private_transport, naming the
// remedies) and passes with one.

import { connect, createServer, type Server, type Socket } from 'node:net';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  NoPrivateTransportError,
  PoolTransport,
  type TransportWarning,
} from '../../src/client/index.js';
import { loadCore } from '../../src/core/index.js';
import { type Stack, startStack } from '../../testkit/stack.js';

/** One connection a proxy made for a client: where to, and the SOCKS credentials it was given. */
interface Tunnel {
  readonly target: string;
  readonly user?: string;
  readonly password?: string;
}

/** Reads `n` bytes from a socket. */
function readBytes(socket: Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const take = () => {
      const chunk = socket.read(n) as Buffer | null;
      if (chunk === null) return false;
      socket.off('readable', onReadable);
      socket.off('error', reject);
      resolve(chunk);
      return true;
    };
    const onReadable = () => void take();
    if (take()) return;
    socket.on('readable', onReadable);
    socket.once('error', reject);
  });
}

/** Pipes `client` to `host:port` once connected and calls `ready` with the upstream socket. */
function tunnel(client: Socket, host: string, port: number, ready: () => void) {
  const upstream = connect(port, host, () => {
    ready();
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
}

/** A SOCKS5 server (RFC 1928, username/password auth of RFC 1929) that records each connection. */
function socks5(tunnels: Tunnel[]): Server {
  return createServer((client) => {
    void (async () => {
      const [, methods] = await readBytes(client, 2);
      await readBytes(client, methods!);
      client.write(Buffer.from([5, 2])); // username/password
      const [, userLength] = await readBytes(client, 2);
      const user = (await readBytes(client, userLength!)).toString();
      const [passwordLength] = await readBytes(client, 1);
      const password = (await readBytes(client, passwordLength!)).toString();
      client.write(Buffer.from([1, 0]));
      const [, , , type] = await readBytes(client, 4);
      let host: string;
      if (type === 3) host = (await readBytes(client, (await readBytes(client, 1))[0]!)).toString();
      else host = [...(await readBytes(client, 4))].join('.');
      const port = (await readBytes(client, 2)).readUInt16BE(0);
      tunnels.push({ target: `${host}:${port}`, user, password });
      tunnel(client, host, port, () => client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0])));
    })().catch(() => client.destroy());
  });
}

/** An HTTP proxy that takes CONNECT only, and records each target. */
function httpConnectProxy(tunnels: Tunnel[]): Server {
  return createServer((client) => {
    void (async () => {
      let head = '';
      while (!head.includes('\r\n\r\n')) head += (await readBytes(client, 1)).toString();
      const [method, target] = head.split(' ');
      if (method !== 'CONNECT' || !target) return client.end('HTTP/1.1 405 no\r\n\r\n');
      tunnels.push({ target });
      const [host, port] = target.split(':');
      tunnel(client, host!, Number(port), () =>
        client.write('HTTP/1.1 200 Connection established\r\n\r\n'),
      );
    })().catch(() => client.destroy());
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

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
