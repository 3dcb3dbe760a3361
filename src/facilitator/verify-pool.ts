/**
 * @module Proof verification on a pool of worker threads that run at a lower scheduling priority
 * than the event loop's thread. With the libuv thread pool (4 threads on a 2-core machine) the
 * verifications outnumber the cores and the event loop gets a fraction of one, so parsing and
 * answering requests — not verification — become the limit. Here the workers take whatever CPU
 * the event loop leaves: one worker per core, each niced (Linux applies nice per thread).
 */

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import type { Backend, SpendPublicInputs, VerifyResult } from '../core/index.js';
import { encodePublicInputs } from '../core/index.js';

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, (result: VerifyResult) => void>;
}

/** Options of {@link VerifyPool}. */
export interface VerifyPoolOptions {
  /** The backend the workers load (the one the process loaded). */
  readonly backend: Backend;
  /** Workers (default: one per core). */
  readonly size?: number | undefined;
  /** Nice value of the worker threads (default 10; 0 for none). */
  readonly nice?: number | undefined;
}

/**
 * A verifier for the facilitator and the pool (`verifySpend` of the core's shape).
 * @example
 * const pool = await VerifyPool.start({ backend: core.backend });
 * const verdict = await pool.verify(proof, publicInputs);
 */
export class VerifyPool {
  private readonly slots: Slot[];
  private nextId = 0;
  private closed = false;

  private constructor(private readonly options: { backend: Backend; size: number; nice: number }) {
    this.slots = Array.from({ length: options.size }, () => this.spawn());
  }

  /** Starts the workers and waits until each has loaded the backend. */
  static async start(options: VerifyPoolOptions): Promise<VerifyPool> {
    const pool = new VerifyPool({
      backend: options.backend,
      size: options.size ?? Math.max(1, availableParallelism()),
      nice: options.nice ?? 10,
    });
    await Promise.all(
      pool.slots.map(
        (slot) =>
          new Promise<void>((resolve, reject) => {
            // Referenced while loading, or an idle process would exit before the workers are up.
            slot.worker.ref();
            const onMessage = (message: { ready?: boolean }) => {
              if (message.ready) {
                slot.worker.off('message', onMessage);
                if (slot.pending.size === 0) slot.worker.unref();
                resolve();
              }
            };
            slot.worker.on('message', onMessage);
            slot.worker.once('error', reject);
          }),
      ),
    );
    return pool;
  }

  private spawn(): Slot {
    const ts = import.meta.url.endsWith('.ts');
    const script = new URL(`./verify-worker.${ts ? 'ts' : 'js'}`, import.meta.url);
    const workerData = { backend: this.options.backend, nice: this.options.nice };
    // Under the test runner the sources are TypeScript: the worker registers tsx first.
    const worker = ts
      ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); })`, {
          eval: true,
          workerData,
        })
      : new Worker(script, { workerData });
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (message: { id?: number; ok?: boolean; code?: string }) => {
      if (message.id === undefined) return;
      const resolve = slot.pending.get(message.id);
      slot.pending.delete(message.id);
      resolve?.(message.ok ? { ok: true } : { ok: false, code: message.code ?? 'internal_panic' });
      if (slot.pending.size === 0) worker.unref();
    });
    worker.on('error', () => this.retire(slot));
    worker.on('exit', () => this.retire(slot));
    worker.unref();
    return slot;
  }

  /** A dead worker's calls fail as `internal_panic`; a fresh worker takes its place. */
  private retire(slot: Slot): void {
    for (const resolve of slot.pending.values()) resolve({ ok: false, code: 'internal_panic' });
    slot.pending.clear();
    const at = this.slots.indexOf(slot);
    if (at >= 0 && !this.closed) this.slots[at] = this.spawn();
  }

  /**
   * Verifies a proof on the least busy worker. Like the core's `verifySpend`, hostile bytes or
   * inputs give a verdict, never an exception.
   */
  verify = (proof: Uint8Array, publicInputs: SpendPublicInputs): Promise<VerifyResult> => {
    let encoded: Uint8Array;
    try {
      encoded = encodePublicInputs(publicInputs);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return Promise.resolve({ ok: false, code: typeof code === 'string' ? code : 'invalid_encoding' });
    }
    const slot = this.slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
    const id = this.nextId++;
    return new Promise<VerifyResult>((resolve) => {
      slot.pending.set(id, resolve);
      if (slot.pending.size === 1) slot.worker.ref();
      slot.worker.postMessage({ id, proof, publicInputs: encoded });
    });
  };

  /** Stops the workers. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
