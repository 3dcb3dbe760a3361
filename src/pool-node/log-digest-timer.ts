/**
 * @module The pool node's log digests kept up to date (docs/audit.md, "Log digest"): every few
 * seconds the digester (`src/audit/log-digester.ts`) folds the checkpoints published since the
 * last recorded digest. Any number of nodes on one store may run it: the first record of a
 * checkpoint stands, and they compute the same one. A failure is logged with its code and tried
 * again on the next tick; it never stops the node.
 */

import type { FastifyInstance } from 'fastify';

import { extendLogDigests, LogDigestGapError } from '../audit/index.js';
import { PoolUnavailableError } from '../ledger/errors.js';
import { proofSha256 } from '../ledger/index.js';
import type { Ledger } from '../ledger/ledger.js';

/** How often the digests are extended, ms. */
export const LOG_DIGEST_INTERVAL_MS = 5000;

/**
 * SHA-256 of a proof's bytes with Node's own hash (OpenSSL), the one the store keeps beside each
 * proof: the digester hashes the proofs kept without one, and `@noble/hashes` in JavaScript took a
 * third of a busy pool's digest-keeping CPU.
 */
export const nodeProofHash: (proof: Uint8Array) => Uint8Array = proofSha256;

/** Runs the digester while `app` is up (started when it is ready, stopped when it closes). */
export function keepLogDigests(app: FastifyInstance, ledger: Ledger, intervalMs: number): void {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = extendLogDigests(ledger.store, nodeProofHash)
      .then(() => undefined)
      .catch((error: unknown) => {
        const code =
          error instanceof LogDigestGapError
            ? error.code
            : error instanceof PoolUnavailableError
              ? 'pool_unavailable'
              : 'log_digest_failed';
        // Positions and counts only: no proof, no event field.
        app.log.warn({ code, reason: (error as Error).message }, 'log digests not extended');
      })
      .finally(() => {
        running = null;
      });
  };
  app.addHook('onReady', async () => {
    timer = setInterval(tick, intervalMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await running;
  });
}
