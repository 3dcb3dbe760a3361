/**
 * @module What most heuristics share: each item's evidence, a weighted set of tokens (an address,
 * a recipient, an anchor) that the operator believes may stand for its wallet, and the pair score
 * Σ_t e_a(t)·e_b(t)/n_t — the tokens two items share, each weighed down by how many items it
 * stands for (a relay or a proxy exit shared by everyone tells nothing).
 */

import type { Item } from '../operator-view.js';

/** Token → weight (weights of one item sum to at most 1). */
export type Evidence = ReadonlyMap<string, number>;

/** What a heuristic needs besides the view: the time factor of the run, how times are published. */
export interface ScoringContext {
  /** Simulated seconds per real second: windows are stated in simulated seconds. */
  readonly compression: number;
  /** The public log's event times (`LinkageConfig.publicTimes`; default `checkpoint`). */
  readonly publicTimes?: 'checkpoint' | 'arrival' | undefined;
}

/** Uniform evidence over `tokens` (none when empty). */
export function uniform(tokens: Iterable<string>): Evidence {
  const set = [...new Set(tokens)];
  return new Map(set.map((t) => [t, 1 / set.length]));
}

/** Evidence weighted by `weights` (normalised to sum 1). */
export function weighted(weights: ReadonlyMap<string, number>): Evidence {
  let total = 0;
  for (const w of weights.values()) total += w;
  if (total <= 0) return new Map();
  return new Map([...weights].map(([t, w]) => [t, w / total]));
}

/** A pair scorer over per-item evidence. */
export function evidenceScorer(
  evidence: ReadonlyMap<string, Evidence>,
): (a: Item, b: Item) => number {
  const mass = new Map<string, number>();
  for (const e of evidence.values()) for (const [t, w] of e) mass.set(t, (mass.get(t) ?? 0) + w);
  return (a, b) => {
    const ea = evidence.get(a.id);
    const eb = evidence.get(b.id);
    if (ea === undefined || eb === undefined) return 0;
    let score = 0;
    const [small, large] = ea.size <= eb.size ? [ea, eb] : [eb, ea];
    for (const [t, w] of small) {
      const v = large.get(t);
      if (v !== undefined) score += (w * v) / (mass.get(t) ?? 1);
    }
    return score;
  };
}
