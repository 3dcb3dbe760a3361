/**
 * @module The operator's recording reverse proxy: it stands in front of the facilitator or the
 * pool node as an operator's own proxy would, forwards every request unchanged and writes down
 * what it saw — the source address, the time, the method, the path with its query, the status, the
 * body's size and SHA-256, and the identifiers in the request and reply bodies an operator can
 * read (anchors, nullifiers, proof references, amounts, recipients). The product logs no address;
 * this is the operator's view built outside it. Each reply closes its connection (see
 * `source-address.ts`).
 */

import { createHash } from 'node:crypto';
import { createServer, request as send, type IncomingMessage, type Server } from 'node:http';

import { bodyFields, type BodyFields } from './body-fields.js';

/** One request as the operator's proxy saw it. */
export interface RecordedRequest {
  /** Which service it was in front of. */
  readonly service: 'facilitator' | 'pool';
  /** Unix ms when the request arrived. */
  readonly time: number;
  readonly source: string;
  readonly method: string;
  /** Path with its query string. */
  readonly path: string;
  readonly status: number;
  /** Request body bytes and their SHA-256 (hex). */
  readonly bytes: number;
  readonly digest: string;
  /** What the request body names. */
  readonly sent: BodyFields;
  /** What the reply body names. */
  readonly answered: BodyFields;
}

/** A running recording proxy. */
export interface RecordingProxy {
  readonly url: string;
  readonly records: RecordedRequest[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host']);

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** Starts a proxy on 127.0.0.1 in front of `target` (a base URL). */
export async function startRecordingProxy(
  service: RecordedRequest['service'],
  target: string,
): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const records: RecordedRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const time = Date.now();
    const source = req.socket.remoteAddress ?? '';
    try {
      const body = await readAll(req);
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      headers['content-length'] = String(body.length);
      const reply = await new Promise<{
        status: number;
        headers: IncomingMessage['headers'];
        body: Buffer;
      }>((resolve, reject) => {
        const out = send(
          {
            host: upstream.hostname,
            port: upstream.port,
            path: req.url,
            method: req.method,
            headers,
            agent: false,
          },
          async (incoming) => {
            try {
              resolve({
                status: incoming.statusCode ?? 502,
                headers: incoming.headers,
                body: await readAll(incoming),
              });
            } catch (error) {
              reject(error);
            }
          },
        );
        out.on('error', reject);
        out.end(body);
      });
      records.push({
        service,
        time,
        source,
        method: req.method ?? '',
        path: req.url ?? '',
        status: reply.status,
        bytes: body.length,
        digest: createHash('sha256').update(body).digest('hex'),
        sent: bodyFields(body),
        answered: bodyFields(reply.body),
      });
      for (const [name, value] of Object.entries(reply.headers))
        if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
      res.setHeader('connection', 'close');
      res.setHeader('content-length', String(reply.body.length));
      res.writeHead(reply.status);
      res.end(reply.body);
    } catch {
      res.writeHead(502, { connection: 'close' });
      res.end();
    }
  });
  server.keepAliveTimeout = 1;
  const url = await new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`),
    ),
  );
  return {
    url,
    records,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
