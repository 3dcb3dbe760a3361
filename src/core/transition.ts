/**
 * @module The transition statement (merge, split, exit) between TypeScript and the proof crate
 * (`crates/proof/src/transition/`): its witness (2232 bytes), its public inputs (248 bytes), and
 * what a wallet derives from the key to find a transition's outputs again (their `rho` and the
 * memo that masks their values).
 */

import { aarray, aint } from './assert.js';
import type { DigestHex } from './digest.js';
import { hexAt, SpendEncodingError, Writer } from './spend.js';
import {
  type CoreHash,
  commitmentOf,
  digestElements,
  type NoteSecrets,
  ownerOf,
  precommitmentOf,
} from './witness.js';

const P = 2n ** 64n - 2n ** 32n + 1n;

/** The least value of a real transition output (`MIN_OUTPUT_VALUE` in the AIR). */
export const MIN_OUTPUT_VALUE = 1000n;
/** Bytes of encoded transition public inputs. */
export const TRANSITION_PUBLIC_INPUTS_BYTES = 248;
/** Bytes of an encoded transition witness. */
export const TRANSITION_WITNESS_BYTES = 2232;

/** One input of a transition: a note of the tree, or a dummy (value "0", random rho). */
export interface TransitionInputWitness {
  readonly value: string;
  readonly rho: DigestHex;
  /** Leaf index (0 for a dummy). */
  readonly index: number;
  /** 32 siblings, leaf level first (zeros for a dummy). */
  readonly path: readonly DigestHex[];
}

/** What the owner knows: the key, two inputs, two output values, the exit amount, the context. */
export interface TransitionWitness {
  readonly sk: DigestHex;
  readonly inputs: readonly [TransitionInputWitness, TransitionInputWitness];
  /** Output values, decimal: each "0" (a dummy) or at least {@link MIN_OUTPUT_VALUE}. */
  readonly outputs: readonly [string, string];
  /** Amount leaving the pool, decimal ("0" for a merge or a split). */
  readonly exit: string;
  readonly ctx: DigestHex;
}

/** What a transition proof shows to everyone. */
export interface TransitionPublicInputs {
  readonly root: DigestHex;
  readonly nullifiers: readonly [DigestHex, DigestHex];
  readonly outputs: readonly [DigestHex, DigestHex];
  /** Decimal. */
  readonly exit: string;
  readonly ctx: DigestHex;
  /** The masked output values: two field elements, decimal. */
  readonly memo: readonly [string, string];
  /**
   * The refund note of an exit: `H_NOTE(exit, H_PRE(owner, H_REFUND_RHO(sk, nf₁)))`, appended for
   * the owner if the exit's payout fails (a note of 0, never appended, for a merge or a split).
   */
  readonly refund: DigestHex;
}

/** A transition proof with its public inputs. */
export interface TransitionProof {
  readonly proof: Uint8Array;
  readonly publicInputs: TransitionPublicInputs;
}

function pair<T>(value: unknown, name: string): readonly [T, T] {
  aarray(value, name);
  if (value.length !== 2)
    throw new SpendEncodingError('invalid_length', `"${name}" expected 2 entries`);
  return value as unknown as readonly [T, T];
}

/** The 2232-byte witness encoding. */
export function encodeTransitionWitness(witness: TransitionWitness): Uint8Array {
  if (typeof witness !== 'object' || witness === null)
    throw new TypeError(`"witness" expected object, got type=${typeof witness}`);
  const w = new Writer(TRANSITION_WITNESS_BYTES);
  w.digest(witness.sk, 'sk');
  for (const [i, input] of pair<TransitionInputWitness>(witness.inputs, 'inputs').entries()) {
    w.decimal(input.value, `inputs[${i}].value`, 'value_out_of_range');
    w.digest(input.rho, `inputs[${i}].rho`);
    aint(input.index, `inputs[${i}].index`, 0, 2 ** 32 - 1);
    w.u64(BigInt(input.index));
    aarray(input.path, `inputs[${i}].path`);
    if (input.path.length !== 32)
      throw new SpendEncodingError('invalid_length', `"inputs[${i}].path" expected 32 siblings`);
    for (const [j, sibling] of input.path.entries()) w.digest(sibling, `inputs[${i}].path[${j}]`);
  }
  for (const [i, value] of pair<string>(witness.outputs, 'outputs').entries())
    w.decimal(value, `outputs[${i}]`, 'value_out_of_range');
  w.decimal(witness.exit, 'exit', 'amount_out_of_range');
  w.digest(witness.ctx, 'ctx');
  return w.bytes;
}

/** The 248-byte public-input encoding. */
export function encodeTransitionPublicInputs(inputs: TransitionPublicInputs): Uint8Array {
  if (typeof inputs !== 'object' || inputs === null)
    throw new TypeError(`"publicInputs" expected object, got type=${typeof inputs}`);
  const w = new Writer(TRANSITION_PUBLIC_INPUTS_BYTES);
  w.digest(inputs.root, 'root');
  for (const [i, nf] of pair<string>(inputs.nullifiers, 'nullifiers').entries())
    w.digest(nf, `nullifiers[${i}]`);
  for (const [i, out] of pair<string>(inputs.outputs, 'outputs').entries())
    w.digest(out, `outputs[${i}]`);
  w.decimal(inputs.exit, 'exit', 'amount_out_of_range');
  w.digest(inputs.ctx, 'ctx');
  for (const [i, element] of pair<string>(inputs.memo, 'memo').entries())
    w.decimal(element, `memo[${i}]`, 'value_out_of_range');
  w.digest(inputs.refund, 'refund');
  return w.bytes;
}

/** Decodes {@link encodeTransitionPublicInputs} (bytes from the core, already checked there). */
export function decodeTransitionPublicInputs(bytes: Uint8Array): TransitionPublicInputs {
  if (bytes.length !== TRANSITION_PUBLIC_INPUTS_BYTES)
    throw new SpendEncodingError(
      'invalid_length',
      `transition public inputs: expected ${TRANSITION_PUBLIC_INPUTS_BYTES} bytes`,
    );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    root: hexAt(bytes, 0),
    nullifiers: [hexAt(bytes, 32), hexAt(bytes, 64)],
    outputs: [hexAt(bytes, 96), hexAt(bytes, 128)],
    exit: view.getBigUint64(160, true).toString(),
    ctx: hexAt(bytes, 168),
    memo: [view.getBigUint64(200, true).toString(), view.getBigUint64(208, true).toString()],
    refund: hexAt(bytes, 216),
  };
}

/** `rho = H_TRANSITION_RHO_j(sk, nf₁)`: output `j`'s randomness, recoverable from the key. */
export function transitionRhoOf(
  core: CoreHash,
  sk: DigestHex,
  firstNullifier: DigestHex,
  output: 0 | 1,
): DigestHex {
  return core.hashElements(output === 0 ? 'TRANSITION_RHO_1' : 'TRANSITION_RHO_2', [
    ...digestElements(sk),
    ...digestElements(firstNullifier),
  ]);
}

function memoPad(core: CoreHash, sk: DigestHex, firstNullifier: DigestHex): bigint[] {
  const pad = core.hashElements('TRANSITION_MEMO', [
    ...digestElements(sk),
    ...digestElements(firstNullifier),
  ]);
  return digestElements(pad).slice(0, 2);
}

/** `rho = H_REFUND_RHO(sk, nf₁)`: the randomness of an exit's refund note. */
export function refundRhoOf(core: CoreHash, sk: DigestHex, firstNullifier: DigestHex): DigestHex {
  return core.hashElements('REFUND_RHO', [
    ...digestElements(sk),
    ...digestElements(firstNullifier),
  ]);
}

/** A transition output the key owns, found again from the public log. */
export interface RecoveredOutput extends NoteSecrets {
  /** Which output (0 or 1). */
  readonly output: 0 | 1;
  readonly commitment: DigestHex;
}

/**
 * The outputs of a published transition that belong to `sk`: each memo entry unmasked with
 * `H_TRANSITION_MEMO(sk, nf₁)` and kept when `H_NOTE(v, H_PRE(owner, rho_j))` is the published
 * output. Dummy outputs (value 0) are returned too; the caller decides what to keep.
 */
export function recoverTransitionOutputs(
  core: CoreHash,
  sk: DigestHex,
  event: {
    readonly nullifiers: readonly [string, string];
    readonly outputs: readonly [string, string];
    readonly memo: readonly [string, string];
  },
): RecoveredOutput[] {
  const first = event.nullifiers[0] as DigestHex;
  const pad = memoPad(core, sk, first);
  const owner = ownerOf(core, sk);
  const found: RecoveredOutput[] = [];
  for (const output of [0, 1] as const) {
    // Unmasked as a field element; only the value the output was made with opens it.
    const value = (((BigInt(event.memo[output]) - (pad[output] ?? 0n)) % P) + P) % P;
    const rho = transitionRhoOf(core, sk, first, output);
    const commitment = commitmentOf(core, value.toString(), precommitmentOf(core, owner, rho));
    if (commitment === event.outputs[output])
      found.push({ sk, value: value.toString(), rho, output, commitment });
  }
  return found;
}
