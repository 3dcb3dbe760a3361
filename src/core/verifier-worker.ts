/**
 * @module A proof-verification worker thread for `verifier-threads.ts`: loads the backend's raw
 * binding, lowers its own scheduling priority (Linux nice is per thread), and verifies proofs
 * synchronously, one at a time, answering each with a verdict.
 */

import { setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';

import type { Backend, RawBinding } from './binding.js';
import { coreErrorFrom } from './errors.js';
import { loadNative } from './native.js';
import type { VerifyResult } from './spend.js';
import type { VerifyJob } from './verifier-threads.js';
import { loadWasm } from './wasm.js';
import { serveJobs } from './worker-threads.js';

const { backend, nice, accepted } = workerData as {
  backend: Backend;
  nice: number;
  accepted: Uint8Array | undefined;
};

try {
  // This thread only: the event loop's thread keeps its priority, so it is never starved by
  // verification and keeps parsing, answering and committing.
  setPriority(nice);
} catch {
  // not permitted here: verify at normal priority
}

const binding: RawBinding = backend === 'native' ? loadNative() : await loadWasm(undefined, false);

serveJobs<VerifyJob>(({ proof, publicInputs }): VerifyResult => {
  try {
    if (accepted === undefined) binding.verifySpend(proof, publicInputs);
    else binding.verifySpend(proof, publicInputs, accepted);
    return { ok: true };
  } catch (error) {
    return { ok: false, code: coreErrorFrom(error).code };
  }
});
