/**
 * @module Logger options of the facilitator listener (pino): one line per reply with the request
 * id, route, status, reason and time; bodies are never logged; secrets and proofs are redacted
 * wherever they might appear (defence in depth — nothing logs them on purpose).
 */

import { destination, type DestinationStream, type LoggerOptions } from 'pino';

import { serializeError } from '../log/serialize-error.js';

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

/** Bytes of log lines held before they are written (a line is about 200 bytes). */
export const LOG_BUFFER_BYTES = 4096;
/** At most this long, ms, before held lines are written anyway. */
export const LOG_FLUSH_MS = 200;

/**
 * Standard output, written in batches: one reply line per request written on its own costs a
 * write on a libuv thread and the wake-ups around it, about as much as the rest of the log line
 * at load. Held lines are written when {@link LOG_BUFFER_BYTES} are pending, every
 * {@link LOG_FLUSH_MS}, and at exit (pino flushes its destinations then); a SIGKILL loses what is
 * held.
 */
export function batchedStdout(): DestinationStream {
  return destination({
    dest: 1,
    sync: false,
    minLength: LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
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
