/**
 * @module Amount flags in two spellings: an integer is atomic units, as it always was (`10000000`);
 * a value with a decimal point is whole tokens (`10.00` is 10,000,000 atomic units of a 6-decimal
 * token such as USDC). A value with more fractional digits than the token has is refused — before
 * anything is signed — rather than rounded.
 */

import { MAX_AMOUNT_EXCLUSIVE } from '../scheme/index.js';

/** A flag's value the command cannot use (exit code 2). */
export class AmountFlagError extends Error {
  override readonly name = 'AmountFlagError';
}

/** Whether `text` is spelled in whole tokens (has a decimal point), so the token's decimals are needed. */
export function isWholeTokens(text: string): boolean {
  return text.includes('.');
}

/**
 * `text` as atomic units: an integer as is, a decimal in whole tokens of `decimals` places.
 * @param max the exclusive upper bound (default 2^62, what a note holds)
 * @throws AmountFlagError for anything else, zero, too many fractional digits, or `max` or more
 * @example
 * parseTokenAmount('--amount', '10.00', 6) // 10_000_000n
 * parseTokenAmount('--amount', '1500', 6) // 1500n
 */
export function parseTokenAmount(
  flag: string,
  text: string,
  decimals: number,
  max: bigint = MAX_AMOUNT_EXCLUSIVE,
): bigint {
  const shown = JSON.stringify(text.slice(0, 40));
  const integer = /^[0-9]{1,30}$/.exec(text);
  const decimal = /^([0-9]{1,30})\.([0-9]{1,40})$/.exec(text);
  let value: bigint;
  if (integer) value = BigInt(text);
  else if (decimal) {
    const fraction = decimal[2]!;
    if (fraction.length > decimals)
      throw new AmountFlagError(
        `${flag} ${shown} has ${fraction.length} digits after the point; the token has ${decimals} decimals`,
      );
    value = BigInt(decimal[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0'));
  } else
    throw new AmountFlagError(
      `${flag} expects atomic units (an integer, e.g. 10000000) or whole tokens with a decimal point (e.g. 10.00), got ${shown}`,
    );
  if (value === 0n) throw new AmountFlagError(`${flag} must be more than zero`);
  if (value >= max)
    throw new AmountFlagError(`${flag} ${shown} is too large (at most ${max - 1n} atomic units)`);
  return value;
}
