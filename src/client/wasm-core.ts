/**
 * @module The core facade over WebAssembly for a wallet in a browser (in Node, `loadCore()` from
 * `priv-stark` picks the native addon). Proofs then run on the page's thread, one call at a time:
 * run the wallet in a Web Worker to keep a page responsive while it proves.
 */

import { createCore, type PrivStarkCore } from '../core/facade.js';
import { instantiateWasm, loadWasm } from '../core/wasm.js';

/**
 * Loads `priv_stark.wasm` (shipped in the package as `build/wasm/priv_stark.wasm`; serve it with
 * `Content-Type: application/wasm`).
 * @param source where the page serves the module, its bytes, or a compiled module
 * @example
 * const core = await loadWasmCore(new URL('/priv_stark.wasm', location.href));
 * const wallet = await Wallet.create({ core, pool: 'https://pool.example', store: new IndexedDbWalletStore('main') });
 */
export async function loadWasmCore(
  source: URL | string | BufferSource | WebAssembly.Module,
): Promise<PrivStarkCore> {
  const raw =
    source instanceof URL || typeof source === 'string'
      ? await loadWasm(new URL(source, globalThis.location?.href), false)
      : await instantiateWasm(source);
  return createCore(raw, 'wasm');
}
