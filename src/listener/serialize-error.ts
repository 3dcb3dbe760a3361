/**
 * @module How errors are written to the logs of every listener (the facilitator's and the pool
 * node's): type, code, message and stack only, causes likewise. pino's standard serializer copies
 * every field of an error, and driver errors carry request data in theirs (PostgreSQL's `detail`
 * names the key values of a violated constraint: a nullifier, say).
 */

/** A logged error, without its other fields. */
interface LoggedError {
  readonly type: string;
  readonly code?: string;
  readonly message: string;
  readonly stack?: string;
  readonly cause?: LoggedError;
}

/**
 * An error as its type, code, message and stack, and its causes likewise (three deep).
 * @example
 * pino({ serializers: { err: serializeError } });
 */
export function serializeError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error))
    return { type: typeof error, message: String(error).slice(0, 200) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: error.message,
    ...(error.stack ? { stack: error.stack } : {}),
    ...(error.cause !== undefined && depth < 3
      ? { cause: serializeError(error.cause, depth + 1) }
      : {}),
  };
}
