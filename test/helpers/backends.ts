/** Both backends, for suites that run once per backend (`describe.each(BACKENDS)`). */

import { readFileSync } from 'node:fs';

import type { Backend } from '../../src/core/binding.js';

export const BACKENDS: readonly Backend[] = ['native', 'wasm'];

/** Reads a vector file from `test/vectors/` (written by `scripts/reference/rpo_reference.py`). */
export function readVectors<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url), 'utf8')) as T;
}
