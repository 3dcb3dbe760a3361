/**
 * @module Runs WebAssembly binding calls on worker threads (Node, Bun, Deno), so slow calls
 * (proving, big trees) never block the main thread. Each worker owns its own instance; calls go to
 * the least busy worker (`worker-threads.ts`). Idle workers never keep the process alive.
 *
 * Bytes cross between threads as bare `ArrayBuffer`s, copied once, never as typed arrays: Deno's
 * `node:worker_threads` posts a `Uint8Array` slowly — a 60 KB proof took 16-22 ms each way (so a
 * 1.5 ms verification took about 20 ms), while the same bytes as an `ArrayBuffer` take 0.2 ms.
 */

import { availableParallelism } from 'node:os';

import type { RawBinding } from './binding.js';
import { VerificationTimeoutError } from './errors.js';
import {
  WorkerDiedError,
  WorkerThreads,
  WorkerTimeoutError,
  workerScript,
} from './worker-threads.js';

/**
 * A call of the binding, as the worker (`wasm-worker.ts`) takes it: byte arguments as
 * `ArrayBuffer`s (see above), given back to the binding as `Uint8Array`s.
 */
export interface WasmCall {
  readonly method: keyof RawBinding;
  readonly args: readonly unknown[];
}

/** Worker threads, each with one WebAssembly instance. */
export class WasmThreads {
  readonly #threads: WorkerThreads<WasmCall, Uint8Array>;

  constructor(wasmUrl: URL, size = Math.max(1, availableParallelism() - 1)) {
    this.#threads = new WorkerThreads({
      script: workerScript(import.meta.url, 'wasm-worker'),
      workerData: { wasmUrl: wasmUrl.href },
      size,
    });
  }

  /**
   * Runs `method(...args)` of the binding on a worker; with `timeoutMs`, waits that long at most
   * (only verification has a deadline: proving a large witness legitimately takes long).
   * @throws Error with the binding's `"<code>: <message>"`; `internal_panic` when the worker died;
   *   VerificationTimeoutError when `timeoutMs` passed
   */
  async run<M extends keyof RawBinding>(
    method: M,
    args: readonly unknown[],
    timeoutMs?: number,
  ): Promise<Uint8Array> {
    try {
      const posted = args.map((arg) => (arg instanceof Uint8Array ? bufferOf(arg) : arg));
      const answer: unknown = await this.#threads.run({ method, args: posted }, { timeoutMs });
      return (answer instanceof ArrayBuffer ? new Uint8Array(answer) : answer) as Uint8Array;
    } catch (error) {
      if (error instanceof WorkerTimeoutError) throw new VerificationTimeoutError(timeoutMs ?? 0);
      if (error instanceof WorkerDiedError) throw new Error(`internal_panic: ${error.message}`);
      throw new Error((error as Error).message);
    }
  }

  /** Stops every worker. */
  close(): Promise<void> {
    return this.#threads.close();
  }
}

/** The bytes of a view as an `ArrayBuffer` of their own (a copy: the caller keeps its view). */
export function bufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer as ArrayBuffer;
}
