/**
 * @module Re-shown nullifier: a nullifier shown by a payment that did not settle (a hand-over the
 * pool node refused or never saw settled, a refused write) and spent elsewhere carries whatever
 * that attempt revealed — the address it came from — to the item that spent it. Evidence: the
 * non-merchant sources of the requests naming one of the item's nullifiers that did not carry the
 * item itself (an address the item's own writes show is the address join's). No order in time is
 * asked: the events' public times are coarse, and an attempt after the spend re-shows it as well.
 */

import { evidenceScorer, uniform, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

export const reshownNullifier: Heuristic = {
  name: 're-shown nullifier',
  leak: 'no refresh before reuse',
  prepare(view) {
    const shown = new Map<string, string[]>();
    for (const r of view.requests)
      if (r.method === 'POST' && !view.merchants.has(r.source))
        for (const n of r.sent.nullifiers) shown.set(n, [...(shown.get(n) ?? []), r.source]);
    const evidence = new Map<string, Evidence>();
    for (const item of view.items)
      if (item.kind !== 'deposit')
        evidence.set(
          item.id,
          uniform(
            item.keys.flatMap((n) =>
              (shown.get(n) ?? []).filter((source) => !item.sources.includes(source)),
            ),
          ),
        );
    return evidenceScorer(evidence);
  },
};
