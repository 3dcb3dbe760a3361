/**
 * @module A worker thread that owns one WebAssembly instance and runs binding calls for
 * `wasm-threads.ts`.
 */

import { workerData } from 'node:worker_threads';

import { bufferOf, type WasmCall } from './wasm-threads.js';
import { loadWasm } from './wasm.js';
import { serveJobs, transferred } from './worker-threads.js';

const binding = await loadWasm(new URL((workerData as { wasmUrl: string }).wasmUrl), false);

serveJobs<WasmCall>(({ method, args }) => {
  const given = args.map((arg) => (arg instanceof ArrayBuffer ? new Uint8Array(arg) : arg));
  const result = (binding[method] as (...a: unknown[]) => unknown)(...given);
  if (!(result instanceof Uint8Array)) return result;
  // An ArrayBuffer, moved (see wasm-threads.ts for why not the Uint8Array).
  const buffer =
    result.byteOffset === 0 && result.byteLength === result.buffer.byteLength
      ? (result.buffer as ArrayBuffer)
      : bufferOf(result);
  return transferred(buffer, [buffer]);
});
