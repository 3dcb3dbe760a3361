/**
 * @module A worker thread that owns one WebAssembly instance and runs binding calls for
 * `wasm-pool.ts`, so slow calls (proving, big trees) never block the main thread.
 */

import { parentPort, workerData } from 'node:worker_threads';

import type { RawBinding } from './binding.js';
import { loadWasm } from './wasm.js';

interface Request {
  readonly id: number;
  readonly method: keyof RawBinding;
  readonly args: readonly unknown[];
}

const port = parentPort;
if (!port) throw new Error('wasm-worker must run in a worker thread');

const binding = await loadWasm(new URL((workerData as { wasmUrl: string }).wasmUrl), false);

port.on('message', ({ id, method, args }: Request) => {
  try {
    const fn = binding[method] as (...a: unknown[]) => unknown;
    const result = fn(...args);
    if (result instanceof Uint8Array) {
      port.postMessage({ id, ok: true, result }, [result.buffer as ArrayBuffer]);
    } else {
      port.postMessage({ id, ok: true, result });
    }
  } catch (error) {
    port.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
port.postMessage({ ready: true });
