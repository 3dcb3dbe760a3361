// The one-shot commands' delay before a write (src/cli/write-delay.ts), on an injected wait and
// draw: stored state that covers the epoch writes without a sync; otherwise a sync, a random wait
// of at least one epoch and a second sync; --no-delay writes at once with a warning; no grid, no wait.

import { describe, expect, it } from 'vitest';

import { syncBeforeWrite, type WritingWallet } from '../../src/cli/write-delay.js';

function wallet(covers: boolean, epochMs: number | null) {
  const calls: string[] = [];
  const w: WritingWallet = {
    coversCurrentEpoch: () => covers,
    sync: async () => {
      calls.push('sync');
    },
    epochGrid: epochMs === null ? null : { epochMs, anchorDelayMs: 0 },
  };
  return { w, calls };
}

describe('the delay before a one-shot write', () => {
  const run = (w: WritingWallet, noDelay: boolean, u: number, calls: string[], said: string[]) =>
    syncBeforeWrite(w, {
      noDelay,
      say: (line) => said.push(line),
      random: () => u,
      sleep: async (ms) => {
        calls.push(`sleep ${ms}`);
      },
    });

  it('writes from stored state that covers the epoch: no sync, no wait', async () => {
    const { w, calls } = wallet(true, 60_000);
    expect(await run(w, false, 0.5, calls, [])).toEqual({ synced: false, delayMs: 0 });
    expect(calls).toEqual([]);
  });

  it('otherwise syncs, waits at least one epoch (a random part on top), and syncs again', async () => {
    for (const [u, wait] of [
      [0, 60_000],
      [0.5, 90_000],
      [0.999, 119_940],
    ] as const) {
      const { w, calls } = wallet(false, 60_000);
      const said: string[] = [];
      expect(await run(w, false, u, calls, said)).toEqual({ synced: true, delayMs: wait });
      expect(calls).toEqual(['sync', `sleep ${wait}`, 'sync']);
      expect(said.join('\n')).toContain('--no-delay');
    }
  });

  it('--no-delay writes right after the sync, with a warning (twin of the wait)', async () => {
    const { w, calls } = wallet(false, 60_000);
    const said: string[] = [];
    expect(await run(w, true, 0.5, calls, said)).toEqual({ synced: true, delayMs: 0 });
    expect(calls).toEqual(['sync']);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^warning: --no-delay/);
  });

  it('a pool without a grid has no epoch to wait: a sync only, as before', async () => {
    const { w, calls } = wallet(false, 1);
    expect(await run(w, false, 0.5, calls, [])).toEqual({ synced: true, delayMs: 0 });
    expect(calls).toEqual(['sync']);
  });
});
