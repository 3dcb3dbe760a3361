/**
 * @module Stable error codes of the Rust core, character for character as `CoreError::CODES` in
 * `crates/core/src/errors.rs` (a test compares both lists through each backend).
 */

/** Every code a core call can reject with. */
export const CORE_ERROR_CODES = [
  'invalid_length',
  'non_canonical_element',
  'invalid_hex',
  'invalid_encoding',
  'unknown_domain',
  'value_out_of_range',
  'field_too_long',
  'tree_full',
  'index_out_of_range',
  'invalid_address',
  'internal_panic',
] as const;

/** A code from {@link CORE_ERROR_CODES}. */
export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(CORE_ERROR_CODES);

/** Whether `code` is one of {@link CORE_ERROR_CODES}. */
export function isCoreErrorCode(code: string): code is CoreErrorCode {
  return KNOWN.has(code);
}
