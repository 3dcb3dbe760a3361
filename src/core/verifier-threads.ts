/**
 * @module Proof verification on worker threads that run at a lower scheduling priority than the
 * event loop's thread. With the libuv thread pool (4 threads on a 2-core machine) the
 * verifications outnumber the cores and the event loop gets a fraction of one, so parsing and
 * answering requests — not verification — become the limit. Here the workers take whatever CPU
 * the event loop leaves: one worker per core, each niced (Linux applies nice per thread).
 */

import { availableParallelism } from 'node:os';

import type { Backend } from './binding.js';
import { encodePublicInputs, type SpendPublicInputs, type VerifyResult } from './spend.js';
import { WorkerThreads, workerScript } from './worker-threads.js';

/** A verification, as the worker (`verifier-worker.ts`) takes it. */
export interface VerifyJob {
  readonly proof: Uint8Array;
  readonly publicInputs: Uint8Array;
}

/** Options of {@link VerifierThreads}. */
export interface VerifierThreadsOptions {
  /** The backend the workers load (the one the process loaded). */
  readonly backend: Backend;
  /** Workers (default: one per core). */
  readonly size?: number | undefined;
  /** Nice value of the worker threads (default 10; 0 for none). */
  readonly nice?: number | undefined;
  /** Parameter sets the workers accept (default: the core's default list). */
  readonly acceptedParameterSets?: readonly number[] | undefined;
}

/**
 * A verifier with the core's `verifySpend` shape, for the facilitator and the ledger.
 * @example
 * const verifier = await VerifierThreads.start({ backend: core.backend });
 * const verdict = await verifier.verify(proof, publicInputs);
 */
export class VerifierThreads {
  private constructor(private readonly threads: WorkerThreads<VerifyJob, VerifyResult>) {}

  /** Starts the workers and waits until each has loaded the backend. */
  static async start(options: VerifierThreadsOptions): Promise<VerifierThreads> {
    const threads = new WorkerThreads<VerifyJob, VerifyResult>({
      script: workerScript(import.meta.url, 'verifier-worker'),
      workerData: {
        backend: options.backend,
        nice: options.nice ?? 10,
        accepted: options.acceptedParameterSets && Uint8Array.from(options.acceptedParameterSets),
      },
      size: options.size ?? Math.max(1, availableParallelism()),
    });
    try {
      await threads.start();
    } catch (error) {
      await threads.close();
      throw error;
    }
    return new VerifierThreads(threads);
  }

  /**
   * Verifies a proof on the least busy worker. Like the core's `verifySpend`, hostile bytes or
   * inputs give a verdict, never an exception; a worker that died gives `internal_panic`.
   */
  verify = async (proof: Uint8Array, publicInputs: SpendPublicInputs): Promise<VerifyResult> => {
    let encoded: Uint8Array;
    try {
      encoded = encodePublicInputs(publicInputs);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return { ok: false, code: typeof code === 'string' ? code : 'invalid_encoding' };
    }
    try {
      return await this.threads.run({ proof, publicInputs: encoded });
    } catch {
      return { ok: false, code: 'internal_panic' };
    }
  };

  /** Verifications sent and not answered yet (the queue, for metrics). */
  get busy(): number {
    return this.threads.busy;
  }

  /** Threads. */
  get size(): number {
    return this.threads.size;
  }

  /** Stops the workers. */
  close(): Promise<void> {
    return this.threads.close();
  }
}
