/**
 * @module Proxies written for the tests, on loopback, that record what they carried: a SOCKS5
 * server (RFC 1928 with RFC 1929's username and password) recording each connection's target and
 * credentials, and an HTTP proxy taking CONNECT only, recording each target — so a test can see
 * which writes went through a proxy and with which stream-isolation credentials.
 */

import { connect, createServer, type Server, type Socket } from 'node:net';

/** One connection a proxy made for a client: where to, and the SOCKS credentials it was given. */
export interface Tunnel {
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

/**
 * Pipes `client` to `host:port` once connected (from `localAddress` when given) and calls `ready`
 * with the upstream socket.
 */
function tunnel(
  client: Socket,
  host: string,
  port: number,
  ready: () => void,
  localAddress?: string,
) {
  const upstream = connect({ port, host, ...(localAddress ? { localAddress } : {}) }, () => {
    ready();
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
}

/** Where a SOCKS5 server's upstream connections leave from. */
export interface Socks5Options {
  /**
   * The source address of the connection made for these credentials (default the system's): a
   * Tor-like exit per isolated stream.
   */
  readonly exitAddress?: (user: string, password: string) => string;
}

/** A SOCKS5 server (RFC 1928, username/password auth of RFC 1929) that records each connection. */
export function socks5(tunnels: Tunnel[], options: Socks5Options = {}): Server {
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
      tunnel(
        client,
        host,
        port,
        () => client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0])),
        options.exitAddress?.(user, password),
      );
    })().catch(() => client.destroy());
  });
}

/** An HTTP proxy that takes CONNECT only, and records each target. */
export function httpConnectProxy(tunnels: Tunnel[]): Server {
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

/** Listens on 127.0.0.1 at a free port; resolves with the port. */
export function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}
