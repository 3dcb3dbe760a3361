/**
 * @module The core facade: one typed API over the native addon or WebAssembly.
 */

export type { Backend, RawBinding } from './binding.js';
export {
  CORE_ERROR_CODES,
  type CoreErrorCode,
  isCoreErrorCode,
  PROOF_ERROR_CODES,
  type ProofErrorCode,
} from './codes.js';
export { BackendLoadError, CoreError, VerificationTimeoutError } from './errors.js';
export { type CoreOptions, createCore, DEFAULT_VERIFY_TIMEOUT_MS } from './create-core.js';
export {
  type DepositMatch,
  type DepositRecord,
  type DigestHex,
  type Frontier,
  type ParameterSetInfo,
  type PaymentContext,
  type PrivStarkCore,
  type ProofReference,
  type ProofReferenceOf,
  TREE_CAPACITY,
  TREE_DEPTH,
} from './facade.js';
export { DIGEST_FORMAT, isDigestFormat } from './digest.js';
export { type Domain, DOMAINS } from './domains.js';
export { loadBackend, loadCore, type LoadCoreOptions } from './load.js';
export { loadNative } from './native.js';
export {
  decodePublicInputs,
  encodePublicInputs,
  encodeWitness,
  PUBLIC_INPUTS_BYTES,
  type SpendProof,
  type SpendPublicInputs,
  type SpendWitness,
  type VerifyResult,
  WITNESS_BYTES,
} from './spend.js';
export {
  decodeTransitionPublicInputs,
  encodeTransitionPublicInputs,
  encodeTransitionWitness,
  MIN_OUTPUT_VALUE,
  type RecoveredOutput,
  recoverTransitionOutputs,
  refundRhoOf,
  TRANSITION_PUBLIC_INPUTS_BYTES,
  TRANSITION_WITNESS_BYTES,
  type TransitionInputWitness,
  type TransitionProof,
  type TransitionPublicInputs,
  type TransitionWitness,
  transitionRhoOf,
} from './transition.js';
export { VerifierThreads, type VerifierThreadsOptions } from './verifier-threads.js';
export { instantiateWasm, loadWasm, WASM_URL } from './wasm.js';
export {
  changeRhoOf,
  commitmentOf,
  depositRhoOf,
  type DerivedNote,
  deriveNote,
  digestElements,
  elementsDigest,
  type NoteSecrets,
  ownerOf,
  precommitmentOf,
  randomDigest,
  randomElements,
  randomNote,
  recipientRhoOf,
  spendWitness,
} from './witness.js';
