/**
 * @module Argument checks for the public entry points: `TypeError` for a wrong type,
 * `RangeError` for a wrong length or value, with one message shape
 * (`"leaves" expected an array of digests, got type=string`). Messages are built on the throw
 * path only.
 */

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `array of length ${value.length}`;
  if (value instanceof Uint8Array) return `Uint8Array of length ${value.length}`;
  return `type=${typeof value}`;
}

/** Asserts a string. */
export function astring(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string')
    throw new TypeError(`"${name}" expected string, got ${describe(value)}`);
}

/** Asserts an array. */
export function aarray(value: unknown, name: string): asserts value is readonly unknown[] {
  if (!Array.isArray(value))
    throw new TypeError(`"${name}" expected array, got ${describe(value)}`);
}

/** Asserts a `Uint8Array`, optionally of one length. */
export function abytes(value: unknown, name: string, length?: number): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array))
    throw new TypeError(`"${name}" expected Uint8Array, got ${describe(value)}`);
  if (length !== undefined && value.length !== length) {
    throw new RangeError(
      `"${name}" expected Uint8Array of length ${length}, got length=${value.length}`,
    );
  }
}

/** Asserts an integer `min <= value <= max`. */
export function aint(
  value: unknown,
  name: string,
  min: number,
  max: number,
): asserts value is number {
  if (typeof value !== 'number')
    throw new TypeError(`"${name}" expected number, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`"${name}" expected an integer in [${min}, ${max}], got ${value}`);
  }
}

/** Asserts a bigint `0 <= value < 2^64` (the binding checks canonicity against p). */
export function au64(value: unknown, name: string): asserts value is bigint {
  if (typeof value !== 'bigint')
    throw new TypeError(`"${name}" expected bigint, got ${describe(value)}`);
  if (value < 0n || value >= 1n << 64n)
    throw new RangeError(`"${name}" expected a bigint in [0, 2^64), got ${value}`);
}
