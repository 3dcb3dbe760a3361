/**
 * @module The core facade over WebAssembly for a wallet in a browser (in Node, `loadCore()` from
 * `priv-stark` picks the native addon). Proofs then run on the page's thread, one call at a time:
 * run the wallet in a Web Worker to keep a page responsive while it proves.
 */

import { type CoreOptions, createCore } from '../core/create-core.js';
import type { PrivStarkCore } from '../core/facade.js';
import { instantiateWasm, loadWasm } from '../core/wasm.js';

/** Where {@link loadWasmCore} takes the module from, as an object. */
export type WasmCoreSource =
  /** A compiled module: instantiated, never compiled (workerd, which cannot compile bytes). */
  | { readonly module: WebAssembly.Module }
  /** The module's bytes (compiled here). */
  | { readonly bytes: BufferSource }
  /** Where the page serves it (fetched, then compiled). */
  | { readonly url: URL | string };

/**
 * Loads `priv_stark.wasm` (shipped in the package as `build/wasm/priv_stark.wasm`; serve it with
 * `Content-Type: application/wasm`).
 * @param source where the page serves the module, its bytes, or a compiled module — bare or as
 *   `{ url }`, `{ bytes }`, `{ module }`. Runtimes that forbid compiling WebAssembly at run time
 *   (Cloudflare's workerd) pass the `WebAssembly.Module` they were given: `{ module: env.CORE }`.
 * @example
 * const core = await loadWasmCore(new URL('/priv_stark.wasm', location.href));
 * const wallet = await Wallet.create({ core, pool: 'https://pool.example', store: new IndexedDbWalletStore('main') });
 * @example
 * // workerd: `bindings = [(name = "CORE", wasmModule = embed "priv_stark.wasm")]`
 * const core = await loadWasmCore({ module: env.CORE });
 */
export async function loadWasmCore(
  source: URL | string | BufferSource | WebAssembly.Module | WasmCoreSource,
  options: CoreOptions = {},
): Promise<PrivStarkCore> {
  const given = sourceOf(source);
  const raw =
    given instanceof URL || typeof given === 'string'
      ? await loadWasm(new URL(given, globalThis.location?.href), false)
      : await instantiateWasm(given);
  return createCore(raw, 'wasm', options);
}

function sourceOf(
  source: URL | string | BufferSource | WebAssembly.Module | WasmCoreSource,
): URL | string | BufferSource | WebAssembly.Module {
  if (typeof source !== 'object' || source instanceof URL || source instanceof WebAssembly.Module)
    return source;
  if (ArrayBuffer.isView(source) || source instanceof ArrayBuffer) return source;
  if ('module' in source) return source.module;
  if ('bytes' in source) return source.bytes;
  if ('url' in source) return source.url;
  throw new TypeError(
    '"source" expected a URL, bytes, a WebAssembly.Module, or { url | bytes | module }',
  );
}
