/**
 * @module Address join: two items whose writes (a hand-over, a transfer, an exit) left from the
 * same network address. Addresses the operator knows as merchants (they call the facilitator with
 * an API key) name no payer; a relay's or a proxy's address shared by many items weighs little.
 */

import { evidenceScorer, uniform, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

export const addressJoin: Heuristic = {
  name: 'address join',
  leak: 'direct hand-overs',
  prepare(view) {
    const evidence = new Map<string, Evidence>();
    for (const item of view.items)
      evidence.set(item.id, uniform(item.sources.filter((s) => !view.merchants.has(s))));
    return evidenceScorer(evidence);
  },
};
