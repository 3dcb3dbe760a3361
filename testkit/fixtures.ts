/**
 * The fixture factory of the test suites and benches: funds a pool with N notes and returns N
 * valid, distinct payments (each with its own proof), built with the core's witness builder.
 *
 * Everything but the proofs' randomness is deterministic in the seed — keys, notes, the order of
 * the deposits and so the checkpoint root — so proofs made once stay valid for every fresh pool
 * funded by {@link fundPool}, and are cached on disk (`node_modules/.cache/priv-stark/fixtures`, or
 * `PRIV_STARK_FIXTURE_CACHE`). A cache whose first proof no longer verifies (a new proof format)
 * is rebuilt.
 */

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  type DerivedNote,
  deriveNote,
  depositRhoOf,
  type DigestHex,
  elementsDigest,
  ownerOf,
  type PaymentContext,
  type PrivStarkCore,
  type SpendPublicInputs,
  spendWitness,
} from '../src/core/index.js';
import type { Checkpoint, Ledger, SettlementInput } from '../src/ledger/index.js';
import { DEVNET_NETWORK, SCHEME } from '../src/scheme/index.js';

/** What a fixture set is made of. */
export interface FixtureSpec {
  /** Any text; the same seed gives the same notes and tree. */
  readonly seed: string;
  /** Notes funded. */
  readonly notes: number;
  /** Payments per note (each with its own proof; distinct resource ids, one nullifier per note). */
  readonly variants?: number;
  /** Value of each note (default 1000000). */
  readonly value?: string;
  /** Amount of each payment (default 10000). */
  readonly amount?: string;
  /** Expiry of each payment, unix seconds (default 2100-01-01). */
  readonly expiry?: number;
}

/** One valid payment: a settlement input plus what made it. */
export interface PaymentFixture extends SettlementInput {
  /** The proof (fixtures carry it inline). */
  readonly proof: Uint8Array;
  /** The note spent (secret; tests only). */
  readonly note: DerivedNote;
  /** Its leaf index. */
  readonly index: number;
  /** Which variant of the note's payments. */
  readonly variant: number;
}

/** A fixture set. */
export interface Fixtures {
  readonly spec: Required<FixtureSpec>;
  /** The funded notes, in deposit order (leaf index = position). */
  readonly notes: DerivedNote[];
  /** The recipient's spending key (so a test can spend what it received). */
  readonly recipientSk: DigestHex;
  /** The recipient of every payment (its shielded address is each payment's `payTo`). */
  readonly recipientOwner: DigestHex;
  /** The root of the funded tree, which {@link fundPool} publishes as a checkpoint. */
  readonly root: DigestHex;
  /** `notes × variants` payments, note-major. */
  readonly payments: PaymentFixture[];
}

const P = 2n ** 64n - 2n ** 32n + 1n;
const DEFAULT_EXPIRY = 4_102_444_800; // 2100-01-01T00:00:00Z, a multiple of 60

function fullSpec(spec: FixtureSpec): Required<FixtureSpec> {
  return { variants: 1, value: '1000000', amount: '10000', expiry: DEFAULT_EXPIRY, ...spec };
}

/** A deterministic digest of `label` (four SHA-256 words reduced below p). */
function seededDigest(label: string): DigestHex {
  const bytes = createHash('sha256').update(label).digest();
  return elementsDigest([0, 1, 2, 3].map((i) => bytes.readBigUInt64LE(i * 8) % P));
}

/** The notes and recipient of a spec, without proofs. */
export function fixtureNotes(
  core: PrivStarkCore,
  spec: FixtureSpec,
): Pick<Fixtures, 'notes' | 'recipientSk' | 'recipientOwner' | 'root'> {
  const s = fullSpec(spec);
  const notes = Array.from({ length: s.notes }, (_, i) => {
    const sk = seededDigest(`${s.seed}/note/${i}`);
    return deriveNote(core, { sk, value: s.value, rho: depositRhoOf(core, sk, 0) });
  });
  const recipientSk = seededDigest(`${s.seed}/recipient`);
  return {
    notes,
    recipientSk,
    recipientOwner: ownerOf(core, recipientSk),
    root: core.treeRoot(notes.map((n) => n.commitment)),
  };
}

/** The payment context of variant `v`. */
export function fixturePayment(
  core: PrivStarkCore,
  spec: FixtureSpec,
  recipientOwner: DigestHex,
  variant: number,
): PaymentContext {
  const s = fullSpec(spec);
  return {
    scheme: SCHEME,
    network: DEVNET_NETWORK.network,
    asset: DEVNET_NETWORK.asset,
    payTo: core.encodeAddress(recipientOwner),
    amount: s.amount,
    resourceId: `GET /fixture/${variant}`,
    expiry: s.expiry,
  };
}

/**
 * Deposits every note of the set into `pool` in order, in one group, and publishes the checkpoint.
 * The pool must be empty: then the checkpoint root is {@link Fixtures.root}.
 */
export async function fundPool(
  pool: Ledger,
  fixtures: Pick<Fixtures, 'notes' | 'root'>,
): Promise<Checkpoint> {
  const results = await Promise.all(
    fixtures.notes.map((note) => pool.deposit({ amount: note.value, pre: note.precommitment })),
  );
  results.forEach((result, i) => {
    if (!result.ok || result.index !== i)
      throw new Error(`fixture deposit ${i} was not appended at ${i}: ${JSON.stringify(result)}`);
  });
  const checkpoint = await pool.checkpoint();
  if (!checkpoint || checkpoint.root !== fixtures.root)
    throw new Error('the funded pool was not empty: its checkpoint is not the fixtures root');
  return checkpoint;
}

/** The cache directory of proofs. */
export function fixtureCacheDir(): string {
  return (
    process.env.PRIV_STARK_FIXTURE_CACHE ??
    join(process.cwd(), 'node_modules', '.cache', 'priv-stark', 'fixtures')
  );
}

interface CachedPayment {
  index: number;
  variant: number;
  offset: number;
  length: number;
  publicInputs: SpendPublicInputs;
}

function cacheKey(core: PrivStarkCore, spec: Required<FixtureSpec>): string {
  // The prover's parameter set too: proofs of an older set still verify (the verifier accepts it
  // for a while) and would otherwise be served as current ones.
  const proverSet = core.parameterSets().find((set) => set.prover)?.id;
  return createHash('sha256')
    .update(JSON.stringify({ spec, core: core.version, proverSet, v: 1 }))
    .digest('hex')
    .slice(0, 24);
}

/** The cache files of a spec (for child processes: pass the path, call {@link readFixtures}). */
export function fixturePaths(
  core: PrivStarkCore,
  spec: FixtureSpec,
): { json: string; bin: string } {
  const key = cacheKey(core, fullSpec(spec));
  const dir = fixtureCacheDir();
  return { json: join(dir, `${key}.json`), bin: join(dir, `${key}.bin`) };
}

/** Reads a cached set, or `null` when absent or incomplete. */
export function readFixtures(core: PrivStarkCore, spec: FixtureSpec): Fixtures | null {
  const s = fullSpec(spec);
  const paths = fixturePaths(core, s);
  if (!existsSync(paths.json) || !existsSync(paths.bin)) return null;
  const cached = JSON.parse(readFileSync(paths.json, 'utf8')) as { payments: CachedPayment[] };
  const bin = readFileSync(paths.bin);
  const base = fixtureNotes(core, s);
  if (cached.payments.length !== s.notes * s.variants) return null;
  const payments = cached.payments.map((c) => ({
    note: base.notes[c.index] as DerivedNote,
    index: c.index,
    variant: c.variant,
    payment: fixturePayment(core, s, base.recipientOwner, c.variant),
    proof: new Uint8Array(bin.subarray(c.offset, c.offset + c.length)),
    publicInputs: c.publicInputs,
  }));
  return { spec: s, ...base, payments };
}

function writeFixtures(core: PrivStarkCore, fixtures: Fixtures): void {
  const paths = fixturePaths(core, fixtures.spec);
  mkdirSync(fixtureCacheDir(), { recursive: true });
  let offset = 0;
  const payments: CachedPayment[] = fixtures.payments.map((p) => {
    const entry = {
      index: p.index,
      variant: p.variant,
      offset,
      length: p.proof.length,
      publicInputs: p.publicInputs,
    };
    offset += p.proof.length;
    return entry;
  });
  const suffix = `.${process.pid}.tmp`;
  writeFileSync(paths.bin + suffix, Buffer.concat(fixtures.payments.map((p) => p.proof)));
  writeFileSync(paths.json + suffix, JSON.stringify({ spec: fixtures.spec, payments }));
  renameSync(paths.bin + suffix, paths.bin);
  renameSync(paths.json + suffix, paths.json);
}

/**
 * The fixture set of `spec`: from the cache when it is there and still verifies, otherwise proved
 * now (about a quarter of a second per proof) and cached.
 * @param onProgress called after each proof when proving
 */
export async function fixtures(
  core: PrivStarkCore,
  spec: FixtureSpec,
  onProgress?: (done: number, total: number) => void,
): Promise<Fixtures> {
  const cached = readFixtures(core, spec);
  if (cached) {
    const first = cached.payments[0];
    if (!first || (await core.verifySpend(first.proof, first.publicInputs)).ok) return cached;
  }
  const s = fullSpec(spec);
  const base = fixtureNotes(core, s);
  const leaves = base.notes.map((n) => n.commitment);
  const jobs: { index: number; variant: number }[] = [];
  for (let index = 0; index < s.notes; index++)
    for (let variant = 0; variant < s.variants; variant++) jobs.push({ index, variant });
  const payments: PaymentFixture[] = new Array(jobs.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let j = next++; j < jobs.length; j = next++) {
      const { index, variant } = jobs[j]!;
      const note = base.notes[index]!;
      const payment = fixturePayment(core, s, base.recipientOwner, variant);
      const witness = await spendWitness(core, {
        note,
        leaves,
        index,
        amount: s.amount,
        ctx: core.contextDigest(payment),
      });
      const { proof, publicInputs } = await core.proveSpend(witness);
      payments[j] = { note, index, variant, payment, proof, publicInputs };
      onProgress?.(++done, jobs.length);
    }
  };
  await Promise.all([worker(), worker()]);
  const out: Fixtures = { spec: s, ...base, payments };
  writeFixtures(core, out);
  return out;
}
