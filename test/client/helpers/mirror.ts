/**
 * A mirror of a pool node's public log for the client suites: a loopback HTTP server that answers
 * each GET with the upstream's reply — or with what `forge` makes of its JSON body (a forged or
 * stale mirror) — and records the path and query of every request it served. Its requests to the
 * upstream carry `x-mirrored: 1`.
 */

import { createServer, type Server } from 'node:http';

/** The header the mirror's own requests to the upstream carry (to tell them from a wallet's). */
export const MIRRORED = 'x-mirrored';

/** A running mirror. */
export interface Mirror {
  readonly url: string;
  /** Every request it served, path and query (`/leaves?page=0`). */
  readonly asked: string[];
  /** Rewrites a reply's JSON body before the mirror serves it (`null`: as the upstream sent it). */
  forge: ((pathAndQuery: string, body: unknown) => unknown) | null;
  close(): Promise<void>;
}

/** Starts a mirror of `upstream` on a free loopback port. */
export async function startMirror(upstream: string): Promise<Mirror> {
  const asked: string[] = [];
  const mirror: Mirror = {
    url: '',
    asked,
    forge: null,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    asked.push(path);
    void (async () => {
      try {
        const reply = await fetch(`${upstream}${path}`, { headers: { [MIRRORED]: '1' } });
        const text = await reply.text();
        const body = mirror.forge && reply.ok ? mirror.forge(path, JSON.parse(text)) : null;
        response.writeHead(reply.status, { 'content-type': 'application/json' });
        response.end(body === null ? text : JSON.stringify(body));
      } catch {
        response.writeHead(502).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(mirror, { url: `http://127.0.0.1:${port}` });
}
