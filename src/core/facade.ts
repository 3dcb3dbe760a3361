/**
 * @module The typed API of the core, whichever backend runs it: what {@link PrivStarkCore} offers
 * and the values it takes and returns — digests as `0x` hex strings (the wire encoding), field
 * elements as bigints, lists as arrays. `createCore` (`create-core.ts`) writes it once over the
 * binding, so the native addon and WebAssembly behave identically.
 */

import type { Backend } from './binding.js';
import type { DigestHex } from './digest.js';
import type { Domain } from './domains.js';
import type { SpendProof, SpendPublicInputs, SpendWitness, VerifyResult } from './spend.js';
import type { TransitionProof, TransitionPublicInputs, TransitionWitness } from './transition.js';

export type { DigestHex } from './digest.js';

/** Depth of the pool tree. */
export const TREE_DEPTH = 32;
/** Leaves the pool tree holds. */
export const TREE_CAPACITY = 2 ** TREE_DEPTH;

/** The pool tree's incremental state (see `Frontier` in `crates/core/src/tree.rs`). */
export interface Frontier {
  /** Leaves appended so far. */
  readonly size: number;
  /** The current root. */
  readonly root: DigestHex;
  /** Opaque encoding, 1064 bytes; stores keep it as is. */
  readonly state: Uint8Array;
}

/** The payment fields a spend proof is bound to. */
export interface PaymentContext {
  readonly scheme: string;
  readonly network: string;
  readonly asset: string;
  readonly payTo: string;
  /** Atomic units as a decimal string, `0 < amount < 2^62`. */
  readonly amount: string;
  /** `paymentRequirements.extra.resourceId`, `''` when absent. */
  readonly resourceId: string;
  /** Unix seconds. */
  readonly expiry: number;
}

/** A proof's content reference: `0x` + 64 lowercase hex digits (32 bytes; not field elements). */
export type ProofReference = `0x${string}`;

/** What {@link PrivStarkCore.proofReference} returns. */
export interface ProofReferenceOf {
  readonly reference: ProofReference;
  /** The parameter-set id the proof's header names. */
  readonly parameterSet: number;
}

/** A deposit of the pool's log, as {@link PrivStarkCore.depositMatches} takes it. */
export interface DepositRecord {
  /** Decimal atomic units. */
  readonly amount: string;
  readonly commitment: string;
}

/** A deposit that pays a precommitment: indexes into the two lists given. */
export interface DepositMatch {
  readonly deposit: number;
  readonly precommitment: number;
}

/**
 * A parameter set (FRI blowup, queries, grinding) and its security as Plonky3's estimator computes
 * it for its statement's AIR, in bits: a spend set (`parameterSets`) or a transition set
 * (`transitionParameterSets`, whose `accepted` and `prover` refer to `verifyTransition` and
 * `proveTransition`).
 */
export interface ParameterSetInfo {
  /** The id in the proof header. */
  readonly id: number;
  /** Whether this core's `verifySpend` accepts proofs of this set (see `acceptParameterSets`). */
  readonly accepted: boolean;
  /** Whether the default configuration accepts it. */
  readonly acceptedByDefault: boolean;
  /** Whether `proveSpend` makes proofs of this set. */
  readonly prover: boolean;
  /** FRI blowup factor. */
  readonly blowup: number;
  /** FRI queries. */
  readonly queries: number;
  /** Proof-of-work bits before the queries are drawn. */
  readonly queryGrindingBits: number;
  /** Conjectured security ("random words" conjecture). */
  readonly conjecturedBits: number;
  /** Proven security, list-decoding regime (Johnson bound). */
  readonly provenListDecodingBits: number;
  /** Proven security, unique-decoding regime. */
  readonly provenUniqueDecodingBits: number;
}

/** The core: hashing, the pool tree and encodings, on one backend. */
export interface PrivStarkCore {
  /** Which backend runs the calls. */
  readonly backend: Backend;
  /** Version of the Rust core. */
  readonly version: string;
  /** Build profile of the loaded binary. */
  readonly buildProfile: string;
  /** Codes the loaded binary reports (equal to `CORE_ERROR_CODES`). */
  errorCodes(): string[];
  /** The RPO-256 permutation of 12 canonical elements. */
  rpoPermute(state: readonly bigint[]): bigint[];
  /** `H_<domain>(elements)`. */
  hashElements(domain: Domain, elements: readonly bigint[]): DigestHex;
  /** `H_NODE(left, right)`. */
  merge(left: string, right: string): DigestHex;
  /**
   * `H_NODE(nodes[2i], nodes[2i + 1])` for each pair, in one call (a level of a tree).
   * @throws RangeError for an odd number of nodes
   */
  mergePairs(nodes: readonly string[]): DigestHex[];
  /** Checks a digest string completely (format and canonical elements) and returns it typed. */
  parseDigest(text: string): DigestHex;
  /** The frontier of the empty tree. */
  emptyFrontier(): Frontier;
  /** Appends leaves in O(depth) each. */
  frontierAppend(frontier: Frontier, leaves: readonly string[]): Frontier;
  /** {@link frontierAppend} off the JavaScript thread (native). */
  frontierAppendAsync(frontier: Frontier, leaves: readonly string[]): Promise<Frontier>;
  /** The root of the tree holding `leaves`. */
  treeRoot(leaves: readonly string[]): DigestHex;
  /** {@link treeRoot} off the JavaScript thread (native). */
  treeRootAsync(leaves: readonly string[]): Promise<DigestHex>;
  /** The authentication path (32 siblings, leaf level first) of `leaves[index]`. */
  treePath(leaves: readonly string[], index: number): DigestHex[];
  /** {@link treePath} off the JavaScript thread (native). */
  treePathAsync(leaves: readonly string[], index: number): Promise<DigestHex[]>;
  /** The root reached from `leaf` at `index` along `path`. */
  rootFromPath(leaf: string, index: number, path: readonly string[]): DigestHex;
  /** `ctx = H_CONTEXT(encode(payment))`, which binds a proof to one payment. */
  contextDigest(context: PaymentContext): DigestHex;
  /**
   * The deposits whose commitment is `H_NOTE(amount, pre)` for one of `precommitments`, in the
   * deposits' order: a whole page of a log in one call, one hash per distinct amount and
   * precommitment (what a wallet restored from its key runs over every deposit event).
   */
  depositMatches(
    precommitments: readonly string[],
    deposits: readonly DepositRecord[],
  ): DepositMatch[];
  /** {@link depositMatches} off the JavaScript thread (native). */
  depositMatchesAsync(
    precommitments: readonly string[],
    deposits: readonly DepositRecord[],
  ): Promise<DepositMatch[]>;
  /** The shielded address (bech32m, `pstark1…`) of an owner digest. */
  encodeAddress(owner: string): string;
  /** The owner digest of a shielded address; `invalid_address` for any corruption. */
  decodeAddress(address: string): DigestHex;
  /** Codes the spend prover and verifier report (equal to `PROOF_ERROR_CODES`). */
  proofErrorCodes(): string[];
  /** The public inputs a witness proves (no proof is made). */
  spendPublicInputs(witness: SpendWitness): SpendPublicInputs;
  /**
   * Proves a spend off the JavaScript thread, with a fresh 32-byte seed from the platform's
   * CSPRNG. A witness that does not satisfy the statement is refused with a `CoreError`
   * (e.g. `insufficient_value`, `root_mismatch`); no proof of a false statement is attempted.
   */
  proveSpend(witness: SpendWitness): Promise<SpendProof>;
  /**
   * The content reference of a proof handed over to the pool operator's node (compact payments):
   * BLAKE3 of a domain tag, the header's parameter set, the AIR digest, the public inputs and the
   * proof bytes (`crates/proof/src/reference.rs`), and that parameter set. Reads the header only;
   * it says nothing of validity.
   * @throws CoreError (`proof_too_short`, `bad_magic`, …) for bytes without a proof header, or
   *   public inputs that do not encode
   */
  proofReference(proof: Uint8Array, publicInputs: SpendPublicInputs): ProofReferenceOf;
  /**
   * Verifies a proof off the JavaScript thread. Hostile bytes or inputs never throw: the verdict
   * carries the stable code of the first check that failed. Wrong JavaScript types throw. Always
   * settles: with no verdict within the core's `verifyTimeoutMs`, rejects with
   * {@link VerificationTimeoutError}.
   */
  verifySpend(proof: Uint8Array, publicInputs: SpendPublicInputs): Promise<VerifyResult>;
  /**
   * Proves a transition (merge, split, exit) off the JavaScript thread with a fresh seed. A
   * witness the statement forbids is refused with a `CoreError` (`values_not_conserved`,
   * `output_below_minimum`, `root_mismatch`, …).
   */
  proveTransition(
    witness: TransitionWitness,
    options?: {
      /**
       * The transition parameter set to prove (default: the newest, `transitionParameterSets()`'s
       * prover): a wallet proves the newest set its pool node accepts. Not a transition set: a
       * `CoreError` with code `unsupported_parameter_set`.
       */
      readonly parameterSet?: number | undefined;
    },
  ): Promise<TransitionProof>;
  /**
   * Verifies a transition proof off the JavaScript thread: a verdict with a stable code, never an
   * exception for hostile bytes or inputs.
   */
  verifyTransition(proof: Uint8Array, publicInputs: TransitionPublicInputs): Promise<VerifyResult>;
  /** Every parameter set the loaded binary knows, newest first, with its security figures. */
  parameterSets(): readonly ParameterSetInfo[];
  /**
   * The parameter sets `verifySpend` accepts, newest first: by default the prover's set and, for a
   * deprecation window, the previous one. A proof of any other set is refused with
   * `unsupported_parameter_set`.
   */
  acceptedParameterSets(): readonly ParameterSetInfo[];
  /**
   * Sets which parameter sets `verifySpend` accepts (for this core object, which `loadBackend`
   * shares per backend); returns the new `acceptedParameterSets()`. An unknown id throws a
   * `CoreError` with code `unsupported_parameter_set`, an empty list one with `invalid_length`;
   * a non-integer id throws `TypeError` / `RangeError`.
   * @example
   * core.acceptParameterSets([3]); // once no set-2 proof can still be in flight
   */
  acceptParameterSets(ids: readonly number[]): readonly ParameterSetInfo[];
  /**
   * Every transition parameter set the loaded binary knows, newest first: 17 (proved: the memo and
   * the output range proven) and 16 (verified for proofs made before it).
   */
  transitionParameterSets(): readonly ParameterSetInfo[];
  /** The transition sets `verifyTransition` accepts, newest first (by default all of them). */
  acceptedTransitionParameterSets(): readonly ParameterSetInfo[];
  /**
   * Sets which transition sets `verifyTransition` accepts (for this core object); returns the new
   * `acceptedTransitionParameterSets()`. Errors as `acceptParameterSets`.
   * @example
   * core.acceptTransitionParameterSets([17]); // once no set-16 transition can still be in flight
   */
  acceptTransitionParameterSets(ids: readonly number[]): readonly ParameterSetInfo[];
}
