/**
 * @module The MCP server over its two transports. stdio: the protocol alone on stdout (anything a
 * library prints goes to stderr). Streamable HTTP: loopback only, stateless (a server per request
 * over the one agent), and closed to browsers — a request must name the loopback host it was sent
 * to (against DNS rebinding), must not carry an `Origin` (a web page's request does), and, when a
 * token is configured, must carry it as a bearer token.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

import type { PaymentAgent } from './agent.js';
import { registerTools } from './tools.js';

/** The server's name and version, as MCP clients see them. */
export const SERVER_INFO = { name: 'priv-stark', version: '0.1.0' } as const;

const INSTRUCTIONS =
  "Private x402 payments (priv-stark/v1) within a spending policy a person set. quote_payment before pay_and_fetch; a refusal names the policy rule that stopped it and spends nothing. A payment counts once the pool's log shows its settlement; an unsettled one returns to the balance at its expiry. tighten_policy can only narrow the policy. withdraw moves value out of the pool to a destination the policy lists and counts like a payment; merge_notes and split_note keep value in the wallet (not counted, rate-limited) and their new notes are spendable only after a checkpoint, so not right before a payment.";

/** An MCP server with the tools over `agent`. */
export function createMcpServer(agent: PaymentAgent, log?: (line: string) => void): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  registerTools(server, agent, log);
  return server;
}

/** Serves MCP on stdin/stdout; resolves when the client closes the stream. */
export async function serveStdio(agent: PaymentAgent, log?: (line: string) => void): Promise<void> {
  const server = createMcpServer(agent, log);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}

/** A running HTTP endpoint. */
export interface HttpEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

function reply(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: `${code}: ${message}` },
      id: null,
    }),
  );
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body_too_large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Serves MCP over streamable HTTP at `http://127.0.0.1:<port>/mcp`.
 * @param options.port 0 for any free port
 * @param options.token when set, requests need `Authorization: Bearer <token>`
 */
export async function serveHttp(
  agent: PaymentAgent,
  options: { port: number; token?: string | undefined; log?: (line: string) => void },
): Promise<HttpEndpoint> {
  let hosts: Set<string> = new Set();
  const token = options.token ? Buffer.from(`Bearer ${options.token}`) : null;
  const http: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/mcp') return reply(res, 404, 'not_found', 'the MCP endpoint is /mcp');
      if (!hosts.has((req.headers.host ?? '').toLowerCase()))
        return reply(
          res,
          403,
          'host_not_allowed',
          'requests must be sent to the loopback address this server listens on',
        );
      if (req.headers.origin !== undefined)
        return reply(res, 403, 'origin_not_allowed', 'browser requests are refused');
      if (token) {
        const given = Buffer.from(req.headers.authorization ?? '');
        if (given.length !== token.length || !timingSafeEqual(given, token))
          return reply(res, 401, 'unauthorized', 'a bearer token is required');
      }
      if (req.method !== 'POST')
        return reply(res, 405, 'method_not_allowed', 'this server is stateless: POST only');
      let body: unknown;
      try {
        body = await readJson(req);
      } catch {
        return reply(res, 400, 'invalid_body', `a JSON body of at most ${MAX_BODY_BYTES} bytes`);
      }
      const server = createMcpServer(agent, options.log);
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true }); // no session id generator: stateless;
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((error: unknown) => {
      options.log?.(`http: ${(error as Error).message}`);
      if (!res.headersSent) reply(res, 500, 'internal_error', 'the request failed');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (http.address() as { port: number }).port;
  hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
