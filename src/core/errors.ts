/**
 * @module Typed errors of the core facade: a rejection by the Rust core, a verification past its
 * deadline, and the failure to load any backend.
 */

import { type CoreErrorCode, isCoreErrorCode } from './codes.js';

/** A rejection by the Rust core, carrying its stable code. The same input gives the same code on
 * both backends. */
export class CoreError extends Error {
  /** The stable snake_case code. */
  readonly code: CoreErrorCode;

  constructor(code: CoreErrorCode, message: string) {
    super(message);
    this.name = 'CoreError';
    this.code = code;
  }
}

/**
 * A verification that gave no verdict within its deadline (`verifyTimeoutMs` of `loadCore()` or
 * `createCore()`). It says nothing of the proof: ask again, or refuse the payment as unverified.
 */
export class VerificationTimeoutError extends Error {
  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`no verdict within ${timeoutMs} ms`);
    this.name = 'VerificationTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** Thrown by `loadCore()` when no backend loads; `cause` chains every attempt's error. */
export class BackendLoadError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'BackendLoadError';
  }
}

/**
 * Turns what a binding threw or reported (`"<code>: <message>"`) into a {@link CoreError}.
 * Anything that does not carry a known code becomes `internal_panic`: the facade never lets an
 * untyped error out.
 */
export function coreErrorFrom(report: unknown): CoreError {
  if (report instanceof CoreError) return report;
  const text = report instanceof Error ? report.message : String(report);
  const separator = text.indexOf(': ');
  const code = separator > 0 ? text.slice(0, separator) : '';
  if (isCoreErrorCode(code)) return new CoreError(code, text.slice(separator + 2));
  return new CoreError('internal_panic', 'internal error in the proof core');
}
