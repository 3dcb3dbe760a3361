// The must-fail twins of the two timing heuristics, on one run (test/privacy/twin.ts says what a
// twin is): the timing join's — the wallets sync right before each write — and the upload timing's,
// the network observer's heuristic, whose leak is the public log's millisecond event times. That
// leak is re-enacted in the measure (testkit/linkage/config.ts, `publicTimes`), so the same run's
// traffic is measured with the log's times as published (checkpoint granularity) and as they were
// before issue 25 (arrival in milliseconds): only the published times differ, and with them the
// upload timing links one wallet's payments.

import { beforeAll, describe, expect, it } from 'vitest';

import { loadCore } from '../../src/core/index.js';
import { type LinkageMeasure, measureRun, measureTable } from '../../testkit/linkage/measure.js';
import { drawPopulation } from '../../testkit/linkage/population.js';
import { type LinkageRun, runLinkage } from '../../testkit/linkage/run.js';
import { TWINS } from '../../testkit/linkage/scenarios.js';

const twin = TWINS.find((t) => t.heuristic === 'timing join')!;
let run: LinkageRun;

beforeAll(async () => {
  run = await runLinkage(await loadCore(), drawPopulation(twin.shape), twin.config);
}, 240_000);

const paymentPairs = (measure: LinkageMeasure, heuristic: string) =>
  measure.lines.find(
    (l) => l.heuristic === heuristic && l.pairType === 'payment-payment' && l.scope === 'all',
  )!.estimate;

describe('must-fail twins of the timing heuristics, one run', () => {
  it(`timing join with ${twin.config.name}: AUC ≥ 0.90 on payment-payment pairs`, () => {
    const measure = measureRun(run, { replicates: 200 });
    console.log(
      `twin ${twin.config.name} (${run.totalSeconds.toFixed(0)} s, payments by transport ${JSON.stringify(measure.transports)}):\n${measureTable(measure, 'all')}`,
    );
    const line = paymentPairs(measure, 'timing join');
    expect(line.positives).toBeGreaterThanOrEqual(3);
    expect(line.auc).toBeGreaterThanOrEqual(0.9);
  });

  it('upload timing with millisecond public times: AUC ≥ 0.90 on payment-payment pairs; with the times as published, lower', () => {
    const arrival = measureRun(
      { ...run, config: { ...run.config, publicTimes: 'arrival' } },
      { replicates: 200 },
    );
    const published = measureRun(run, { replicates: 200 });
    const leaked = paymentPairs(arrival, 'upload timing');
    const asPublished = paymentPairs(published, 'upload timing');
    console.log(
      `upload timing, payment–payment: millisecond times ${leaked.auc.toFixed(2)} [${leaked.low.toFixed(2)}, ${leaked.high.toFixed(2)}], checkpoint times ${asPublished.auc.toFixed(2)} [${asPublished.low.toFixed(2)}, ${asPublished.high.toFixed(2)}] (${run.view.linkUploads.length} uploads seen)`,
    );
    expect(leaked.positives).toBeGreaterThanOrEqual(3);
    expect(leaked.auc).toBeGreaterThanOrEqual(0.9);
    expect(asPublished.auc).toBeLessThan(leaked.auc);
  });
});
