/**
 * @module Replies to requests Node's HTTP parser could not read — headers over the size limit, a
 * malformed request line, a request that timed out — which never reach Fastify's routes or error
 * handler. They still get x402-shaped JSON with a reason of the registry, in the shape of the
 * route the request line named when it can be read (`/settle` → settle, anything else → verify),
 * and the connection is closed, as Node does for these.
 */

import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

import type { Reason } from '../scheme/index.js';
import { failureReply, replyKindOf } from './replies.js';

/** The reason for a parser error: too large headers are a request over the limit. */
function reasonOfClientError(code: unknown): Reason {
  return code === 'HPE_HEADER_OVERFLOW' ? 'payload_too_large' : 'invalid_payload';
}

/** The path of the request line in what the parser had received, if it is readable. */
function pathOf(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '';
  const line = rawPacket.subarray(0, 256).toString('latin1').split('\r\n', 1)[0] ?? '';
  return /^[A-Z]+ (\/\S*) HTTP\/1\.[01]$/.exec(line)?.[1] ?? '';
}

/**
 * The raw HTTP reply for a client error of the parser.
 * @example
 * clientErrorReply({ code: 'HPE_HEADER_OVERFLOW' }); // 'HTTP/1.1 413 Payload Too Large\r\n…{"isValid":false,…}'
 */
export function clientErrorReply(error: { code?: unknown; rawPacket?: unknown }): string {
  const reply = failureReply(replyKindOf(pathOf(error.rawPacket)), reasonOfClientError(error.code));
  const body = JSON.stringify(reply.body);
  return [
    `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Fastify's `clientErrorHandler`: answers in the x402 shape, then closes the connection. */
export function onClientError(
  error: Error & { code?: unknown; rawPacket?: unknown },
  socket: Socket,
): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // A reply already under way on this connection cannot be followed by another: just close.
  const inProgress =
    (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent ===
    true;
  if (socket.writable && !inProgress) socket.end(clientErrorReply(error));
  else socket.destroy();
}
