/**
 * @module Why the chain could not be used, as stable codes: what the pool node refuses to start on
 * (exit 2, the message saying why) and what a poll of the deposit watcher failed on (its status's
 * `error`). Messages name the RPC's answer in short, never a key.
 */

import { BaseError, HttpRequestError, RpcRequestError, TimeoutError } from 'viem';

/** A stable code of a chain failure. */
export type ChainErrorCode =
  /** The RPC did not answer (refused, timed out, an HTTP error). */
  | 'rpc_unreachable'
  /** The RPC answered with a JSON-RPC error. */
  | 'rpc_error'
  /** The RPC's answer is not what the method returns (a log that does not decode, a block out of range…). */
  | 'rpc_malformed'
  /** The RPC serves another chain than the one configured or bound. */
  | 'chain_id_mismatch'
  /** No contract at the escrow's address. */
  | 'escrow_missing'
  /** The escrow holds another token than the one configured or bound. */
  | 'token_mismatch'
  /** The store backs another pool (another escrow, or the devnet's deposits). */
  | 'binding_mismatch'
  /** The escrow's deployment block could not be found. */
  | 'deploy_block_unknown'
  /** The escrow refused the acceptor's batch as a whole (its key lacks the role). */
  | 'acceptance_refused'
  /** The escrow refused an attestation otherwise than as not newer (the key lacks the role). */
  | 'attestation_refused';

/** A chain failure with a stable {@link ChainErrorCode}. */
export class ChainError extends Error {
  override readonly name = 'ChainError';
  constructor(
    readonly code: ChainErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A thrown RPC failure as a {@link ChainError}: unreachable (transport, timeout), an error answer,
 * or a malformed one (what viem could not parse). A `ChainError` passes through.
 */
export function chainErrorOf(error: unknown, what: string): ChainError {
  if (error instanceof ChainError) return error;
  if (error instanceof BaseError) {
    const http = error.walk((e) => e instanceof HttpRequestError) as HttpRequestError | null;
    // An answer that is no JSON-RPC (a success status, or a body that does not parse) is
    // malformed, not missing.
    const unparsed = http !== null && causes(http).some((e) => e instanceof SyntaxError);
    if (unparsed || (http?.status !== undefined && http.status >= 200 && http.status < 300))
      return new ChainError('rpc_malformed', `${what}: the RPC answered something not JSON-RPC`, {
        cause: error,
      });
    if (http || error.walk((e) => e instanceof TimeoutError))
      return new ChainError('rpc_unreachable', `${what}: the RPC did not answer`, { cause: error });
    if (error.walk((e) => e instanceof RpcRequestError))
      return new ChainError('rpc_error', `${what}: ${error.shortMessage.slice(0, 200)}`, {
        cause: error,
      });
  }
  const message = error instanceof BaseError ? error.shortMessage : String(error);
  return new ChainError('rpc_malformed', `${what}: ${message.slice(0, 200)}`, { cause: error });
}

/** `error` and its causes, outermost first. */
function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && out.length < 16; e = (e as Error).cause)
    out.push(e);
  return out;
}
