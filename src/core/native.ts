/**
 * @module Loads the N-API addon built by `napi build` into `build/native/`.
 */

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import type { RawBinding } from './binding.js';
import type * as Generated from './native-binding.js';

/** `priv-stark.<platform>-<arch>[-gnu].node`, as `napi build --platform` names it. */
export function nativeFileName(): string {
  const libc = process.platform === 'linux' ? '-gnu' : '';
  return `priv-stark.${process.platform}-${process.arch}${libc}.node`;
}

/**
 * Where the addon is looked for: an explicit path alone, else `PRIV_STARK_NATIVE_PATH` then the
 * package's build folder.
 */
export function nativeCandidates(explicit?: string): string[] {
  if (explicit !== undefined) return [explicit];
  const local = fileURLToPath(new URL(`../../build/native/${nativeFileName()}`, import.meta.url));
  const override = process.env.PRIV_STARK_NATIVE_PATH;
  return override ? [override, local] : [local];
}

/**
 * Loads the addon.
 * @throws Error naming every path tried when none loads.
 */
export function loadNative(path?: string): RawBinding {
  const require = createRequire(import.meta.url);
  const failures: string[] = [];
  for (const candidate of nativeCandidates(path)) {
    if (!existsSync(candidate)) {
      failures.push(`${candidate}: not found`);
      continue;
    }
    try {
      // The generated typings are checked against the contract here, at compile time.
      const binding: typeof Generated = require(candidate);
      return binding satisfies RawBinding;
    } catch (error) {
      failures.push(`${candidate}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`native addon not loaded (${failures.join('; ')}); run \`npm run build\``);
}
