// What `startWorkers` (priv-stark start --workers N) refuses before it forks anything: a chain
// pool (its watcher, payout sender and attester hold the keys in one process), nothing to run, and
// auth off on a non-loopback host — each with the service's configuration error (the CLI exits 2).

import { describe, expect, it } from 'vitest';

import { SERVICE_DEFAULTS, ServiceConfigError, startWorkers } from '../../src/service/index.js';

describe('startWorkers refuses', () => {
  it('a chain pool, with the reason and the remedy', async () => {
    const chain = { rpcUrl: 'http://127.0.0.1:8545' } as unknown as NonNullable<
      (typeof SERVICE_DEFAULTS)['chain']
    >;
    await expect(startWorkers({ ...SERVICE_DEFAULTS, chain }, 2, () => undefined)).rejects.toThrow(
      /chain pool runs in one process.*--workers 1/,
    );
  });

  it('nothing to run, and auth off off loopback (must-fail twins of a start that would run)', async () => {
    const nothing = { ...SERVICE_DEFAULTS, facilitator: false, poolNode: false };
    await expect(startWorkers(nothing, 2, () => undefined)).rejects.toBeInstanceOf(
      ServiceConfigError,
    );
    const open = { ...SERVICE_DEFAULTS, host: '0.0.0.0', insecureNoAuth: true };
    await expect(startWorkers(open, 2, () => undefined)).rejects.toThrow(/loopback/);
  });
});
