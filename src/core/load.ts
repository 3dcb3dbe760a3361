/**
 * @module `loadCore()`: native first, then WebAssembly; `PRIV_STARK_BACKEND=native|wasm` forces
 * one. When nothing loads, one error chains every attempt's cause.
 */

import type { Backend, RawBinding } from './binding.js';
import { BackendLoadError } from './errors.js';
import { createCore } from './create-core.js';
import type { PrivStarkCore } from './facade.js';
import { loadNative } from './native.js';
import { loadWasm } from './wasm.js';

/** Options of {@link loadCore}. */
export interface LoadCoreOptions {
  /** Use only this backend (default: `PRIV_STARK_BACKEND`, else native then WASM). */
  readonly backend?: Backend;
  /** Where the `.wasm` file is (default: the package's `build/wasm/priv_stark.wasm`). */
  readonly wasmUrl?: URL;
  /** Path of the `.node` addon, tried alone (default: `PRIV_STARK_NATIVE_PATH`, then the package's
   * `build/native/`). */
  readonly nativePath?: string;
  /** How long a verification may take before it rejects with `VerificationTimeoutError`
   * (default `DEFAULT_VERIFY_TIMEOUT_MS`, 30 s). */
  readonly verifyTimeoutMs?: number;
}

const loaders: Record<Backend, (options: LoadCoreOptions) => Promise<RawBinding>> = {
  native: async (options) => loadNative(options.nativePath),
  wasm: async (options) => loadWasm(options.wasmUrl),
};

const cache = new Map<Backend, Promise<PrivStarkCore>>();

function forcedBackend(options: LoadCoreOptions): Backend | undefined {
  const forced = options.backend ?? process.env.PRIV_STARK_BACKEND;
  if (forced === undefined || forced === '') return undefined;
  if (forced !== 'native' && forced !== 'wasm') {
    throw new RangeError(
      `"PRIV_STARK_BACKEND" expected native or wasm, got ${String(forced).slice(0, 16)}`,
    );
  }
  return forced;
}

/** Loads one backend (memoised when loaded from the default location). */
export function loadBackend(
  backend: Backend,
  options: LoadCoreOptions = {},
): Promise<PrivStarkCore> {
  if (
    options.nativePath !== undefined ||
    options.wasmUrl !== undefined ||
    options.verifyTimeoutMs !== undefined
  ) {
    return loaders[backend](options).then((raw) =>
      createCore(raw, backend, { verifyTimeoutMs: options.verifyTimeoutMs }),
    );
  }
  let loading = cache.get(backend);
  if (!loading) {
    loading = loaders[backend](options).then((raw) => createCore(raw, backend));
    loading.catch(() => cache.delete(backend));
    cache.set(backend, loading);
  }
  return loading;
}

/**
 * Loads the core: the native addon if it loads, otherwise the WebAssembly module.
 * @throws BackendLoadError whose `cause` is an `AggregateError` of every attempt.
 * @example
 * const core = await loadCore();
 * console.log(core.backend, core.emptyFrontier().root);
 */
export async function loadCore(options: LoadCoreOptions = {}): Promise<PrivStarkCore> {
  const forced = forcedBackend(options);
  const order: Backend[] = forced ? [forced] : ['native', 'wasm'];
  const failures: Error[] = [];
  for (const backend of order) {
    try {
      return await loadBackend(backend, options);
    } catch (error) {
      failures.push(
        new Error(`${backend}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        }),
      );
    }
  }
  throw new BackendLoadError(`no proof backend could be loaded (tried ${order.join(', ')})`, {
    cause: new AggregateError(failures, failures.map((f) => f.message).join('; ')),
  });
}
