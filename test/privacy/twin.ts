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
import { MIN_UPLOAD_BYTES } from '../../testkit/linkage/heuristics/upload-timing.js';

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
 * milliseconds). Both levels are printed, not asserted: they follow the machine's load — 0.96–0.99
 * with millisecond times at load 3–6, 0.89, 0.79 and 0.62 (against 0.63 as published) in three
 * fresh-clone CI runs, where the lag from an upload to its commit spreads past the 300 ms the
 * observer weighs (docs/privacy.md) — and both a 0.90 threshold and "links more" failed CI on
 * load, not on a leak. What the test holds is what load cannot move: the observer saw a
 * proof-sized upload from a wallet's own address for every payment of the run (direct hand-overs),
 * the evidence the heuristic weighs; the heuristic itself is held on fixed traffic
 * (linkage-parts.test.ts, "upload timing").
 */
export function uploadTimingTwinTest(run: () => LinkageRun): void {
  it('upload timing: reported on millisecond and published times, over a proof-sized upload per payment', () => {
    const times = (publicTimes: 'arrival' | 'checkpoint') =>
      paymentPairs(
        measureRun({ ...run(), config: { ...run().config, publicTimes } }, { replicates: 200 }),
        'upload timing',
      );
    const leaked = times('arrival');
    const published = times('checkpoint');
    const { view } = run();
    const proofSized = view.linkUploads.filter(
      (u) => u.bytes >= MIN_UPLOAD_BYTES && !view.merchants.has(u.source),
    );
    const payments = view.items.filter((i) => i.kind === 'payment');
    console.log(
      `upload timing, payment–payment: millisecond times ${leaked.auc.toFixed(2)} [${leaked.low.toFixed(2)}, ${leaked.high.toFixed(2)}], checkpoint times ${published.auc.toFixed(2)} [${published.low.toFixed(2)}, ${published.high.toFixed(2)}] (${proofSized.length} proof-sized uploads seen, ${payments.length} payments)`,
    );
    expect(leaked.positives).toBeGreaterThanOrEqual(3);
    expect(payments.length).toBeGreaterThan(0);
    expect(proofSized.length).toBeGreaterThanOrEqual(payments.length);
  });
}
