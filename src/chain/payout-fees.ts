/**
 * @module The fees a payout transaction offers (EIP-1559), under the operator's ceiling on the
 * fee per gas: what a new payout offers, when a transaction that is not mined is worth replacing,
 * and what its replacement offers — each cap raised by the price bump nodes require to replace a
 * pending transaction (geth's and op-geth's `txpool.pricebump`, 10 %), at least to the market,
 * never above the ceiling.
 */

/** A transaction's fee caps, wei per gas. */
export interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** The price bump a replacement needs on each cap, percent (geth's default `txpool.pricebump`). */
export const DEFAULT_FEE_BUMP_PERCENT = 10;

/**
 * What a new payout offers now: the tip, and twice the base fee plus the tip as its cap (room for
 * the base fee to rise for several full blocks), the cap lowered to the ceiling.
 * @returns `null` when even the base fee plus the tip is above the ceiling (nothing is signed)
 */
export function offeredFees(baseFee: bigint, tip: bigint, ceiling: bigint): Fees | null {
  if (baseFee + tip > ceiling) return null;
  const cap = min(2n * baseFee + tip, ceiling);
  return { maxFeePerGas: cap, maxPriorityFeePerGas: min(tip, cap) };
}

/** `value` raised by `percent`, rounded up, and by one wei at least. */
export function bumped(value: bigint, percent: number): bigint {
  const raised = (value * BigInt(100 + percent) + 99n) / 100n;
  return raised > value ? raised : value + 1n;
}

/**
 * Whether a transaction offering `previous` is outbid by the market (`null`: the market is above
 * the ceiling): only then does replacing it help; a transaction at the market that is not mined
 * waits for something else (a nonce before it).
 */
export function outbid(previous: Fees, market: Fees | null): boolean {
  if (market === null) return true;
  return (
    previous.maxFeePerGas < market.maxFeePerGas ||
    previous.maxPriorityFeePerGas < market.maxPriorityFeePerGas
  );
}

/**
 * What the replacement of a transaction offering `previous` offers: each cap bumped by
 * `bumpPercent`, raised to the market's if that is higher (to the ceiling when the market is above
 * it), the fee cap lowered to the ceiling.
 * @returns `null` when the bump the nodes require would pass the ceiling (no replacement)
 */
export function replacementFees(
  previous: Fees,
  market: Fees | null,
  ceiling: bigint,
  bumpPercent: number = DEFAULT_FEE_BUMP_PERCENT,
): Fees | null {
  const needFee = bumped(previous.maxFeePerGas, bumpPercent);
  const needTip = bumped(previous.maxPriorityFeePerGas, bumpPercent);
  // With the market above the ceiling, only the ceiling has a chance.
  const cap = min(max(needFee, market?.maxFeePerGas ?? ceiling), ceiling);
  if (cap < needFee) return null;
  const tip = min(max(needTip, market?.maxPriorityFeePerGas ?? 0n), cap);
  if (tip < needTip) return null;
  return { maxFeePerGas: cap, maxPriorityFeePerGas: tip };
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
