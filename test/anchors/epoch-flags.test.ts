// The epoch grid's configuration of `priv-stark start` and `pool serve`: defaults E = 60 s and
// D = 10 s, the environment, flags over it, a shorter epoch's default delay, and refusals.

import { describe, expect, it } from 'vitest';

import { epochGridConfig } from '../../src/cli/epoch-flags.js';
import { startConfig, UsageError } from '../../src/cli/start.js';

describe('--epoch-ms and --anchor-delay-ms', () => {
  it('defaults to E = 60 s and D = 10 s; the environment, then flags, choose others', () => {
    expect(startConfig([], {}).epoch).toEqual({ epochMs: 60_000, anchorDelayMs: 10_000 });
    const env = { EPOCH_MS: '30000', ANCHOR_DELAY_MS: '4000' };
    expect(startConfig([], env).epoch).toEqual({ epochMs: 30_000, anchorDelayMs: 4_000 });
    expect(startConfig(['--epoch-ms', '120000', '--anchor-delay-ms', '20000'], env).epoch).toEqual({
      epochMs: 120_000,
      anchorDelayMs: 20_000,
    });
    // A shorter epoch without a delay keeps a sixth of it; 1 ms is no grid.
    expect(epochGridConfig({}, { EPOCH_MS: '6000' })).toEqual({
      epochMs: 6000,
      anchorDelayMs: 1000,
    });
    expect(epochGridConfig({ 'epoch-ms': '1' }, {})).toEqual({ epochMs: 1, anchorDelayMs: 0 });
  });

  it('refuses junk, a zero epoch and a delay not below the epoch (twin: one below it)', () => {
    for (const [values, env] of [
      [{ 'epoch-ms': 'x' }, {}],
      [{ 'epoch-ms': '0' }, {}],
      [{}, { EPOCH_MS: '-5' }],
      [{ 'epoch-ms': '60000', 'anchor-delay-ms': '60000' }, {}],
      [{}, { ANCHOR_DELAY_MS: '1e4' }],
    ] as const)
      expect(() => epochGridConfig(values, env)).toThrow(UsageError);
    expect(epochGridConfig({ 'epoch-ms': '60000', 'anchor-delay-ms': '59999' }, {})).toEqual({
      epochMs: 60_000,
      anchorDelayMs: 59_999,
    });
  });
});
