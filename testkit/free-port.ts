// A free TCP port on the loopback address, for servers a test or bench starts in another process
// (free when asked; the caller binds it right after).

import { createServer } from 'node:net';

/** A port on 127.0.0.1 that nothing listened on a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
