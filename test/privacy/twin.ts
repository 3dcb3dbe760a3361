// One must-fail twin of the linkage test (issue 25, part 6, anti-vacuity), asserted in a file of
// its own so the twins run side by side with the rest of the suite rather than one after another:
// on a run of the real service and real wallets with only the heuristic's leak re-enabled
// (testkit/linkage/scenarios.ts), the heuristic links one wallet's payments — ROC AUC ≥ 0.90 on
// its pair type against the ground truth — so a low AUC on the default configuration
// (linkage-defaults.test.ts) means the leak is gone, not that the heuristic is blind. The measured
// AUCs and intervals are printed; twins not asserted are listed with their figures in
// docs/privacy.md ("The linkage test").

import { beforeAll, describe, expect, it } from 'vitest';

import { loadCore } from '../../src/core/index.js';
import { type LinkageMeasure, measureRun, measureTable } from '../../testkit/linkage/measure.js';
import { drawPopulation } from '../../testkit/linkage/population.js';
import { type LinkageRun, runLinkage } from '../../testkit/linkage/run.js';
import { TWINS } from '../../testkit/linkage/scenarios.js';

/**
 * Declares the twin of `heuristic` as a test: its run made once, before the file's tests, and
 * handed to `also` for any other twin measured on the same traffic.
 */
export function twinTest(heuristic: string, also?: (run: () => LinkageRun) => void): void {
  const twin = TWINS.find((t) => t.heuristic === heuristic);
  if (twin === undefined) throw new Error(`no twin for ${heuristic}`);
  let run: LinkageRun;
  beforeAll(async () => {
    run = await runLinkage(await loadCore(), drawPopulation(twin.shape), twin.config);
  }, 240_000);
  describe('must-fail twin: one leak re-enabled, its heuristic links one wallet’s payments', () => {
    it(`${twin.heuristic} with ${twin.config.name}: AUC ≥ 0.90 on ${twin.pairType} pairs`, () => {
      const measure = measureRun(run, { replicates: 200 });
      console.log(
        `twin ${twin.config.name} (${run.totalSeconds.toFixed(0)} s, payments by transport ${JSON.stringify(measure.transports)}):\n${measureTable(measure, 'all')}`,
      );
      const line = measure.lines.find(
        (l) => l.heuristic === twin.heuristic && l.pairType === twin.pairType && l.scope === 'all',
      )!;
      expect(line.estimate.positives).toBeGreaterThanOrEqual(3);
      expect(line.estimate.auc).toBeGreaterThanOrEqual(0.9);
    });
    also?.(() => run);
  });
}

/** The payment–payment estimate of `heuristic` in `measure`, over all payments. */
const paymentPairs = (measure: LinkageMeasure, heuristic: string) =>
  measure.lines.find(
    (l) => l.heuristic === heuristic && l.pairType === 'payment-payment' && l.scope === 'all',
  )!.estimate;

/**
 * The upload timing's twin (a network observer's heuristic, reported beside the operator's, not
 * one the pass judges): its leak, the public log's millisecond event times, is re-enacted
 * in the measure (testkit/linkage/config.ts, `publicTimes`), so one run's traffic is measured with
 * the times as published (checkpoint granularity) and as they were before issue 25 (arrival in
 * milliseconds). Only the times differ, and with them it links more. Its level is reported, not
 * held to 0.90: it follows the machine's load — 0.96–0.99 at load 3–6, 0.89 and 0.79 in two
 * fresh-clone CI runs, where the lag from an upload to its commit spreads past the 300 ms the
 * observer weighs (docs/privacy.md) — and a threshold there failed CI on load, not on a leak.
 */
export function uploadTimingTwinTest(run: () => LinkageRun): void {
  it('upload timing: millisecond public times link more than the times as published', () => {
    const times = (publicTimes: 'arrival' | 'checkpoint') =>
      paymentPairs(
        measureRun({ ...run(), config: { ...run().config, publicTimes } }, { replicates: 200 }),
        'upload timing',
      );
    const leaked = times('arrival');
    const published = times('checkpoint');
    console.log(
      `upload timing, payment–payment: millisecond times ${leaked.auc.toFixed(2)} [${leaked.low.toFixed(2)}, ${leaked.high.toFixed(2)}], checkpoint times ${published.auc.toFixed(2)} [${published.low.toFixed(2)}, ${published.high.toFixed(2)}] (${run().view.linkUploads.length} uploads seen)`,
    );
    expect(leaked.positives).toBeGreaterThanOrEqual(3);
    expect(leaked.auc).toBeGreaterThan(0.5);
    expect(published.auc).toBeLessThan(leaked.auc);
  });
}
