// The linkage test's statistics, written by hand, against vectors worked out on paper and against
// a brute-force count: the ROC AUC (Mann–Whitney, ties half) and its stratified percentile
// bootstrap. Must-fail twins: a reversed score gives 1 − AUC, a useless score 0.5 with an interval
// around it, and an interval that must cover the known AUC of a binormal model does.

import { describe, expect, it } from 'vitest';

import { Random } from '../../testkit/linkage/random.js';
import { aucWithInterval, quantile, rocAuc, type Scored } from '../../testkit/linkage/roc.js';

const scored = (pos: number[], neg: number[]): Scored[] => [
  ...pos.map((score) => ({ score, same: true })),
  ...neg.map((score) => ({ score, same: false })),
];

/** Every (positive, negative) pair counted: 1 above, ½ tied. */
function bruteForce(pairs: readonly Scored[]): number {
  const pos = pairs.filter((p) => p.same);
  const neg = pairs.filter((p) => !p.same);
  let sum = 0;
  for (const p of pos)
    for (const n of neg) sum += p.score > n.score ? 1 : p.score === n.score ? 0.5 : 0;
  return sum / (pos.length * neg.length);
}

/** Φ, the standard normal CDF (Abramowitz–Stegun 7.1.26 through erf). */
function phi(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

function normal(random: Random): number {
  return Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
}

describe('ROC AUC', () => {
  it('matches vectors worked out by hand', () => {
    // pos {3,2,2}, neg {2,1}: (3,2)=1 (3,1)=1 (2,2)=½ (2,1)=1 (2,2)=½ (2,1)=1 → 5/6.
    expect(rocAuc(scored([3, 2, 2], [2, 1]))).toBeCloseTo(5 / 6, 12);
    // Fully separated, reversed, all tied.
    expect(rocAuc(scored([0.9, 0.8], [0.1, 0.2, 0.3]))).toBe(1);
    expect(rocAuc(scored([0.1, 0.2], [0.8, 0.9]))).toBe(0);
    expect(rocAuc(scored([0, 0, 0], [0, 0]))).toBe(0.5);
    // pos {0.8, 0.4}, neg {0.6, 0.4, 0.2}: 0.8 beats 3; 0.4 beats 1, ties 1 → (3 + 1.5) / 6.
    expect(rocAuc(scored([0.8, 0.4], [0.6, 0.4, 0.2]))).toBeCloseTo(0.75, 12);
  });

  it('equals the brute-force count on random scores with ties', () => {
    const random = new Random(3);
    for (let round = 0; round < 20; round++) {
      const pairs = Array.from({ length: 60 + random.below(60) }, () => ({
        score: random.below(7) / 7,
        same: random.next() < 0.3,
      }));
      expect(rocAuc(pairs)).toBeCloseTo(bruteForce(pairs), 12);
    }
  });

  it('is NaN with one class only (nothing to rank)', () => {
    expect(rocAuc(scored([1, 2], []))).toBeNaN();
  });

  it('reverses to 1 − AUC when the score is negated', () => {
    const random = new Random(5);
    const pairs = Array.from({ length: 200 }, () => ({
      score: random.next(),
      same: random.next() < 0.4,
    }));
    const reversed = pairs.map((p) => ({ ...p, score: -p.score }));
    expect(rocAuc(reversed)).toBeCloseTo(1 - rocAuc(pairs), 12);
  });
});

describe('the bootstrap interval', () => {
  it('quantiles interpolate between order statistics', () => {
    expect(quantile([1, 2, 3, 4, 5], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantile([0, 10], 0.975)).toBeCloseTo(9.75, 12);
  });

  it('is a point for perfect and for useless scores, and holds the estimate otherwise', () => {
    const perfect = aucWithInterval(scored([2, 3, 4], [0, 1]), { replicates: 200 });
    expect([perfect.auc, perfect.low, perfect.high]).toEqual([1, 1, 1]);
    const useless = aucWithInterval(scored([1, 1, 1], [1, 1, 1, 1]), { replicates: 200 });
    expect([useless.auc, useless.low, useless.high]).toEqual([0.5, 0.5, 0.5]);
    const random = new Random(9);
    const noisy = Array.from({ length: 400 }, () => ({
      score: random.next(),
      same: random.next() < 0.5,
    }));
    const e = aucWithInterval(noisy, { replicates: 300 });
    expect(e.low).toBeLessThanOrEqual(e.auc);
    expect(e.high).toBeGreaterThanOrEqual(e.auc);
    // A score that is pure noise: the interval contains one half.
    expect(e.low).toBeLessThan(0.5);
    expect(e.high).toBeGreaterThan(0.5);
  });

  it('covers the known AUC of a binormal model, Φ(d/√2), and narrows with more pairs', () => {
    const d = 1;
    const truth = phi(d / Math.SQRT2); // 0.7602
    const random = new Random(11);
    const draw = (n: number) =>
      Array.from({ length: n }, (_, i) => {
        const same = i % 4 === 0;
        return { score: normal(random) + (same ? d : 0), same };
      });
    const small = aucWithInterval(draw(400), { replicates: 400 });
    const large = aucWithInterval(draw(4000), { replicates: 400 });
    for (const e of [small, large]) {
      expect(e.low).toBeLessThan(truth);
      expect(e.high).toBeGreaterThan(truth);
    }
    expect(large.high - large.low).toBeLessThan((small.high - small.low) * 0.6);
    // Must-fail twin: the interval of a model with d = 0 does not cover Φ(1/√2).
    const flat = aucWithInterval(
      draw(4000).map((p) => ({ ...p, score: normal(random) })),
      { replicates: 400 },
    );
    expect(flat.high).toBeLessThan(truth);
  });

  it('is the same for the same seed (repeatable)', () => {
    const random = new Random(13);
    const pairs = Array.from({ length: 300 }, () => ({
      score: random.next(),
      same: random.next() < 0.3,
    }));
    expect(aucWithInterval(pairs, { seed: 1 })).toEqual(aucWithInterval(pairs, { seed: 1 }));
  });
});
