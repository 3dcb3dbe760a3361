import { availableParallelism } from 'node:os';

import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Suites outside test/chain/ that deploy on the chain project's shared node: the linkage test's
 * default run, whose deposits and exits are on chain.
 */
const ON_THE_SHARED_NODE = ['test/privacy/linkage-defaults.test.ts'];

export default defineConfig({
  test: {
    // One worker more than the cores (vitest's default is one fewer: a single worker on two
    // cores): most suites spend much of their time waiting on child processes, listeners and
    // databases, so a third file keeps both cores busy — the whole run took 600 s instead of
    // about 1,000 s on two cores, at 1.9 cores' worth of CPU.
    maxWorkers: availableParallelism() + 1,
    // Hang guards, not timing thresholds: with files side by side a proving suite gets half the
    // machine it had alone, so the longest single test (about 33 s alone) needs room.
    testTimeout: 180_000,
    hookTimeout: 240_000,
    // No epoch grid for the services and wallets the suites spawn (test setup, docs/privacy.md,
    // "Anchors and sync"): a checkpoint whenever the timer asks, anchored to at once, as before the
    // grid — the product's 60 s epochs would make every suite wait. The suites of the grid
    // itself (test/anchors/) pass their grid explicitly.
    env: { EPOCH_MS: '1', ANCHOR_DELAY_MS: '0', PRIV_STARK_MIN_EPOCH_MS: '1' },
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/chain/**', ...ON_THE_SHARED_NODE],
        },
      },
      // The chain suites (test/chain/): one local node shared by those that never rewrite
      // history, started only when one of them is queued (vitest calls a project's global setup
      // only then, test/chain/shared-node.ts); a suite that moves time, reorgs or stops mining
      // starts a node of its own.
      {
        extends: true,
        test: {
          name: 'chain',
          include: ['test/chain/**/*.test.ts', ...ON_THE_SHARED_NODE],
          globalSetup: ['test/chain/shared-node.ts'],
        },
      },
    ],
  },
});
