// One must-fail twin of the linkage test (issue 25, part 6, anti-vacuity), asserted in a file of
// its own so the twins run side by side with the rest of the suite rather than one after another:
// on a run of the real service and real wallets with only the heuristic's leak re-enabled
// (testkit/linkage/scenarios.ts), the heuristic links one wallet's payments — ROC AUC ≥ 0.90 on
// its pair type against the ground truth — so a low AUC on the default configuration
// (linkage-defaults.test.ts) means the leak is gone, not that the heuristic is blind. The measured
// AUCs and intervals are printed; twins not asserted are listed with their figures in
// docs/privacy.md ("The linkage test").

import { beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { measureRun, measureTable } from '../../testkit/linkage/measure.js';
import { drawPopulation } from '../../testkit/linkage/population.js';
import { runLinkage } from '../../testkit/linkage/run.js';
import { TWINS } from '../../testkit/linkage/scenarios.js';

/** Declares the twin of `heuristic` as a test. */
export function twinTest(heuristic: string): void {
  const twin = TWINS.find((t) => t.heuristic === heuristic);
  if (twin === undefined) throw new Error(`no twin for ${heuristic}`);
  let core: PrivStarkCore;
  beforeAll(async () => {
    core = await loadCore();
  });
  describe('must-fail twin: one leak re-enabled, its heuristic links one wallet’s payments', () => {
    it(`${twin.heuristic} with ${twin.config.name}: AUC ≥ 0.90 on ${twin.pairType} pairs`, async () => {
      const run = await runLinkage(core, drawPopulation(twin.shape), twin.config);
      const measure = measureRun(run, { replicates: 200 });
      console.log(
        `twin ${twin.config.name} (${run.totalSeconds.toFixed(0)} s, payments by transport ${JSON.stringify(measure.transports)}):\n${measureTable(measure, 'all')}`,
      );
      const line = measure.lines.find(
        (l) => l.heuristic === twin.heuristic && l.pairType === twin.pairType && l.scope === 'all',
      )!;
      expect(line.estimate.positives).toBeGreaterThanOrEqual(3);
      expect(line.estimate.auc).toBeGreaterThanOrEqual(0.9);
    }, 240_000);
  });
}
