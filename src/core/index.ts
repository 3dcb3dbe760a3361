/**
 * @module The core facade: one typed API over the native addon or WebAssembly.
 */

export type { Backend, RawBinding } from './binding.js';
export { CORE_ERROR_CODES, type CoreErrorCode, isCoreErrorCode } from './codes.js';
export { BackendLoadError, CoreError } from './errors.js';
export {
  createCore,
  type DigestHex,
  type Domain,
  DOMAINS,
  type Frontier,
  type PaymentContext,
  type PrivStarkCore,
  TREE_CAPACITY,
  TREE_DEPTH,
} from './facade.js';
export { loadBackend, loadCore, type LoadCoreOptions } from './load.js';
export { loadNative } from './native.js';
export { instantiateWasm, loadWasm, WASM_URL } from './wasm.js';
