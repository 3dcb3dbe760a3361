/**
 * @module Notes and spend witnesses from keys, values and a list of leaves: what tests, benches,
 * the pool's fixture factory and wallets use to build valid spends. Hashing goes through the
 * core (either backend); randomness comes from the platform's CSPRNG.
 */

import type { DigestHex } from './digest.js';
import type { Domain } from './domains.js';
import type { SpendWitness } from './spend.js';

/**
 * The one core function the derivations below use: its hash (a `PrivStarkCore` is one). Declared
 * here, not taken from the facade: the facade's types name the transition statement's, and the
 * transition module derives with these builders, so the facade's type would close a circle.
 */
export interface CoreHash {
  hashElements(domain: Domain, elements: readonly bigint[]): DigestHex;
}

/** The one core function {@link spendWitness} uses: a leaf's authentication path. */
export interface CorePaths {
  treePathAsync(leaves: readonly string[], index: number): Promise<DigestHex[]>;
}

const P = 2n ** 64n - 2n ** 32n + 1n;

/** `count` uniformly random field elements (rejection sampling, so no bias). */
export function randomElements(count: number): bigint[] {
  const out: bigint[] = [];
  const words = new BigUint64Array(count + 4);
  while (out.length < count) {
    globalThis.crypto.getRandomValues(words);
    for (const word of words) if (word < P && out.length < count) out.push(word);
  }
  return out;
}

/** The four elements of a digest. */
export function digestElements(digest: string): bigint[] {
  if (!/^0x[0-9a-f]{64}$/.test(digest))
    throw new RangeError(`"digest" expected 0x followed by 64 lowercase hex digits`);
  return [0, 1, 2, 3].map((i) => {
    let word = 0n;
    for (let b = 7; b >= 0; b--)
      word =
        (word << 8n) |
        BigInt(Number.parseInt(digest.slice(2 + 16 * i + 2 * b, 4 + 16 * i + 2 * b), 16));
    return word;
  });
}

/** The digest of four canonical elements. */
export function elementsDigest(elements: readonly bigint[]): DigestHex {
  if (elements.length !== 4)
    throw new RangeError(`"elements" expected 4 elements, got ${elements.length}`);
  let out = '0x';
  for (const element of elements) {
    for (let b = 0; b < 8; b++)
      out += Number((element >> BigInt(8 * b)) & 0xffn)
        .toString(16)
        .padStart(2, '0');
  }
  return out as DigestHex;
}

/** A fresh random digest (a spending key, a `rho`). */
export function randomDigest(): DigestHex {
  return elementsDigest(randomElements(4));
}

/** The secrets of one note. */
export interface NoteSecrets {
  readonly sk: DigestHex;
  /** Decimal string of atomic units, below 2^62. */
  readonly value: string;
  readonly rho: DigestHex;
}

/** Everything derived from a note's secrets. */
export interface DerivedNote extends NoteSecrets {
  readonly owner: DigestHex;
  readonly precommitment: DigestHex;
  readonly commitment: DigestHex;
  readonly nullifier: DigestHex;
}

/** `owner = H_OWNER(sk)`. */
export function ownerOf(core: CoreHash, sk: DigestHex): DigestHex {
  return core.hashElements('OWNER', digestElements(sk));
}

/** `pre = H_PRE(owner, rho)`: what a depositor sends with the amount. */
export function precommitmentOf(core: CoreHash, owner: DigestHex, rho: DigestHex): DigestHex {
  return core.hashElements('PRE', [...digestElements(owner), ...digestElements(rho)]);
}

/** `cm = H_NOTE(value, pre)`. */
export function commitmentOf(core: CoreHash, value: string, precommitment: DigestHex): DigestHex {
  return core.hashElements('NOTE', [BigInt(value), ...digestElements(precommitment)]);
}

/** `rho = H_DEPOSIT_RHO(sk, counter)`: a wallet's n-th deposit, recoverable from the key. */
export function depositRhoOf(core: CoreHash, sk: DigestHex, counter: number): DigestHex {
  return core.hashElements('DEPOSIT_RHO', [...digestElements(sk), BigInt(counter)]);
}

/** `rho = H_RECIPIENT_RHO(nf)`: the randomness of the recipient note a settlement creates. */
export function recipientRhoOf(core: CoreHash, nullifier: DigestHex): DigestHex {
  return core.hashElements('RECIPIENT_RHO', digestElements(nullifier));
}

/** `rho' = H_CHANGE_RHO(sk, nf)`: the randomness of a spend's change note. */
export function changeRhoOf(core: CoreHash, sk: DigestHex, nullifier: DigestHex): DigestHex {
  return core.hashElements('CHANGE_RHO', [...digestElements(sk), ...digestElements(nullifier)]);
}

/** Derives owner, precommitment, commitment and nullifier of a note. */
export function deriveNote(core: CoreHash, note: NoteSecrets): DerivedNote {
  const owner = ownerOf(core, note.sk);
  const precommitment = precommitmentOf(core, owner, note.rho);
  const commitment = commitmentOf(core, note.value, precommitment);
  const nullifier = core.hashElements('NULLIFIER', [
    ...digestElements(note.sk),
    ...digestElements(commitment),
  ]);
  return { ...note, owner, precommitment, commitment, nullifier };
}

/** A new note with a random key and `rho`. */
export function randomNote(core: CoreHash, value: string): DerivedNote {
  return deriveNote(core, { sk: randomDigest(), value, rho: randomDigest() });
}

/**
 * The witness for spending `note`, which sits at `index` of the tree of `leaves`, to pay
 * `amount` in the payment whose context digest is `ctx`.
 */
export async function spendWitness(
  core: CorePaths,
  args: {
    note: NoteSecrets;
    leaves: readonly string[];
    index: number;
    amount: string;
    ctx: DigestHex;
  },
): Promise<SpendWitness> {
  const path = await core.treePathAsync(args.leaves, args.index);
  return {
    sk: args.note.sk,
    value: args.note.value,
    rho: args.note.rho,
    index: args.index,
    path,
    amount: args.amount,
    ctx: args.ctx,
  };
}
