/**
 * @module The default transport of proof hand-overs and the mirror's confirmations: in Node, a
 * connection of its own for every request — so it never rides the keep-alive connection the
 * wallet syncs over — through the proxy the environment names for its URL (`HTTPS_PROXY`,
 * `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`: `node-connection.ts`), or through the process's own global
 * dispatcher when it set one; in browsers, the page's `fetch`. The wallet's writes choose their
 * transport in `pool-transport.ts`. Node's modules load only when a request runs in Node, so
 * nothing here reaches a page.
 */

/** A `fetch` over a fresh (proxied where the environment says) connection per request in Node. */
export function handOverFetch(): typeof fetch {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions
    ?.node;
  if (node === undefined || Symbol.for('undici.globalDispatcher.1') in globalThis)
    return (input, init) => globalThis.fetch(input, init);
  return async (input, init) => {
    const request = new Request(input, init);
    const { connectionFetch, proxyFor } = await import('./node-connection.js');
    return connectionFetch(proxyFor(new URL(request.url), undefined))(request);
  };
}
