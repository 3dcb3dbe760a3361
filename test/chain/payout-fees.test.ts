// The fees of payout transactions: a new payout offers twice the base fee plus the tip, never above
// the ceiling, and nothing when the base fee plus the tip is above it; a replacement raises each cap
// by the price bump (rounded up, one wei at least), to the market or to the ceiling when the market
// is above it, and there is none once the bump would pass the ceiling; a transaction at the market
// is not outbid. Random fees (fast-check): a replacement is never above the ceiling and always
// enough for a node to take it.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { bumped, offeredFees, outbid, replacementFees } from '../../src/chain/payout-fees.js';

const GWEI = 1_000_000_000n;

describe('payout fees', () => {
  it('offers twice the base fee plus the tip, under the ceiling, or nothing above it', () => {
    expect(offeredFees(3n * GWEI, GWEI, 100n * GWEI)).toEqual({
      maxFeePerGas: 7n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    expect(offeredFees(3n * GWEI, GWEI, 5n * GWEI)).toEqual({
      maxFeePerGas: 5n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    expect(offeredFees(3n * GWEI, GWEI, 4n * GWEI)).toMatchObject({ maxFeePerGas: 4n * GWEI });
    expect(offeredFees(3n * GWEI, GWEI, 4n * GWEI - 1n)).toBeNull();
  });

  it('bumps by the percentage rounded up, and by one wei at least', () => {
    expect(bumped(100n, 10)).toBe(110n);
    expect(bumped(101n, 10)).toBe(112n);
    expect(bumped(1n, 10)).toBe(2n);
    expect(bumped(0n, 10)).toBe(1n);
  });

  it('replaces with the bump, the market, or the ceiling — never above it', () => {
    const previous = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
    expect(replacementFees(previous, previous, 100n * GWEI)).toEqual({
      maxFeePerGas: 11n * GWEI,
      maxPriorityFeePerGas: 1_100_000_000n,
    });
    const market = { maxFeePerGas: 30n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    expect(replacementFees(previous, market, 100n * GWEI)).toEqual(market);
    expect(replacementFees(previous, market, 20n * GWEI)).toEqual({
      maxFeePerGas: 20n * GWEI,
      maxPriorityFeePerGas: 2n * GWEI,
    });
    // The market above the ceiling: straight to the ceiling.
    expect(replacementFees(previous, null, 40n * GWEI)).toEqual({
      maxFeePerGas: 40n * GWEI,
      maxPriorityFeePerGas: 1_100_000_000n,
    });
    // The bump would pass the ceiling: no replacement.
    expect(replacementFees(previous, null, 11n * GWEI - 1n)).toBeNull();
    expect(
      replacementFees({ maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: GWEI }, null, 40n * GWEI),
    ).toBeNull();
  });

  it('is outbid only below the market, or with the market above the ceiling', () => {
    const at = { maxFeePerGas: 10n, maxPriorityFeePerGas: 2n };
    expect(outbid(at, at)).toBe(false);
    expect(outbid(at, { maxFeePerGas: 11n, maxPriorityFeePerGas: 2n })).toBe(true);
    expect(outbid(at, { maxFeePerGas: 10n, maxPriorityFeePerGas: 3n })).toBe(true);
    expect(outbid(at, null)).toBe(true);
  });

  it('random fees: a replacement is under the ceiling and bumped enough on both caps', () => {
    const wei = fc.bigInt({ min: 1n, max: 1000n * GWEI });
    fc.assert(
      fc.property(wei, wei, wei, wei, fc.option(fc.tuple(wei, wei)), (a, b, c, d, m) => {
        const [low, high] = a < b ? [a, b] : [b, a];
        const previous = { maxFeePerGas: high, maxPriorityFeePerGas: low };
        const ceiling = c + d;
        const market = m ? { maxFeePerGas: m[0] + m[1], maxPriorityFeePerGas: m[1] } : null;
        const next = replacementFees(previous, market, ceiling);
        if (next === null)
          return (
            bumped(previous.maxFeePerGas, 10) > ceiling ||
            bumped(previous.maxPriorityFeePerGas, 10) > ceiling
          );
        return (
          next.maxFeePerGas <= ceiling &&
          next.maxPriorityFeePerGas <= next.maxFeePerGas &&
          next.maxFeePerGas >= bumped(previous.maxFeePerGas, 10) &&
          next.maxPriorityFeePerGas >= bumped(previous.maxPriorityFeePerGas, 10)
        );
      }),
    );
  });
});
