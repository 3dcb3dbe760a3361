/**
 * @module What the primary process of `priv-stark start --workers N` and a worker say about the
 * worker's life (its calls are `ipc-calls.ts`): start with this configuration, ready or failed,
 * stop.
 */

import type { ServiceConfig } from './service.js';

/** A message of a worker's life, tagged among the channel's others. */
export type WorkerMessage =
  | {
      readonly tag: 'priv-stark:worker';
      readonly kind: 'start';
      readonly config: ServiceConfig;
      readonly clientSalt: Uint8Array;
      /** Bind own sockets with `SO_REUSEPORT` (else the primary hands connections over). */
      readonly reusePort: boolean;
    }
  | {
      readonly tag: 'priv-stark:worker';
      readonly kind: 'ready';
      readonly facilitatorUrl: string | null;
      readonly poolNodeUrl: string | null;
    }
  | {
      readonly tag: 'priv-stark:worker';
      readonly kind: 'failed';
      readonly message: string;
      /** The configuration was refused (the CLI exits 2), not a fault. */
      readonly configError: boolean;
    }
  | { readonly tag: 'priv-stark:worker'; readonly kind: 'stop' };

/** `message` when it is one of these, else `null`. */
export function workerMessage(message: unknown): WorkerMessage | null {
  return typeof message === 'object' &&
    message !== null &&
    (message as { tag?: unknown }).tag === 'priv-stark:worker'
    ? (message as WorkerMessage)
    : null;
}
