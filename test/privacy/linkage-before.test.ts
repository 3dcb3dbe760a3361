// The permanent must-fail twin of the default run (issue 25, part 6): the product as it was when
// the issue was filed — direct hand-overs, last-sync anchors, transparent top-ups after each
// payment, exact-cursor reads (testkit/linkage/scenarios.ts, BEFORE_ISSUE) — on a run of the real
// service fails the pass criterion the default configuration meets (testkit/linkage/pass.ts), and
// not only for want of pairs: the operator links one wallet's payments, best combination ≥ 0.90.

import { beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { COMBINATION, measureRun, measureTable } from '../../testkit/linkage/measure.js';
import { passFailures } from '../../testkit/linkage/pass.js';
import { drawPopulation } from '../../testkit/linkage/population.js';
import { runLinkage } from '../../testkit/linkage/run.js';
import { BEFORE_ISSUE } from '../../testkit/linkage/scenarios.js';

let core: PrivStarkCore;
beforeAll(async () => {
  core = await loadCore();
});

describe('the product before issue 25 links payments', () => {
  it('fails the pass criterion, its best combination ≥ 0.90 on payment–payment pairs', async () => {
    const run = await runLinkage(core, drawPopulation(BEFORE_ISSUE.shape), BEFORE_ISSUE.config);
    const measure = measureRun(run, { replicates: 200 });
    // Pair counts aside (a small population): the judged lines alone fail.
    const failures = passFailures(measure, 0);
    console.log(
      `${BEFORE_ISSUE.config.name} (${run.totalSeconds.toFixed(0)} s, payments by transport ${JSON.stringify(measure.transports)}): ${failures.length} failures of the criterion, e.g. ${failures[0]}\n${measureTable(measure, 'all')}`,
    );
    expect(failures.length).toBeGreaterThan(0);
    const best = measure.lines.find(
      (l) => l.heuristic === COMBINATION && l.pairType === 'payment-payment' && l.scope === 'all',
    )!;
    expect(best.estimate.positives).toBeGreaterThanOrEqual(3);
    expect(best.estimate.auc).toBeGreaterThanOrEqual(0.9);
  }, 240_000);
});
