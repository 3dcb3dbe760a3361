/**
 * @module Loads the WebAssembly build of the core (raw C ABI, see `crates/wasm/src/lib.rs`) in
 * Node, Bun, Deno, a browser or a worker runtime that hands over a compiled module (workerd).
 */

import type { RawBinding } from './binding.js';

/** The exports of `priv_stark.wasm`. */
interface WasmExports {
  memory: WebAssembly.Memory;
  ps_alloc(len: number): number;
  ps_free(ptr: number, len: number): void;
  ps_result_ptr(): number;
  ps_result_len(): number;
  [name: `ps_${string}`]: unknown;
}

type Argument = Uint8Array | number;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * Where the module is, relative to this file both in `src/` and in `dist/`. Where modules have no
 * URL to resolve against (workerd's `import.meta.url` is not one), a `priv-stark:` URL that no
 * loader can fetch: those runtimes hand over the compiled module instead.
 */
export const WASM_URL: URL = packagedWasmUrl();

function packagedWasmUrl(): URL {
  try {
    return new URL('../../build/wasm/priv_stark.wasm', import.meta.url);
  } catch {
    return new URL('priv-stark:build/wasm/priv_stark.wasm');
  }
}

/**
 * One live instance, replaced when a call traps (a Rust panic aborts the instance; its memory can
 * no longer be trusted).
 */
class WasmCore {
  #module: WebAssembly.Module;
  #exports: WasmExports;

  constructor(module: WebAssembly.Module, instance: WebAssembly.Instance) {
    this.#module = module;
    this.#exports = instance.exports as unknown as WasmExports;
  }

  /** Copies the arguments in, calls `ps_<name>`, copies the result out. */
  call(name: string, args: readonly Argument[]): Uint8Array {
    const exports = this.#exports;
    const fn = exports[`ps_${name}`];
    if (typeof fn !== 'function') throw new Error(`internal_panic: missing export ps_${name}`);
    const allocations: [number, number][] = [];
    const flat: number[] = [];
    try {
      for (const arg of args) {
        if (typeof arg === 'number') {
          flat.push(arg);
          continue;
        }
        const ptr = exports.ps_alloc(arg.length);
        allocations.push([ptr, arg.length]);
        new Uint8Array(exports.memory.buffer, ptr, arg.length).set(arg);
        flat.push(ptr, arg.length);
      }
      const status = (fn as (...a: number[]) => number)(...flat);
      const out = new Uint8Array(
        exports.memory.buffer,
        exports.ps_result_ptr(),
        exports.ps_result_len(),
      ).slice();
      // The same report shape as the N-API addon; the facade turns it into a CoreError.
      if (status !== 0) throw new Error(decoder.decode(out));
      return out;
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError) {
        this.#reset();
        throw new Error('internal_panic: internal error in the proof core');
      }
      throw error;
    } finally {
      if (this.#exports === exports) {
        for (const [ptr, len] of allocations) exports.ps_free(ptr, len);
      }
    }
  }

  text(name: string, args: readonly Argument[]): string {
    return decoder.decode(this.call(name, args));
  }

  #reset(): void {
    this.#exports = new WebAssembly.Instance(this.#module, {}).exports as unknown as WasmExports;
  }
}

/** Runs a binding call somewhere else and resolves with its bytes (waiting `timeoutMs` at most). */
type OffThread = (
  method: keyof RawBinding,
  args: readonly Argument[],
  timeoutMs?: number,
) => Promise<Uint8Array>;

/**
 * Wraps an instantiated module in the byte-level contract. The async variants run on
 * `offThread` when given (worker threads in Node); otherwise they settle on a later tick of this
 * thread (browsers: run the whole core in a Web Worker instead).
 */
function bindingOf(core: WasmCore, offThread?: OffThread): RawBinding {
  const bytes = (name: string, ...args: Argument[]) => core.call(name, args);
  const sameThread = (name: string, args: readonly Argument[]) =>
    new Promise<Uint8Array>((resolve, reject) => {
      setTimeout(() => {
        try {
          resolve(core.call(name, args));
        } catch (error) {
          reject(error);
        }
      }, 0);
    });
  const later = (method: keyof RawBinding, name: string, ...args: Argument[]) =>
    offThread ? offThread(method, args) : sameThread(name, args);
  return {
    version: () => core.text('version', []),
    buildProfile: () => core.text('build_profile', []),
    errorCodes: () => core.text('error_codes', []).split('\n'),
    rpoPermute: (state) => bytes('rpo_permute', state),
    hashElements: (domain, input) => bytes('hash_elements', domain, input),
    merge: (left, right) => bytes('merge', left, right),
    mergePairs: (nodes) => bytes('merge_pairs', nodes),
    digestFromHex: (text) => bytes('digest_from_hex', encoder.encode(text)),
    digestToHex: (digest) => core.text('digest_to_hex', [digest]),
    frontierEmpty: () => bytes('frontier_empty'),
    frontierAppend: (frontier, leaves) => bytes('frontier_append', frontier, leaves),
    treeRoot: (leaves) => bytes('tree_root', leaves),
    treePath: (leaves, index) => bytes('tree_path', leaves, index),
    rootFromPath: (leaf, index, path) => bytes('root_from_path', leaf, index, path),
    contextDigest: (packed) => bytes('context_digest', packed),
    depositMatches: (pres, deposits) => bytes('deposit_matches', pres, deposits),
    addressEncode: (owner) => core.text('address_encode', [owner]),
    addressDecode: (address) => bytes('address_decode', encoder.encode(address)),
    proofErrorCodes: () => core.text('proof_error_codes', []).split('\n'),
    spendPublicInputs: (witness) => bytes('spend_public_inputs', witness),
    proveSpend: (witness, seed) => bytes('prove_spend', witness, seed),
    proofReference: (proof, publicInputs) => bytes('proof_reference', proof, publicInputs),
    verifySpend: (proof, publicInputs, accepted) =>
      accepted === undefined
        ? bytes('verify_spend', proof, publicInputs)
        : bytes('verify_spend_accepting', proof, publicInputs, accepted),
    proveSpendAsync: (witness, seed) => later('proveSpend', 'prove_spend', witness, seed),
    verifySpendAsync: (proof, publicInputs, accepted, timeoutMs) => {
      const [name, args]: [string, Argument[]] =
        accepted === undefined
          ? ['verify_spend', [proof, publicInputs]]
          : ['verify_spend_accepting', [proof, publicInputs, accepted]];
      return offThread ? offThread('verifySpend', args, timeoutMs) : sameThread(name, args);
    },
    parameterSets: () => bytes('parameter_sets'),
    acceptParameterSets: (ids) => bytes('accept_parameter_sets', ids),
    transitionPublicInputs: (witness) => bytes('transition_public_inputs', witness),
    proveTransition: (witness, seed, set) =>
      set === undefined
        ? bytes('prove_transition', witness, seed)
        : bytes('prove_transition_in_set', witness, seed, set),
    verifyTransition: (proof, publicInputs, accepted) =>
      accepted === undefined
        ? bytes('verify_transition', proof, publicInputs)
        : bytes('verify_transition_accepting', proof, publicInputs, accepted),
    transitionParameterSets: () => bytes('transition_parameter_sets'),
    acceptTransitionParameterSets: (ids) => bytes('accept_transition_parameter_sets', ids),
    proveTransitionAsync: (witness, seed, set) =>
      set === undefined
        ? later('proveTransition', 'prove_transition', witness, seed)
        : later('proveTransition', 'prove_transition_in_set', witness, seed, set),
    verifyTransitionAsync: (proof, publicInputs, accepted) =>
      accepted === undefined
        ? later('verifyTransition', 'verify_transition', proof, publicInputs)
        : later('verifyTransition', 'verify_transition_accepting', proof, publicInputs, accepted),
    frontierAppendAsync: (frontier, leaves) =>
      later('frontierAppend', 'frontier_append', frontier, leaves),
    treeRootAsync: (leaves) => later('treeRoot', 'tree_root', leaves),
    treePathAsync: (leaves, index) => later('treePath', 'tree_path', leaves, index),
    depositMatchesAsync: (pres, deposits) =>
      later('depositMatches', 'deposit_matches', pres, deposits),
  };
}

/**
 * Instantiates the module from its bytes or a compiled module (browsers: pass
 * `await (await fetch(url)).arrayBuffer()`, or a `WebAssembly.Module`). Runtimes that cannot
 * compile WebAssembly at run time (Cloudflare's workerd: no `WebAssembly.compile` of bytes) must
 * pass the `WebAssembly.Module` they were given (a wasm module binding or import): a module is
 * only instantiated, never compiled.
 */
export async function instantiateWasm(
  source: BufferSource | WebAssembly.Module,
  offThread?: OffThread,
): Promise<RawBinding> {
  const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(source);
  const instance = await WebAssembly.instantiate(module, {});
  return bindingOf(new WasmCore(module, instance), offThread);
}

/** Node: the async variants run on worker threads, started on first use. */
function workerThreadsRunner(url: URL): OffThread {
  let threads: Promise<import('./wasm-threads.js').WasmThreads> | undefined;
  return async (method, args, timeoutMs) => {
    threads ??= import('./wasm-threads.js').then(({ WasmThreads }) => new WasmThreads(url));
    return (await threads).run(method, args, timeoutMs);
  };
}

/**
 * Loads `build/wasm/priv_stark.wasm` from disk (Node, Bun, Deno) or by `fetch` (browsers), or
 * instantiates a precompiled `WebAssembly.Module` (workerd). From disk, the async variants run on
 * worker threads unless `offThread` is false (the workers themselves); otherwise, on this thread.
 */
export async function loadWasm(
  source: URL | WebAssembly.Module = WASM_URL,
  offThread = true,
): Promise<RawBinding> {
  if (source instanceof WebAssembly.Module) return instantiateWasm(source);
  const url = source;
  if (url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return instantiateWasm(await readFile(url), offThread ? workerThreadsRunner(url) : undefined);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not fetch ${url.href}: HTTP ${response.status}`);
  return instantiateWasm(await response.arrayBuffer());
}
