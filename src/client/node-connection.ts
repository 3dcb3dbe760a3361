/**
 * @module Node only — loaded by dynamic import, so a page never loads it, and left out of bundles
 * for browsers and workers (package.json's `browser` field disables it: its proxy agents import
 * Node's built-ins by bare name, which `--external:node:*` does not cover): the connection one write
 * to the pool node takes. A proxy when one is configured (`poolProxy`, else the environment's
 * `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` with `NO_PROXY`, read by `proxy-from-env`), else a
 * connection of its own that no other request shares. HTTP(S) proxies are tunnelled with CONNECT
 * (`https-proxy-agent`); SOCKS5 proxies (`socks5://`, `socks5h://`) go through `socks-proxy-agent`
 * with a fresh random username and password on every write, so Tor (whose SOCKS port isolates
 * streams by credentials by default) puts each write on a circuit of its own.
 */

import { randomBytes } from 'node:crypto';
import type { Agent } from 'node:http';

import { HttpsProxyAgent } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';
import { SocksProxyAgent } from 'socks-proxy-agent';

/** The proxy schemes a write can take. */
const PROXY_PROTOCOLS = new Set(['http:', 'https:', 'socks5:', 'socks5h:', 'socks:']);

/**
 * The proxy a write to `target` takes: `configured` when given (the wallet's `poolProxy`), else
 * the environment's for that URL (`NO_PROXY` honoured), else `null`.
 * @throws RangeError for a proxy URL of another scheme
 */
export function proxyFor(target: URL, configured: string | undefined): URL | null {
  const text = configured ?? getProxyForUrl(target.href);
  if (text === '') return null;
  let proxy: URL;
  try {
    proxy = new URL(text);
  } catch {
    throw new RangeError(
      'the pool proxy is not a URL (http://, https://, socks5:// or socks5h://)',
    );
  }
  if (!PROXY_PROTOCOLS.has(proxy.protocol))
    throw new RangeError(
      `the pool proxy's scheme ${proxy.protocol} is not http:, https:, socks5: or socks5h:`,
    );
  return proxy;
}

/**
 * The agent of one write through `proxy` (a SOCKS proxy with credentials of this write only), or
 * `false` for a connection of its own.
 */
function agentFor(proxy: URL | null): Agent | false {
  if (proxy === null) return false;
  if (proxy.protocol === 'http:' || proxy.protocol === 'https:')
    return new HttpsProxyAgent(proxy, { keepAlive: false });
  const isolated = new URL(proxy.href);
  if (isolated.protocol === 'socks:') isolated.protocol = 'socks5h:';
  // Fresh credentials per write: Tor's stream isolation. A proxy URL's own credentials are
  // replaced (a proxy that checks them would need the same ones every time: name none there).
  isolated.username = randomBytes(12).toString('hex');
  isolated.password = randomBytes(12).toString('hex');
  return new SocksProxyAgent(isolated);
}

/** A `fetch` whose every request is a write through `proxy` (or a connection of its own). */
export function connectionFetch(proxy: URL | null): typeof fetch {
  return (input, init) => send(new Request(input, init), agentFor(proxy));
}

/** `fetch`'s shape over `node:http(s)` with `agent`: one connection, closed after the reply. */
async function send(request: Request, agent: Agent | false): Promise<Response> {
  const url = new URL(request.url);
  const { request: open } =
    url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const body = request.body === null ? null : new Uint8Array(await request.arrayBuffer());
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body !== null) headers['content-length'] = String(body.length);
  return new Promise<Response>((resolve, reject) => {
    const outgoing = open(
      url,
      { method: request.method, headers, agent, signal: request.signal },
      (incoming) => {
        const chunks: Uint8Array[] = [];
        incoming.on('data', (chunk: Uint8Array) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const replyHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (typeof value === 'string') replyHeaders.set(name, value);
            else if (Array.isArray(value)) for (const v of value) replyHeaders.append(name, v);
          }
          const status = incoming.statusCode ?? 502;
          const noBody = status === 204 || status === 304 || request.method === 'HEAD';
          resolve(
            new Response(noBody ? null : Buffer.concat(chunks), { status, headers: replyHeaders }),
          );
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body ?? undefined);
  });
}
