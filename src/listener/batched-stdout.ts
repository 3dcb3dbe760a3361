/**
 * @module Standard output for the listeners' log lines, written in batches: one reply line per
 * request written on its own costs a write on a libuv thread and the wake-ups around it, about as
 * much as the rest of the log line at load.
 */

import { type DestinationStream, destination } from 'pino';

/** Bytes of log lines held before they are written (a line is about 200 bytes). */
export const LOG_BUFFER_BYTES = 4096;
/** At most this long, ms, before held lines are written anyway. */
export const LOG_FLUSH_MS = 200;

/**
 * Standard output, batched: held lines are written when {@link LOG_BUFFER_BYTES} are pending,
 * every {@link LOG_FLUSH_MS}, and at exit (pino flushes its destinations then); a SIGKILL loses
 * what is held.
 */
export function batchedStdout(): DestinationStream {
  return destination({
    dest: 1,
    sync: false,
    minLength: LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
}
