/**
 * @module `createCore`: the typed API ({@link PrivStarkCore}) written once over a loaded
 * {@link RawBinding}, so the native addon and WebAssembly behave identically. Arguments are checked
 * and packed here into the bytes the binding takes (digests and lists of them without a per-item
 * allocation), its answers unpacked; every core rejection is a {@link CoreError}.
 */

import { aarray, abytes, aint, astring, au64 } from './assert.js';
import type { Backend, RawBinding } from './binding.js';
import { type DigestHex, digestOfBytes, writeDigestBytes } from './digest.js';
import { DOMAINS } from './domains.js';
import { CoreError, coreErrorFrom, VerificationTimeoutError } from './errors.js';
import {
  type DepositMatch,
  type DepositRecord,
  type Frontier,
  type ParameterSetInfo,
  type PaymentContext,
  type PrivStarkCore,
  type ProofReference,
  TREE_CAPACITY,
} from './facade.js';
import {
  decodePublicInputs,
  encodePublicInputs,
  encodeWitness,
  SpendEncodingError,
  type SpendPublicInputs,
  type SpendWitness,
} from './spend.js';
import {
  decodeTransitionPublicInputs,
  encodeTransitionPublicInputs,
  encodeTransitionWitness,
} from './transition.js';

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
  // The same for transition sets.
  let acceptedTransitions: Uint8Array | undefined;
  const transitionParameterSets = () =>
    parameterSetsOf(raw.transitionParameterSets(), acceptedTransitions);
  const idBytes = (ids: readonly number[]) => {
    aarray(ids, 'ids');
    for (const [i, id] of ids.entries()) aint(id, `ids[${i}]`, 0, 255);
    return Uint8Array.from(ids);
  };
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
    async proveTransition(witness, options = {}) {
      const { parameterSet } = options;
      if (parameterSet !== undefined) aint(parameterSet, 'parameterSet', 0, 255);
      let encoded: Uint8Array;
      try {
        encoded = encodeTransitionWitness(witness);
      } catch (error) {
        if (error instanceof SpendEncodingError) throw new CoreError(error.code, error.message);
        throw error;
      }
      const publicInputs = decodeTransitionPublicInputs(guard(raw.transitionPublicInputs, encoded));
      const seed = globalThis.crypto.getRandomValues(new Uint8Array(32));
      const proof = await guardAsync(raw.proveTransitionAsync, encoded, seed, parameterSet);
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
        await raw.verifyTransitionAsync(proof, encoded, acceptedTransitions);
        return { ok: true };
      } catch (error) {
        return { ok: false, code: coreErrorFrom(error).code };
      }
    },
    parameterSets,
    acceptedParameterSets: () => parameterSets().filter((set) => set.accepted),
    acceptParameterSets(ids) {
      accepted = guard(raw.acceptParameterSets, idBytes(ids));
      return parameterSets().filter((set) => set.accepted);
    },
    transitionParameterSets,
    acceptedTransitionParameterSets: () => transitionParameterSets().filter((set) => set.accepted),
    acceptTransitionParameterSets(ids) {
      acceptedTransitions = guard(raw.acceptTransitionParameterSets, idBytes(ids));
      return transitionParameterSets().filter((set) => set.accepted);
    },
    encodeAddress: (owner) => guard(raw.addressEncode, digestBytes(owner, 'owner')),
    decodeAddress(address) {
      astring(address, 'address');
      return digestOfBytes(guard(raw.addressDecode, address));
    },
  };
}
