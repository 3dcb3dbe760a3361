// The async variants run off the JavaScript thread on both backends (libuv pool for the addon,
// worker threads for WebAssembly): the event loop keeps turning while a large tree is hashed.

import { describe, expect, it } from 'vitest';

import { loadBackend } from '../../src/index.js';
import { BACKENDS } from '../helpers/backends.js';

describe.each(BACKENDS)('%s backend: async calls leave the event loop free', (backend) => {
  it('keeps ticking while a 4096-leaf tree is built', async () => {
    const core = await loadBackend(backend);
    const leaves = Array.from(
      { length: 4096 },
      (_, i) => `0x${i.toString(16).padStart(8, '0')}${'0'.repeat(56)}`,
    );
    const expected = core.treeRoot(leaves);
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 1);
    try {
      const root = await core.treeRootAsync(leaves);
      expect(root).toBe(expected);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThanOrEqual(3);
  });
});

describe('wasm backend: bytes cross to the worker threads as their own buffers', () => {
  it('sends a view inside a larger buffer as exactly its bytes, and the caller keeps its view', async () => {
    const { readFileSync } = await import('node:fs');
    const { loadWasm } = await import('../../src/core/wasm.js');
    const raw = await loadWasm();
    const proof = readFileSync(new URL('../fixtures/spend/proof.bin', import.meta.url));
    const fixture = JSON.parse(
      readFileSync(new URL('../fixtures/spend/public.json', import.meta.url), 'utf8'),
    ) as { publicInputs: string };
    const inputs = Uint8Array.from(Buffer.from(fixture.publicInputs, 'hex'));
    // Both surrounded by bytes that would spoil the proof if they were sent along.
    const padded = (bytes: Uint8Array) => {
      const big = new Uint8Array(bytes.length + 64).fill(0xff);
      big.set(bytes, 32);
      return big.subarray(32, 32 + bytes.length);
    };
    const [proofView, inputsView] = [padded(proof), padded(inputs)];
    await expect(raw.verifySpendAsync(proofView, inputsView)).resolves.toEqual(new Uint8Array(0));
    expect(proofView.length).toBe(proof.length);
    expect(Buffer.from(proofView).equals(proof)).toBe(true);
    // The twin: one changed input byte is refused.
    const tampered = inputsView.slice();
    tampered[0]! ^= 1;
    await expect(raw.verifySpendAsync(proofView, tampered)).rejects.toThrow(/^[a-z_]+: /);
  });
});
