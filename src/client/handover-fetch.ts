/**
 * @module The default transport of proof hand-overs (compact payments): in Node, a connection of
 * its own for every hand-over, so it never rides the keep-alive connection the wallet syncs over
 * and cannot be joined to the sync by connection; in browsers, the page's `fetch` (the browser
 * pools connections as it sees fit). Either way the pool node sees the address the hand-over comes
 * from: route it through a proxy or Tor with `WalletOptions.handOverFetch`
 * (docs/compact-payments.md, privacy). Node's modules load only when a hand-over runs in Node, so
 * nothing here reaches a page.
 */

/** A `fetch` over a fresh connection per request (Node); the global `fetch` elsewhere. */
export function handOverFetch(): typeof fetch {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions
    ?.node;
  if (node === undefined) return (input, init) => globalThis.fetch(input, init);
  return freshConnectionFetch;
}

/** `fetch`'s shape over `node:http(s)` with no agent: one connection, closed after the reply. */
async function freshConnectionFetch(
  input: RequestInfo | URL,
  init?: RequestInit,
): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const { request: send } =
    url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const body = request.body === null ? null : new Uint8Array(await request.arrayBuffer());
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body !== null) headers['content-length'] = String(body.length);
  return new Promise<Response>((resolve, reject) => {
    const outgoing = send(
      url,
      { method: request.method, headers, agent: false, signal: request.signal },
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
          const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
          let at = 0;
          for (const chunk of chunks) {
            bytes.set(chunk, at);
            at += chunk.length;
          }
          const noBody = status === 204 || status === 304 || request.method === 'HEAD';
          resolve(new Response(noBody ? null : bytes, { status, headers: replyHeaders }));
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body ?? undefined);
  });
}
