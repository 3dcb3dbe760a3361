/**
 * @module The linkage test's pass criterion (issue 25, part 6), one function for the default run
 * and for its permanent must-fail twin, the configuration the product had before the issue: for
 * payments that went by relay, inline or proxy, every heuristic's and the best combination's 95 %
 * upper bound ≤ 0.60 on payment–payment, deposit–payment and payment–exit pairs, with ≥ 2,000
 * pairs of each type scored — and nothing to judge (no payment by relay, inline or proxy) fails.
 * The criterion is the operator's: a network observer's heuristic (upload timing) is reported, not
 * judged (docs/privacy.md, "What remains").
 */

import { isNetworkObservers } from './heuristics/index.js';
import type { LinkageMeasure } from './measure.js';

/** The bound every judged upper bound must stay under. */
export const PASS_BOUND = 0.6;

/** The pairs each type needs. */
export const PASS_PAIRS = 2000;

/** Why `measure` fails the criterion: one line per failure, none when it passes. */
export function passFailures(measure: LinkageMeasure, minPairs = PASS_PAIRS): string[] {
  const failures: string[] = [];
  for (const [type, count] of Object.entries(measure.pairs))
    if (count < minPairs) failures.push(`${type}: ${count} pairs, fewer than ${minPairs}`);
  for (const line of measure.lines.filter(
    (l) => l.scope === 'private' && !isNetworkObservers(l.heuristic),
  )) {
    const what = `${line.heuristic} ${line.pairType}`;
    if (line.estimate.positives === 0)
      failures.push(`${what}: no same-wallet pair paid by relay, inline or proxy to judge`);
    else if (line.estimate.high > PASS_BOUND)
      failures.push(`${what}: upper bound ${line.estimate.high.toFixed(2)} > ${PASS_BOUND}`);
  }
  return failures;
}
