// Every verification settles: a binding that never answers gives VerificationTimeoutError after the
// core's deadline, on both backends; the twin, the same core over a binding that answers, gives the
// fixture's verdict. The deadline reaches the WebAssembly worker threads, which release the job.

import { describe, expect, it } from 'vitest';

import {
  createCore,
  DEFAULT_VERIFY_TIMEOUT_MS,
  loadNative,
  loadWasm,
  type RawBinding,
  VerificationTimeoutError,
} from '../../src/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { goldenProof } from '../helpers/golden-proof.js';

const { proof, inputs } = goldenProof();

const raws: Record<string, () => Promise<RawBinding>> = {
  native: async () => loadNative(),
  wasm: () => loadWasm(),
};

describe.each(BACKENDS)('%s backend: a verification always settles', (backend) => {
  it('rejects with VerificationTimeoutError when the binding never answers, and not when it does', async () => {
    const raw = await raws[backend]!();
    const silent: RawBinding = { ...raw, verifySpendAsync: () => new Promise(() => undefined) };
    const lost = createCore(silent, backend, { verifyTimeoutMs: 200 });
    const outcome = await lost.verifySpend(proof, inputs).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(VerificationTimeoutError);
    expect(outcome).toMatchObject({ timeoutMs: 200, message: 'no verdict within 200 ms' });
    const answering = createCore(raw, backend, { verifyTimeoutMs: 200_000 });
    expect(await answering.verifySpend(proof, inputs)).toEqual({ ok: true });
  });

  it('hands its deadline to the binding (the worker threads release a job past it)', async () => {
    const raw = await raws[backend]!();
    const deadlines: (number | undefined)[] = [];
    const recording: RawBinding = {
      ...raw,
      verifySpendAsync: (p, i, accepted, timeoutMs) => {
        deadlines.push(timeoutMs);
        return raw.verifySpendAsync(p, i, accepted, timeoutMs);
      },
    };
    await createCore(recording, backend).verifySpend(proof, inputs);
    await createCore(recording, backend, { verifyTimeoutMs: 5000 }).verifySpend(proof, inputs);
    expect(deadlines).toEqual([DEFAULT_VERIFY_TIMEOUT_MS, 5000]);
  });

  it('refuses a deadline that is not a positive integer of milliseconds', async () => {
    const raw = await raws[backend]!();
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 31])
      expect(() => createCore(raw, backend, { verifyTimeoutMs: bad })).toThrow(RangeError);
  });
});

describe('wasm backend: the worker threads apply the deadline themselves', () => {
  it('turns a verification its threads did not answer in time into VerificationTimeoutError', async () => {
    const raw = await loadWasm();
    // 1 ms: the first call starts a worker thread and compiles the module in it, which takes far
    // longer, so the threads' own deadline passes first.
    const outcome = await raw
      .verifySpendAsync(proof, new Uint8Array(0), undefined, 1)
      .catch((e) => e);
    expect(outcome).toBeInstanceOf(VerificationTimeoutError);
    // The twin: the same threads, given time, answer (a refusal of the empty inputs here).
    const answered = await raw
      .verifySpendAsync(proof, new Uint8Array(0), undefined, 60_000)
      .catch((e) => e);
    expect(answered).not.toBeInstanceOf(VerificationTimeoutError);
    expect(String(answered)).toMatch(/^Error: [a-z_]+: /);
  });
});
