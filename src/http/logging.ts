/**
 * @module Logger options of the facilitator listener (pino): one line per reply with the request
 * id, route, status, reason and time; bodies are never logged; secrets and proofs are redacted
 * wherever they might appear (defence in depth — nothing logs them on purpose).
 */

import type { DestinationStream, LoggerOptions } from 'pino';

import { batchedStdout } from '../listener/batched-stdout.js';
import { serializeError } from '../listener/serialize-error.js';

/** Paths pino censors in every log line. */
export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'apiKey',
  '*.apiKey',
  'apiKeys',
  '*.apiKeys',
  'token',
  '*.token',
  'operatorToken',
  '*.operatorToken',
  'proof',
  '*.proof',
  '*.*.proof',
  'body',
  '*.body',
];

/** What the caller may set. */
export interface LogSettings {
  /** pino level (default `info`). */
  readonly level?: string;
  /** Where lines go (default stdout). */
  readonly stream?: DestinationStream;
}

/** pino options with redaction and minimal request serializers (batched stdout by default). */
export function loggerOptions(
  settings: LogSettings = {},
): LoggerOptions & { stream?: DestinationStream } {
  return {
    level: settings.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      err: serializeError,
      // Only what identifies the request: never headers, query strings or bodies.
      req: (request: { method?: string; url?: string; id?: string }) => ({
        method: request.method,
        path: (request.url ?? '').split('?', 1)[0]?.slice(0, 200),
      }),
    },
    stream: settings.stream ?? batchedStdout(),
  };
}
