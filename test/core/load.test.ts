// loadCore(): native first, WASM as fallback, a forced backend, and one chained error when
// nothing loads.

import { describe, expect, it } from 'vitest';

import { BackendLoadError, loadCore } from '../../src/index.js';

describe('loadCore', () => {
  it('prefers the native addon', async () => {
    const saved = process.env.PRIV_STARK_BACKEND;
    delete process.env.PRIV_STARK_BACKEND;
    try {
      expect((await loadCore()).backend).toBe('native');
    } finally {
      if (saved !== undefined) process.env.PRIV_STARK_BACKEND = saved;
    }
  });

  it('honours a forced backend, by option and by PRIV_STARK_BACKEND', async () => {
    expect((await loadCore({ backend: 'wasm' })).backend).toBe('wasm');
    process.env.PRIV_STARK_BACKEND = 'wasm';
    try {
      expect((await loadCore()).backend).toBe('wasm');
      process.env.PRIV_STARK_BACKEND = 'gpu';
      await expect(loadCore()).rejects.toThrow(RangeError);
    } finally {
      delete process.env.PRIV_STARK_BACKEND;
    }
  });

  it('falls back to WASM when the addon does not load', async () => {
    const core = await loadCore({ nativePath: '/nonexistent/priv-stark.node' });
    expect(core.backend).toBe('wasm');
  });

  it('chains both causes when neither loads', async () => {
    const failing = loadCore({
      nativePath: '/nonexistent/priv-stark.node',
      wasmUrl: new URL('file:///nonexistent/priv_stark.wasm'),
    });
    await expect(failing).rejects.toBeInstanceOf(BackendLoadError);
    const error = (await failing.then(
      () => undefined,
      (e: unknown) => e,
    )) as BackendLoadError;
    const cause = error.cause as AggregateError;
    expect(cause).toBeInstanceOf(AggregateError);
    expect(cause.errors.map((e: Error) => e.message.split(':')[0])).toEqual(['native', 'wasm']);
  });
});
