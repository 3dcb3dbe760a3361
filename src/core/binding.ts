/**
 * @module The byte-level contract that both backends implement: the N-API addon
 * (`crates/napi`) and the WebAssembly module (`crates/wasm`). Both forward to the same Rust
 * functions in `crates/core/src/wire.rs`; the typed API in `facade.ts` is written once over this.
 */

/** Which backend runs the core. */
export type Backend = 'native' | 'wasm';

/** Byte-level calls; every failure is reported as `"<code>: <message>"`. */
export interface RawBinding {
  version(): string;
  buildProfile(): string;
  errorCodes(): string[];
  rpoPermute(state: Uint8Array): Uint8Array;
  hashElements(domain: number, input: Uint8Array): Uint8Array;
  merge(left: Uint8Array, right: Uint8Array): Uint8Array;
  /** `H_NODE` of each pair of concatenated digests. */
  mergePairs(nodes: Uint8Array): Uint8Array;
  digestFromHex(text: string): Uint8Array;
  digestToHex(digest: Uint8Array): string;
  frontierEmpty(): Uint8Array;
  frontierAppend(frontier: Uint8Array, leaves: Uint8Array): Uint8Array;
  treeRoot(leaves: Uint8Array): Uint8Array;
  treePath(leaves: Uint8Array, index: number): Uint8Array;
  rootFromPath(leaf: Uint8Array, index: number, path: Uint8Array): Uint8Array;
  contextDigest(packed: Uint8Array): Uint8Array;
  /** (deposit, precommitment) u32 little-endian pairs; deposits are amount u64 LE + commitment. */
  depositMatches(precommitments: Uint8Array, deposits: Uint8Array): Uint8Array;
  addressEncode(owner: Uint8Array): string;
  addressDecode(address: string): Uint8Array;
  proofErrorCodes(): string[];
  spendPublicInputs(witness: Uint8Array): Uint8Array;
  proveSpend(witness: Uint8Array, seed: Uint8Array): Uint8Array;
  /** The proof's reference (32 bytes) followed by its header's parameter-set id (1 byte). */
  proofReference(proof: Uint8Array, publicInputs: Uint8Array): Uint8Array;
  /**
   * Empty bytes when the proof holds. `accepted`: the parameter-set ids to accept, one byte each
   * (absent: the default sets).
   */
  verifySpend(proof: Uint8Array, publicInputs: Uint8Array, accepted?: Uint8Array): Uint8Array;
  proveSpendAsync(witness: Uint8Array, seed: Uint8Array): Promise<Uint8Array>;
  /**
   * `accepted` as in `verifySpend`. `timeoutMs`: a binding that queues the call elsewhere (the
   * WebAssembly worker threads) stops waiting for it then, rejecting with
   * `VerificationTimeoutError`; the addon ignores it.
   */
  verifySpendAsync(
    proof: Uint8Array,
    publicInputs: Uint8Array,
    accepted?: Uint8Array,
    timeoutMs?: number,
  ): Promise<Uint8Array>;
  /**
   * Every parameter set a verifier can accept, newest first, 8 bytes each: id, flags (1: accepted
   * by default, 2: the prover's set), log2 blowup, queries, query grinding bits, conjectured,
   * proven list-decoding and proven unique-decoding bits.
   */
  parameterSets(): Uint8Array;
  /** Checks ids to accept (one byte each); returns them normalised: newest first, each once. */
  acceptParameterSets(ids: Uint8Array): Uint8Array;
  /** Public inputs (248 bytes) of an encoded transition witness (2232 bytes). */
  transitionPublicInputs(witness: Uint8Array): Uint8Array;
  /** `set`: the transition parameter set (absent: the newest). */
  proveTransition(witness: Uint8Array, seed: Uint8Array, set?: number): Uint8Array;
  /**
   * Empty bytes when the transition proof holds. `accepted`: the transition parameter-set ids to
   * accept, one byte each (absent: every transition set).
   */
  verifyTransition(proof: Uint8Array, publicInputs: Uint8Array, accepted?: Uint8Array): Uint8Array;
  /** Every transition parameter set, newest first, in `parameterSets`' records. */
  transitionParameterSets(): Uint8Array;
  /** Checks transition set ids to accept; returns them normalised: newest first, each once. */
  acceptTransitionParameterSets(ids: Uint8Array): Uint8Array;
  proveTransitionAsync(witness: Uint8Array, seed: Uint8Array, set?: number): Promise<Uint8Array>;
  /** Empty bytes when the transition proof holds; `accepted` as in `verifyTransition`. */
  verifyTransitionAsync(
    proof: Uint8Array,
    publicInputs: Uint8Array,
    accepted?: Uint8Array,
  ): Promise<Uint8Array>;
  frontierAppendAsync(frontier: Uint8Array, leaves: Uint8Array): Promise<Uint8Array>;
  treeRootAsync(leaves: Uint8Array): Promise<Uint8Array>;
  treePathAsync(leaves: Uint8Array, index: number): Promise<Uint8Array>;
  depositMatchesAsync(precommitments: Uint8Array, deposits: Uint8Array): Promise<Uint8Array>;
}
