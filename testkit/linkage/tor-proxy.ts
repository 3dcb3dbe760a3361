/**
 * @module The population's Tor: a SOCKS5 proxy (testkit/proxy-servers.ts) whose streams leave
 * from exits — each set of credentials, which the wallet draws afresh for every write (stream
 * isolation), gets an exit drawn from a few loopback addresses of their own (127.4.0.x), as a Tor
 * circuit does. The operator sees an exit's address, shared by every wallet behind the proxy,
 * never the wallet's; the ground truth calls a payment whose hand-over came from one `proxy`.
 */

import type { Server, Socket } from 'node:net';

import { listen, socks5, type Tunnel } from '../proxy-servers.js';
import type { Random } from './random.js';

/** How many exits the proxy draws from. */
export const TOR_EXITS = 8;

/** The `i`-th exit's address. */
export const exitAddress = (i: number) => `127.4.0.${i + 1}`;

/** A running proxy: the `socks5h://` URL wallets set as their `poolProxy`. */
export interface TorProxy {
  readonly url: string;
  /** Every stream it carried (its target and credentials). */
  readonly tunnels: readonly Tunnel[];
  close(): Promise<void>;
}

/** Starts the proxy on 127.0.0.1, its exits drawn with `random`. */
export async function startTorProxy(random: Random): Promise<TorProxy> {
  const tunnels: Tunnel[] = [];
  const circuits = new Map<string, string>();
  const server: Server = socks5(tunnels, {
    exitAddress: (user, password) => {
      const key = `${user}\u0000${password}`;
      let exit = circuits.get(key);
      if (exit === undefined) {
        exit = exitAddress(random.below(TOR_EXITS));
        circuits.set(key, exit);
      }
      return exit;
    },
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    url: `socks5h://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
