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

/**
 * Every code the spend and transition provers and verifiers can report, character for character as
 * `ProofError::CODES` in `crates/proof/src/errors.rs`.
 */
export const PROOF_ERROR_CODES = [
  'invalid_length',
  'non_canonical_element',
  'invalid_seed',
  'amount_out_of_range',
  'value_out_of_range',
  'insufficient_value',
  'index_out_of_range',
  'root_mismatch',
  'nullifier_mismatch',
  'change_mismatch',
  'amount_mismatch',
  'context_mismatch',
  'unsatisfied_constraints',
  'proving_failed',
  'proof_too_large',
  'proof_too_short',
  'bad_magic',
  'unsupported_version',
  'unsupported_parameter_set',
  'malformed_proof',
  'trailing_bytes',
  'invalid_proof_shape',
  'invalid_proof',
  'internal_panic',
  'values_not_conserved',
  'output_below_minimum',
  'nullifiers_not_distinct',
  'output_mismatch',
  'first_input_dummy',
] as const;

/** A code from {@link CORE_ERROR_CODES} or {@link PROOF_ERROR_CODES}. */
export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number] | (typeof PROOF_ERROR_CODES)[number];

/** A code from {@link PROOF_ERROR_CODES}. */
export type ProofErrorCode = (typeof PROOF_ERROR_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set([...CORE_ERROR_CODES, ...PROOF_ERROR_CODES]);

/** Whether `code` is one of {@link CORE_ERROR_CODES} or {@link PROOF_ERROR_CODES}. */
export function isCoreErrorCode(code: string): code is CoreErrorCode {
  return KNOWN.has(code);
}
