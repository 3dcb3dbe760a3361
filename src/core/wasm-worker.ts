/**
 * @module A worker thread that owns one WebAssembly instance and runs binding calls for
 * `wasm-threads.ts`.
 */

import { workerData } from 'node:worker_threads';

import type { WasmCall } from './wasm-threads.js';
import { loadWasm } from './wasm.js';
import { serveJobs, transferred } from './worker-threads.js';

const binding = await loadWasm(new URL((workerData as { wasmUrl: string }).wasmUrl), false);

serveJobs<WasmCall>(({ method, args }) => {
  const result = (binding[method] as (...a: unknown[]) => unknown)(...args);
  return result instanceof Uint8Array
    ? transferred(result, [result.buffer as ArrayBuffer])
    : result;
});
