// `loadWasmCore` takes the module as a URL, bytes or a compiled `WebAssembly.Module`, bare or as
// `{ url | bytes | module }`; a compiled module is instantiated, never compiled again (workerd
// forbids compiling: test/runtimes/workerd.test.ts). Each loads a core that verifies the fixture;
// the must-fail twins: a tampered input, and a source of none of those shapes.

import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { loadWasmCore } from '../../src/client/index.js';
import { loadWasm, WASM_URL } from '../../src/core/wasm.js';
import { goldenProof } from '../helpers/golden-proof.js';

const bytes = readFileSync(WASM_URL);
const { proof, inputs } = goldenProof();

describe('loadWasmCore: the module from any source', () => {
  it.each([
    ['a compiled module', async () => ({ module: await WebAssembly.compile(bytes) })],
    ['a bare compiled module', async () => WebAssembly.compile(bytes)],
    ['{ bytes }', async () => ({ bytes: new Uint8Array(bytes) })],
    ['{ url }', async () => ({ url: WASM_URL })],
  ] as const)(
    '%s loads a core that verifies the fixture and refuses a tampered twin',
    async (_, source) => {
      const core = await loadWasmCore(await source());
      expect(core.backend).toBe('wasm');
      expect(await core.verifySpend(proof, inputs)).toEqual({ ok: true });
      expect(
        await core.verifySpend(proof, { ...inputs, amount: `${BigInt(inputs.amount) + 1n}` }),
      ).toEqual({ ok: false, code: 'invalid_proof' });
    },
  );

  it('instantiates a compiled module without compiling (WebAssembly.compile is never called)', async () => {
    const module = await WebAssembly.compile(bytes);
    const compile = WebAssembly.compile;
    let compiled = 0;
    WebAssembly.compile = (...args) => {
      compiled++;
      return compile(...args);
    };
    try {
      await loadWasmCore({ module });
      await loadWasm(module);
    } finally {
      WebAssembly.compile = compile;
    }
    expect(compiled).toBe(0);
    // The twin: from bytes, it compiles.
    WebAssembly.compile = (...args) => {
      compiled++;
      return compile(...args);
    };
    try {
      await loadWasmCore({ bytes });
    } finally {
      WebAssembly.compile = compile;
    }
    expect(compiled).toBe(1);
  });

  it('refuses a source of none of those shapes', async () => {
    await expect(loadWasmCore({} as never)).rejects.toThrow(TypeError);
  });
});
