/**
 * @module Runs WebAssembly binding calls on worker threads (Node). Each worker owns its own
 * instance; calls go to the least busy worker. Workers are unref'd, so an idle pool never keeps
 * the process alive.
 */

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import type { RawBinding } from './binding.js';

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

/** A pool of workers, each with one WebAssembly instance. */
export class WasmPool {
  readonly #slots: Slot[];
  readonly #wasmUrl: URL;
  #nextId = 0;
  #closed = false;

  constructor(wasmUrl: URL, size = Math.max(1, availableParallelism() - 1)) {
    this.#wasmUrl = wasmUrl;
    this.#slots = Array.from({ length: size }, () => this.#spawn());
  }

  #spawn(): Slot {
    const ts = import.meta.url.endsWith('.ts');
    const script = new URL(`./wasm-worker.${ts ? 'ts' : 'js'}`, import.meta.url);
    const workerData = { wasmUrl: this.#wasmUrl.href };
    // Under the test runner the sources are TypeScript: the worker registers the same loader
    // (tsx, a development dependency) before importing its script.
    const worker = ts
      ? new Worker(
          `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); })`,
          { eval: true, workerData },
        )
      : new Worker(script, { workerData });
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (message: { id?: number; ok?: boolean; result?: unknown; message?: string }) => {
      if (message.id === undefined) return;
      const pending = slot.pending.get(message.id);
      if (!pending) return;
      slot.pending.delete(message.id);
      if (message.ok) pending.resolve(message.result);
      else pending.reject(new Error(message.message ?? 'internal_panic: worker failed'));
    });
    worker.on('error', (error) => this.#retire(slot, error));
    worker.on('exit', () => this.#retire(slot, new Error('worker exited')));
    worker.unref();
    return slot;
  }

  /** Fails a dead worker's calls and puts a fresh worker in its place. */
  #retire(slot: Slot, error: Error): void {
    for (const pending of slot.pending.values()) pending.reject(new Error(`internal_panic: ${error.message}`));
    slot.pending.clear();
    const at = this.#slots.indexOf(slot);
    if (at >= 0 && !this.#closed) this.#slots[at] = this.#spawn();
  }

  /** Runs `method(...args)` of the binding on a worker. */
  run<M extends keyof RawBinding>(method: M, ...args: unknown[]): Promise<Uint8Array> {
    const slot = this.#slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
    const id = this.#nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      slot.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (slot.pending.size === 1) slot.worker.ref();
      slot.worker.postMessage({ id, method, args });
    }).finally(() => {
      if (slot.pending.size === 0) slot.worker.unref();
    });
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.map((s) => s.worker.terminate()));
  }
}
