/**
 * @module Re-shown nullifier: a nullifier first shown by a payment that did not settle (a refused
 * `/settle` or `/verify`, a hand-over never settled) and later spent elsewhere carries whatever the
 * failed attempt revealed — the address it came from — to the payment that settled. Evidence: the
 * non-merchant sources of the item's earlier unsettled requests.
 */

import { evidenceScorer, uniform, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

export const reshownNullifier: Heuristic = {
  name: 're-shown nullifier',
  leak: 'no refresh before reuse',
  prepare(view) {
    const failed = new Map<string, string[]>();
    for (const r of view.requests)
      if (r.method === 'POST' && r.status >= 400 && !view.merchants.has(r.source))
        for (const n of r.sent.nullifiers) failed.set(n, [...(failed.get(n) ?? []), r.source]);
    const evidence = new Map<string, Evidence>();
    for (const item of view.items)
      if (item.kind !== 'deposit')
        evidence.set(item.id, uniform(item.keys.flatMap((n) => failed.get(n) ?? [])));
    return evidenceScorer(evidence);
  },
};
