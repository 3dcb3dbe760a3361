// The checkpoint timer's stop waits for a tick under way: the store is closed after it, so a tick
// never runs on a closed store (it failed there, and said so in the log, when a service stopped
// mid-tick). The twin: a tick that has not finished keeps stop waiting.

import { describe, expect, it } from 'vitest';

import { CheckpointTimer } from '../../src/ledger/checkpoint-timer.js';
import type { PoolStore } from '../../src/ledger/index.js';

describe('CheckpointTimer.stop', () => {
  it('resolves only once the tick under way has finished, and the tick reports no error', async () => {
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const inTick = new Promise<void>((resolve) => {
      started = resolve;
    });
    const calls: string[] = [];
    const store = {
      checkpoint: async () => {
        calls.push('checkpoint');
        started();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return null;
      },
      pruneProofs: async () => {
        calls.push('pruneProofs');
        return 0;
      },
      pruneArchive: async () => {
        calls.push('pruneArchive');
        return 0;
      },
    } as unknown as PoolStore;
    const errors: unknown[] = [];
    const timer = new CheckpointTimer(store, Date.now, 5, 1, (e) => errors.push(e), 86_400_000);
    timer.start();
    await inTick;
    let stopped = false;
    const stopping = timer.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(stopped).toBe(false); // the twin: the tick has not finished
    release();
    await stopping;
    expect(stopped).toBe(true);
    expect(calls).toEqual(['checkpoint', 'pruneProofs', 'pruneArchive']);
    expect(errors).toEqual([]);
    // Stopped: no tick after it.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toHaveLength(3);
  });
});
