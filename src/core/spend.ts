/**
 * @module Encodings of the spend statement between TypeScript and the proof crate
 * (`crates/proof/src/encoding.rs`): the witness (1144 bytes) and the public inputs (136 bytes).
 */

import { aarray, aint, astring } from './assert.js';
import { type DigestHex, DIGEST_FORMAT } from './digest.js';

/** What the payer knows: the note it spends, where it sits, and the payment. */
export interface SpendWitness {
  /** Spending key: 4 field elements. */
  readonly sk: DigestHex;
  /** The note's value, a decimal string of atomic units below 2^62. */
  readonly value: string;
  /** The note's randomness. */
  readonly rho: DigestHex;
  /** The note's leaf index in the pool tree. */
  readonly index: number;
  /** Its authentication path: 32 siblings, leaf level first. */
  readonly path: readonly DigestHex[];
  /** The amount paid, a decimal string, `0 < amount <= value`. */
  readonly amount: string;
  /** The payment's context digest (`contextDigest`). */
  readonly ctx: DigestHex;
}

/** What a proof shows to everyone: the statement's public inputs in wire encoding. */
export interface SpendPublicInputs {
  /** The checkpoint root the proof is anchored to. */
  readonly root: DigestHex;
  /** The spent note's nullifier. */
  readonly nullifier: DigestHex;
  /** The change note's commitment. */
  readonly change: DigestHex;
  /** Amount paid, decimal string. */
  readonly amount: string;
  /** Context digest of the payment. */
  readonly ctx: DigestHex;
}

/** A proof with the public inputs it was made for. */
export interface SpendProof {
  readonly proof: Uint8Array;
  readonly publicInputs: SpendPublicInputs;
}

/** Outcome of a verification: a verdict, never an exception for hostile data. */
export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly code: string };

const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

/** A format problem in caller data, reported with a stable code. */
export class SpendEncodingError extends Error {
  readonly code: 'invalid_hex' | 'amount_out_of_range' | 'value_out_of_range' | 'invalid_length';
  constructor(code: SpendEncodingError['code'], message: string) {
    super(message);
    this.name = 'SpendEncodingError';
    this.code = code;
  }
}

export class Writer {
  readonly bytes: Uint8Array;
  readonly #view: DataView;
  #offset = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.#view = new DataView(this.bytes.buffer);
  }

  digest(value: unknown, name: string): void {
    astring(value, name);
    if (!DIGEST_FORMAT.test(value))
      throw new SpendEncodingError('invalid_hex', `"${name}" is not 0x + 64 lowercase hex digits`);
    for (let i = 0; i < 32; i++)
      this.bytes[this.#offset + i] = Number.parseInt(value.slice(2 + 2 * i, 4 + 2 * i), 16);
    this.#offset += 32;
  }

  decimal(value: unknown, name: string, code: 'amount_out_of_range' | 'value_out_of_range'): void {
    astring(value, name);
    if (!DECIMAL.test(value) || BigInt(value) >= 1n << 64n) {
      throw new SpendEncodingError(code, `"${name}" is not a decimal string below 2^64`);
    }
    this.u64(BigInt(value));
  }

  u64(value: bigint): void {
    this.#view.setBigUint64(this.#offset, value, true);
    this.#offset += 8;
  }
}

export function hexAt(bytes: Uint8Array, offset: number): DigestHex {
  let out = '0x';
  for (let i = offset; i < offset + 32; i++) out += (bytes[i] ?? 0).toString(16).padStart(2, '0');
  return out as DigestHex;
}

/** Bytes of encoded public inputs. */
export const PUBLIC_INPUTS_BYTES = 136;
/** Bytes of an encoded witness. */
export const WITNESS_BYTES = 1144;

/** The 1144-byte witness encoding. */
export function encodeWitness(witness: SpendWitness): Uint8Array {
  if (typeof witness !== 'object' || witness === null)
    throw new TypeError(`"witness" expected object, got type=${typeof witness}`);
  const w = new Writer(WITNESS_BYTES);
  w.digest(witness.sk, 'sk');
  w.decimal(witness.value, 'value', 'value_out_of_range');
  w.digest(witness.rho, 'rho');
  aint(witness.index, 'index', 0, 2 ** 32 - 1);
  w.u64(BigInt(witness.index));
  aarray(witness.path, 'path');
  if (witness.path.length !== 32)
    throw new SpendEncodingError(
      'invalid_length',
      `"path" expected 32 siblings, got ${witness.path.length}`,
    );
  for (const [i, sibling] of witness.path.entries()) w.digest(sibling, `path[${i}]`);
  w.decimal(witness.amount, 'amount', 'amount_out_of_range');
  w.digest(witness.ctx, 'ctx');
  return w.bytes;
}

/** The 136-byte public-input encoding. */
export function encodePublicInputs(inputs: SpendPublicInputs): Uint8Array {
  if (typeof inputs !== 'object' || inputs === null)
    throw new TypeError(`"publicInputs" expected object, got type=${typeof inputs}`);
  const w = new Writer(PUBLIC_INPUTS_BYTES);
  w.digest(inputs.root, 'root');
  w.digest(inputs.nullifier, 'nullifier');
  w.digest(inputs.change, 'change');
  w.decimal(inputs.amount, 'amount', 'amount_out_of_range');
  w.digest(inputs.ctx, 'ctx');
  return w.bytes;
}

/** Decodes {@link encodePublicInputs} (bytes from the core, already checked there). */
export function decodePublicInputs(bytes: Uint8Array): SpendPublicInputs {
  if (bytes.length !== PUBLIC_INPUTS_BYTES)
    throw new SpendEncodingError(
      'invalid_length',
      `public inputs: expected ${PUBLIC_INPUTS_BYTES} bytes, got ${bytes.length}`,
    );
  const amount = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(
    96,
    true,
  );
  return {
    root: hexAt(bytes, 0),
    nullifier: hexAt(bytes, 32),
    change: hexAt(bytes, 64),
    amount: amount.toString(),
    ctx: hexAt(bytes, 104),
  };
}
