import { availableParallelism } from 'node:os';

import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The linkage test's default run (issue 25's measure), which deploys on the shared chain node: a
 * population at 10× whose wallets' syncs and proofs must keep up with the compressed epochs, so it
 * runs in a group of its own after every other file (`sequence.groupOrder`). Beside the suites it
 * read anchors two or more epochs behind the grid on a loaded machine ({0, 3, 86} payments current,
 * one behind, more) and failed its pass on the anchor join; the must-fail twins stay in the first
 * group (each is measured against its own 0.90 floor, not the pass).
 */
const LINKAGE_DEFAULTS = ['test/privacy/linkage-defaults.test.ts'];
/**
 * The timing join's must-fail twin: a light run (5 wallets at 5×, two minutes) whose join races
 * the machine's load — a proof's real time from the payer's sync to its write against the gaps
 * between other wallets' reads. Alone it measured 1.00; beside the suites at load 7–9, 0.84. So
 * it runs after everything else, alone (`sequence.groupOrder`).
 */
const LINKAGE_TIMING_TWIN = ['test/privacy/linkage-twin-timing.test.ts'];

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
    // And one process for each service they spawn, as before `--workers` (its default is one per
    // core): the suites of the workers themselves (test/http/workers.test.ts, sigkill.test.ts)
    // pass `--workers 2`, and test/cli/start.test.ts checks the default.
    env: { EPOCH_MS: '1', ANCHOR_DELAY_MS: '0', PRIV_STARK_MIN_EPOCH_MS: '1', WORKERS: '1' },
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            'test/chain/**',
            ...LINKAGE_DEFAULTS,
            ...LINKAGE_TIMING_TWIN,
          ],
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
          include: ['test/chain/**/*.test.ts'],
          globalSetup: ['test/chain/shared-node.ts'],
        },
      },
      // Last and alone, on the same shared node.
      {
        extends: true,
        test: {
          name: 'linkage',
          include: LINKAGE_DEFAULTS,
          globalSetup: ['test/chain/shared-node.ts'],
          sequence: { groupOrder: 1 },
        },
      },
      // After it, alone: the devnet pool, no chain.
      {
        extends: true,
        test: {
          name: 'linkage-timing',
          include: LINKAGE_TIMING_TWIN,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
