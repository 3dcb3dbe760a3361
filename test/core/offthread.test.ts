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
