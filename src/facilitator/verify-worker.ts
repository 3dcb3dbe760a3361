/**
 * @module A proof-verification worker thread for `verify-pool.ts`: loads the backend's raw
 * binding, lowers its own scheduling priority (Linux nice is per thread), and verifies proofs
 * synchronously, one at a time, answering each with a verdict.
 */

import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

import type { Backend, RawBinding } from '../core/binding.js';
import { coreErrorFrom } from '../core/errors.js';
import { loadNative } from '../core/native.js';
import { loadWasm } from '../core/wasm.js';

interface Request {
  readonly id: number;
  readonly proof: Uint8Array;
  readonly publicInputs: Uint8Array;
}

const port = parentPort;
if (!port) throw new Error('verify-worker must run in a worker thread');
const { backend, nice } = workerData as { backend: Backend; nice: number };

try {
  // This thread only: the event loop's thread keeps its priority, so it is never starved by
  // verification and keeps parsing, answering and committing.
  setPriority(nice);
} catch {
  // not permitted here: verify at normal priority
}

const binding: RawBinding = backend === 'native' ? loadNative() : await loadWasm(undefined, false);

port.on('message', ({ id, proof, publicInputs }: Request) => {
  try {
    binding.verifySpend(proof, publicInputs);
    port.postMessage({ id, ok: true });
  } catch (error) {
    port.postMessage({ id, ok: false, code: coreErrorFrom(error).code });
  }
});
port.postMessage({ ready: true });
