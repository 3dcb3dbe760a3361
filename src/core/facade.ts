/**
 * @module The typed API over either backend: digests as `0x` hex strings (the wire encoding),
 * field elements as bigints, lists as arrays. Written once over {@link RawBinding}, so the
 * native addon and WebAssembly behave identically; every core rejection is a {@link CoreError}.
 */

import { aarray, abytes, aint, astring, au64 } from './assert.js';
import type { Backend, RawBinding } from './binding.js';
import { CoreError, coreErrorFrom, VerificationTimeoutError } from './errors.js';
import {
  decodePublicInputs,
  encodePublicInputs,
  encodeWitness,
  SpendEncodingError,
  type SpendProof,
  type SpendPublicInputs,
  type SpendWitness,
  type VerifyResult,
} from './spend.js';
import {
  decodeTransitionPublicInputs,
  encodeTransitionPublicInputs,
  encodeTransitionWitness,
  type TransitionProof,
  type TransitionPublicInputs,
  type TransitionWitness,
} from './transition.js';

import { type DigestHex, digestOfBytes, writeDigestBytes } from './digest.js';

export type { DigestHex } from './digest.js';

/** Domain tags of the hash, as in `crates/core/src/sponge.rs`. */
export const DOMAINS = {
  OWNER: 1,
  PRE: 2,
  NOTE: 3,
  NODE: 4,
  NULLIFIER: 5,
  CONTEXT: 6,
  RECIPIENT_RHO: 7,
  CHANGE_RHO: 8,
  DEPOSIT_RHO: 9,
  TRANSITION_RHO_1: 10,
  TRANSITION_RHO_2: 11,
  TRANSITION_MEMO: 12,
  REFUND_RHO: 13,
} as const;

/** A domain name. */
export type Domain = keyof typeof DOMAINS;

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
 * A parameter set of spend proofs (FRI blowup, queries, grinding) and its security as Plonky3's
 * estimator computes it for the spend AIR, in bits.
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
  proveTransition(witness: TransitionWitness): Promise<TransitionProof>;
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
}

/** Options of {@link createCore}. */
export interface CoreOptions {
  /**
   * How long `verifySpend` waits for a verdict before it rejects with
   * {@link VerificationTimeoutError} (default {@link DEFAULT_VERIFY_TIMEOUT_MS}).
   */
  readonly verifyTimeoutMs?: number | undefined;
}

/**
 * The default deadline of a verification: a verdict takes milliseconds (the first call of a
 * WebAssembly core also starts its threads and compiles the module in each), so half a minute
 * means the call is lost, not slow.
 */
export const DEFAULT_VERIFY_TIMEOUT_MS = 30_000;

/** `call()`, or {@link VerificationTimeoutError} if it has not settled after `timeoutMs`. */
function withDeadline<T>(call: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new VerificationTimeoutError(timeoutMs)), timeoutMs);
  });
  return Promise.race([call(), deadline]).finally(() => clearTimeout(timer));
}

const DIGEST_BYTES = 32;
const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;
const encoder = new TextEncoder();

/** Hex to bytes for the format only; the core checks each element against p when it uses them. */
function digestBytes(text: unknown, name: string): Uint8Array {
  const out = new Uint8Array(DIGEST_BYTES);
  if (typeof text !== 'string' || !writeDigestBytes(text, out, 0)) notDigest(text, name);
  return out;
}

/** Throws the facade's error for a value that is not a digest string. */
function notDigest(text: unknown, name: string): never {
  astring(text, name);
  throw new RangeError(
    `"${name}" expected 0x followed by 64 lowercase hex digits, got length=${text.length}`,
  );
}

/** A list of digests concatenated (a sync packs pages of thousands: no per-item allocation). */
function digestListBytes(list: unknown, name: string): Uint8Array {
  aarray(list, name);
  const out = new Uint8Array(list.length * DIGEST_BYTES);
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    if (typeof item !== 'string' || !writeDigestBytes(item, out, i * DIGEST_BYTES))
      notDigest(item, `${name}[${i}]`);
  }
  return out;
}

function splitDigests(bytes: Uint8Array): DigestHex[] {
  const out: DigestHex[] = new Array(bytes.length / DIGEST_BYTES);
  for (let i = 0; i < out.length; i++) out[i] = digestOfBytes(bytes, i * DIGEST_BYTES);
  return out;
}

function elementsBytes(elements: unknown, name: string): Uint8Array {
  aarray(elements, name);
  const view = new DataView(new ArrayBuffer(elements.length * 8));
  elements.forEach((element, i) => {
    au64(element, `${name}[${i}]`);
    view.setBigUint64(i * 8, element, true);
  });
  return new Uint8Array(view.buffer);
}

function frontierOf(state: Uint8Array): Frontier {
  const view = new DataView(state.buffer, state.byteOffset, state.byteLength);
  return {
    size: Number(view.getBigUint64(0, true)),
    root: digestOfBytes(state, state.length - DIGEST_BYTES),
    state,
  };
}

function packContext(context: PaymentContext): Uint8Array {
  if (typeof context !== 'object' || context === null)
    throw new TypeError(`"context" expected object, got type=${typeof context}`);
  const strings = [
    context.scheme,
    context.network,
    context.asset,
    context.payTo,
    context.resourceId,
  ];
  const names = ['scheme', 'network', 'asset', 'payTo', 'resourceId'];
  const encoded = strings.map((value, i) => {
    astring(value, names[i] ?? 'field');
    return encoder.encode(value);
  });
  astring(context.amount, 'amount');
  if (!DECIMAL.test(context.amount) || BigInt(context.amount) >= 1n << 64n) {
    throw new RangeError(
      `"amount" expected a decimal string of atomic units, got length=${context.amount.length}`,
    );
  }
  aint(context.expiry, 'expiry', 0, Number.MAX_SAFE_INTEGER);
  const size = encoded.reduce((sum, e) => sum + 4 + e.length, 0) + 16;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let offset = 0;
  for (const bytes of encoded) {
    view.setUint32(offset, bytes.length, true);
    out.set(bytes, offset + 4);
    offset += 4 + bytes.length;
  }
  view.setBigUint64(offset, BigInt(context.amount), true);
  view.setBigUint64(offset + 8, BigInt(context.expiry), true);
  return out;
}

const DEPOSIT_BYTES = 8 + DIGEST_BYTES;

/** Deposits as amount (u64 little-endian) and commitment, 40 bytes each. */
function packDeposits(deposits: unknown): Uint8Array {
  aarray(deposits, 'deposits');
  const out = new Uint8Array(deposits.length * DEPOSIT_BYTES);
  const view = new DataView(out.buffer);
  deposits.forEach((deposit, i) => {
    if (typeof deposit !== 'object' || deposit === null)
      throw new TypeError(`"deposits[${i}]" expected object, got type=${typeof deposit}`);
    const { amount, commitment } = deposit as DepositRecord;
    astring(amount, `deposits[${i}].amount`);
    if (!DECIMAL.test(amount) || BigInt(amount) >= 1n << 64n)
      throw new RangeError(
        `"deposits[${i}].amount" expected a decimal string of atomic units, got length=${amount.length}`,
      );
    view.setBigUint64(i * DEPOSIT_BYTES, BigInt(amount), true);
    if (typeof commitment !== 'string' || !writeDigestBytes(commitment, out, i * DEPOSIT_BYTES + 8))
      notDigest(commitment, `deposits[${i}].commitment`);
  });
  return out;
}

function depositMatchesOf(bytes: Uint8Array): DepositMatch[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: DepositMatch[] = [];
  for (let offset = 0; offset + 8 <= bytes.length; offset += 8)
    out.push({
      deposit: view.getUint32(offset, true),
      precommitment: view.getUint32(offset + 4, true),
    });
  return out;
}

/** Encodes a witness; format problems become a `CoreError` with their code. */
function encodeCaller(witness: SpendWitness): Uint8Array {
  try {
    return encodeWitness(witness);
  } catch (error) {
    if (error instanceof SpendEncodingError) throw new CoreError(error.code, error.message);
    throw error;
  }
}

function encodeCallerInputs(publicInputs: SpendPublicInputs): Uint8Array {
  try {
    return encodePublicInputs(publicInputs);
  } catch (error) {
    if (error instanceof SpendEncodingError) throw new CoreError(error.code, error.message);
    throw error;
  }
}

/** Bytes of one record of `RawBinding.parameterSets()`. */
const PARAMETER_SET_RECORD_BYTES = 8;

/** Decodes `RawBinding.parameterSets()`; `accepted` is the configured list (undefined: default). */
function parameterSetsOf(
  records: Uint8Array,
  accepted: Uint8Array | undefined,
): ParameterSetInfo[] {
  const out: ParameterSetInfo[] = [];
  for (
    let at = 0;
    at + PARAMETER_SET_RECORD_BYTES <= records.length;
    at += PARAMETER_SET_RECORD_BYTES
  ) {
    const byte = (i: number) => records[at + i] ?? 0;
    const [id, flags] = [byte(0), byte(1)];
    const acceptedByDefault = (flags & 1) !== 0;
    out.push({
      id,
      accepted: accepted === undefined ? acceptedByDefault : accepted.includes(id),
      acceptedByDefault,
      prover: (flags & 2) !== 0,
      blowup: 2 ** byte(2),
      queries: byte(3),
      queryGrindingBits: byte(4),
      conjecturedBits: byte(5),
      provenListDecodingBits: byte(6),
      provenUniqueDecodingBits: byte(7),
    });
  }
  return out;
}

/** Calls the binding (arguments already checked) and turns what it throws into a `CoreError`. */
function guard<A extends unknown[], T>(call: (...args: A) => T, ...args: A): T {
  try {
    return call(...args);
  } catch (error) {
    throw coreErrorFrom(error);
  }
}

async function guardAsync<A extends unknown[], T>(
  call: (...args: A) => Promise<T>,
  ...args: A
): Promise<T> {
  try {
    return await call(...args);
  } catch (error) {
    throw coreErrorFrom(error);
  }
}

/**
 * Builds the typed core over a loaded binding.
 * @example
 * const core = createCore(loadNative(), 'native');
 * core.merge(core.emptyFrontier().root, core.emptyFrontier().root);
 */
export function createCore(
  raw: RawBinding,
  backend: Backend,
  options: CoreOptions = {},
): PrivStarkCore {
  const verifyTimeoutMs = options.verifyTimeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS;
  aint(verifyTimeoutMs, 'verifyTimeoutMs', 1, 2_147_483_647);
  const index = (value: unknown) => {
    aint(value, 'index', 0, TREE_CAPACITY - 1);
    return value;
  };
  const frontierState = (frontier: Frontier) => {
    if (typeof frontier !== 'object' || frontier === null)
      throw new TypeError(`"frontier" expected object, got type=${typeof frontier}`);
    abytes(frontier.state, 'frontier.state');
    return frontier.state;
  };
  // The configured list of accepted parameter sets, normalised by the binding; undefined while
  // the default applies.
  let accepted: Uint8Array | undefined;
  const parameterSets = () => parameterSetsOf(raw.parameterSets(), accepted);
  const pathBytes = (path: unknown) => {
    aarray(path, 'path');
    if (path.length !== 32)
      throw new RangeError(`"path" expected array of length 32, got length=${path.length}`);
    return digestListBytes(path, 'path');
  };
  return {
    backend,
    version: raw.version(),
    buildProfile: raw.buildProfile(),
    errorCodes: () => raw.errorCodes(),
    rpoPermute(state) {
      aarray(state, 'state');
      if (state.length !== 12)
        throw new RangeError(`"state" expected array of length 12, got length=${state.length}`);
      const out = guard(raw.rpoPermute, elementsBytes(state, 'state'));
      const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
      return Array.from({ length: 12 }, (_, i) => view.getBigUint64(i * 8, true));
    },
    hashElements(domain, elements) {
      astring(domain, 'domain');
      const tag = (DOMAINS as Record<string, number>)[domain];
      if (tag === undefined)
        throw new RangeError(
          `"domain" expected one of ${Object.keys(DOMAINS).join(', ')}, got ${domain.slice(0, 32)}`,
        );
      return digestOfBytes(guard(raw.hashElements, tag, elementsBytes(elements, 'elements')));
    },
    merge: (left, right) =>
      digestOfBytes(guard(raw.merge, digestBytes(left, 'left'), digestBytes(right, 'right'))),
    mergePairs(nodes) {
      aarray(nodes, 'nodes');
      if (nodes.length % 2 !== 0)
        throw new RangeError(`"nodes" expected an even number of digests, got ${nodes.length}`);
      return splitDigests(guard(raw.mergePairs, digestListBytes(nodes, 'nodes')));
    },
    parseDigest(text) {
      astring(text, 'digest');
      return digestOfBytes(guard(raw.digestFromHex, text));
    },
    emptyFrontier: () => frontierOf(raw.frontierEmpty()),
    frontierAppend: (frontier, leaves) =>
      frontierOf(
        guard(raw.frontierAppend, frontierState(frontier), digestListBytes(leaves, 'leaves')),
      ),
    frontierAppendAsync: async (frontier, leaves) => {
      const [state, bytes] = [frontierState(frontier), digestListBytes(leaves, 'leaves')];
      return frontierOf(await guardAsync(raw.frontierAppendAsync, state, bytes));
    },
    treeRoot: (leaves) => digestOfBytes(guard(raw.treeRoot, digestListBytes(leaves, 'leaves'))),
    treeRootAsync: async (leaves) => {
      const bytes = digestListBytes(leaves, 'leaves');
      return digestOfBytes(await guardAsync(raw.treeRootAsync, bytes));
    },
    treePath: (leaves, at) =>
      splitDigests(guard(raw.treePath, digestListBytes(leaves, 'leaves'), index(at))),
    treePathAsync: async (leaves, at) => {
      const [bytes, i] = [digestListBytes(leaves, 'leaves'), index(at)];
      return splitDigests(await guardAsync(raw.treePathAsync, bytes, i));
    },
    rootFromPath: (leaf, at, path) =>
      digestOfBytes(guard(raw.rootFromPath, digestBytes(leaf, 'leaf'), index(at), pathBytes(path))),
    contextDigest: (context) => digestOfBytes(guard(raw.contextDigest, packContext(context))),
    depositMatches: (precommitments, deposits) =>
      depositMatchesOf(
        guard(
          raw.depositMatches,
          digestListBytes(precommitments, 'precommitments'),
          packDeposits(deposits),
        ),
      ),
    depositMatchesAsync: async (precommitments, deposits) => {
      const [pres, packed] = [
        digestListBytes(precommitments, 'precommitments'),
        packDeposits(deposits),
      ];
      return depositMatchesOf(await guardAsync(raw.depositMatchesAsync, pres, packed));
    },
    proofErrorCodes: () => raw.proofErrorCodes(),
    spendPublicInputs: (witness) =>
      decodePublicInputs(guard(raw.spendPublicInputs, encodeCaller(witness))),
    async proveSpend(witness) {
      const encoded = encodeCaller(witness);
      const seed = globalThis.crypto.getRandomValues(new Uint8Array(32));
      const proof = await guardAsync(raw.proveSpendAsync, encoded, seed);
      return { proof, publicInputs: decodePublicInputs(guard(raw.spendPublicInputs, encoded)) };
    },
    proofReference(proof, publicInputs) {
      abytes(proof, 'proof');
      const out = guard(raw.proofReference, proof, encodeCallerInputs(publicInputs));
      return { reference: digestOfBytes(out) as ProofReference, parameterSet: out[32]! };
    },
    async verifySpend(proof, publicInputs) {
      abytes(proof, 'proof');
      let encoded: Uint8Array;
      try {
        encoded = encodePublicInputs(publicInputs);
      } catch (error) {
        if (error instanceof SpendEncodingError) return { ok: false, code: error.code };
        throw error;
      }
      try {
        await withDeadline(
          () => raw.verifySpendAsync(proof, encoded, accepted, verifyTimeoutMs),
          verifyTimeoutMs,
        );
        return { ok: true };
      } catch (error) {
        if (error instanceof VerificationTimeoutError) throw error;
        return { ok: false, code: coreErrorFrom(error).code };
      }
    },
    async proveTransition(witness) {
      let encoded: Uint8Array;
      try {
        encoded = encodeTransitionWitness(witness);
      } catch (error) {
        if (error instanceof SpendEncodingError) throw new CoreError(error.code, error.message);
        throw error;
      }
      const publicInputs = decodeTransitionPublicInputs(guard(raw.transitionPublicInputs, encoded));
      const seed = globalThis.crypto.getRandomValues(new Uint8Array(32));
      const proof = await guardAsync(raw.proveTransitionAsync, encoded, seed);
      return { proof, publicInputs };
    },
    async verifyTransition(proof, publicInputs) {
      abytes(proof, 'proof');
      let encoded: Uint8Array;
      try {
        encoded = encodeTransitionPublicInputs(publicInputs);
      } catch (error) {
        if (error instanceof SpendEncodingError) return { ok: false, code: error.code };
        throw error;
      }
      try {
        await raw.verifyTransitionAsync(proof, encoded);
        return { ok: true };
      } catch (error) {
        return { ok: false, code: coreErrorFrom(error).code };
      }
    },
    parameterSets,
    acceptedParameterSets: () => parameterSets().filter((set) => set.accepted),
    acceptParameterSets(ids) {
      aarray(ids, 'ids');
      for (const [i, id] of ids.entries()) aint(id, `ids[${i}]`, 0, 255);
      accepted = guard(raw.acceptParameterSets, Uint8Array.from(ids));
      return parameterSets().filter((set) => set.accepted);
    },
    encodeAddress: (owner) => guard(raw.addressEncode, digestBytes(owner, 'owner')),
    decodeAddress(address) {
      astring(address, 'address');
      return digestOfBytes(guard(raw.addressDecode, address));
    },
  };
}
