// A hostile RPC: an HTTP proxy in front of a real node that passes requests through, or answers
// as a broken or lying RPC would — down (the connection dropped), garbage instead of JSON, a chain
// id of another chain, logs rewritten by a function. The chain behind it is real; only the
// answers are altered.

import { createServer, type Server } from 'node:http';

/** How the proxy answers. */
export type ProxyMode = 'pass' | 'down' | 'garbage';

/** A JSON-RPC request and its answer, as they cross the proxy. */
interface RpcMessage {
  id?: unknown;
  method?: string;
  result?: unknown;
  error?: unknown;
}

/** A running proxy. */
export interface RpcProxy {
  readonly url: string;
  mode: ProxyMode;
  /** Rewrites the result of `method` (applied to each answer in a batch); `null`: none. */
  rewrite: { method: string; result: (result: unknown) => unknown } | null;
  close(): Promise<void>;
}

/** Starts a proxy to the node at `target` on a free loopback port. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const proxy: RpcProxy = {
    url: '',
    mode: 'pass',
    rewrite: null,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      if (proxy.mode === 'down') {
        response.socket?.destroy();
        return;
      }
      if (proxy.mode === 'garbage') {
        response.writeHead(200, { 'content-type': 'application/json' }).end('<html>oops</html>');
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const upstream = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const answer = (await upstream.json()) as RpcMessage | RpcMessage[];
      const requests = JSON.parse(body) as RpcMessage | RpcMessage[];
      const methodOf = new Map(
        (Array.isArray(requests) ? requests : [requests]).map((r) => [r.id, r.method]),
      );
      const rewrite = proxy.rewrite;
      const altered = (message: RpcMessage): RpcMessage =>
        rewrite && methodOf.get(message.id) === rewrite.method && 'result' in message
          ? { ...message, result: rewrite.result(message.result) }
          : message;
      const out = Array.isArray(answer) ? answer.map(altered) : altered(answer);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  (proxy as { url: string }).url =
    `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return proxy;
}
