// The core's batch calls a wallet's sync runs on every page, on both backends: `mergePairs` is
// `merge` of each pair, and `depositMatches` lists exactly the deposits whose commitment is
// `H_NOTE(amount, pre)` for one of the precommitments — the right precommitment under another
// amount, or another precommitment, is no match.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import {
  commitmentOf,
  type DigestHex,
  type PrivStarkCore,
  loadBackend,
  randomDigest,
} from '../../src/index.js';

describe.each(['native', 'wasm'] as const)('batch calls (%s)', (backend) => {
  let core: PrivStarkCore;
  beforeAll(async () => {
    core = await loadBackend(backend);
  });

  it('mergePairs is merge of each pair, and refuses an odd count', () => {
    const nodes = Array.from({ length: 10 }, () => randomDigest());
    const expected = [0, 2, 4, 6, 8].map((i) => core.merge(nodes[i]!, nodes[i + 1]!));
    expect(core.mergePairs(nodes)).toEqual(expected);
    expect(core.mergePairs([])).toEqual([]);
    expect(() => core.mergePairs(nodes.slice(1))).toThrow(RangeError);
  });

  it('depositMatches finds exactly the deposits that pay a precommitment', async () => {
    const amount = fc.bigInt({ min: 1n, max: 2n ** 62n - 1n }).map(String);
    const kind = fc.constantFrom('ours', 'other amount', 'other pre');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 8 }),
        fc.array(fc.tuple(amount, kind, fc.nat()), { maxLength: 30 }),
        async (count, specs) => {
          const pres = Array.from({ length: count }, () => randomDigest());
          const deposits = specs.map(([value, how, pick]) => {
            const pre: DigestHex =
              how === 'other pre' || pres.length === 0 ? randomDigest() : pres[pick % pres.length]!;
            const paid = how === 'other amount' ? (BigInt(value) ^ 1n || 2n).toString() : value;
            return { amount: value, commitment: commitmentOf(core, paid, pre) };
          });
          const expected = deposits.flatMap((d, deposit) =>
            pres.flatMap((pre, precommitment) =>
              commitmentOf(core, d.amount, pre) === d.commitment
                ? [{ deposit, precommitment }]
                : [],
            ),
          );
          expect(core.depositMatches(pres, deposits)).toEqual(expected);
          expect(await core.depositMatchesAsync(pres, deposits)).toEqual(expected);
          // The deposits meant to pay one are all found (the others cannot be, short of a collision).
          const ours = specs.flatMap(([, how], i) => (how === 'ours' && count > 0 ? [i] : []));
          expect(expected.map((m) => m.deposit)).toEqual(ours);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('depositMatches refuses malformed deposits before the core', () => {
    const pre = randomDigest();
    expect(() => core.depositMatches([pre], [{ amount: '1.5', commitment: pre }])).toThrow(
      RangeError,
    );
    expect(() => core.depositMatches([pre], [{ amount: '1', commitment: 'nope' }])).toThrow(
      RangeError,
    );
    expect(() => core.depositMatches(['0x12'], [])).toThrow(RangeError);
  });
});
