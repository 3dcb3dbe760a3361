// Transition proofs (merge, split, exit: issue 17, part 3), native and WebAssembly interleaved in
// one run, with the spend proof beside them for the trade-off table (docs/proof.md §9):
//
// * size: every transition proof made (merges, splits and exits in turn);
// * prove: medians per backend (in thread through the raw binding, one core);
// * verify: rounds of VERIFY_PER_ROUND verifications per backend, transition and spend alike, so
//   load on the machine falls on all of them; medians over VERIFY_ROUNDS rounds. The proofs made
//   are of the prover's set (17); the golden set-16 proof (test/fixtures/transition/) is verified
//   in the same rounds, so the two AIR revisions are compared side by side;
// * the load average before and after, since the machine is shared.
//
// Run: npm run bench:transition → bench/results/transition.{json,md}.

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

import type { Backend, RawBinding } from '../src/core/binding.js';
import { loadBackend } from '../src/core/load.js';
import { loadNative } from '../src/core/native.js';
import { encodePublicInputs, encodeWitness } from '../src/core/spend.js';
import { encodeTransitionWitness, type TransitionWitness } from '../src/core/transition.js';
import { loadWasm } from '../src/core/wasm.js';
import { deriveNote, randomDigest, randomNote, spendWitness } from '../src/core/witness.js';
import { environment, writeResults } from './report.js';

const PROOFS = Number(process.env.BENCH_PROOFS ?? 6);
const VERIFY_ROUNDS = Number(process.env.BENCH_VERIFY_ROUNDS ?? 20);
const VERIFY_PER_ROUND = 10;
const BACKENDS: readonly Backend[] = ['native', 'wasm'];

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Median and p99 of samples in ms. */
function stat(samples: number[]): { medianMs: number; p99Ms: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? Number.NaN;
  return { medianMs: median(samples), p99Ms: p99 };
}

const loadBefore = loadavg();
const raw: Record<Backend, RawBinding> = { native: loadNative(), wasm: await loadWasm() };
const core = await loadBackend('native');
const ZERO = `0x${'0'.repeat(64)}` as const;

/** A merge, a split or an exit of a fresh key's notes among a few random leaves. */
async function witness(kind: 'merge' | 'split' | 'exit'): Promise<TransitionWitness> {
  const sk = randomDigest();
  const a = deriveNote(core, { sk, value: '300000', rho: randomDigest() });
  const b = deriveNote(core, { sk, value: '200000', rho: randomDigest() });
  const leaves = [randomDigest(), a.commitment, b.commitment, randomDigest()];
  const input = async (note: typeof a, index: number) => ({
    value: note.value,
    rho: note.rho,
    index,
    path: await core.treePathAsync(leaves, index),
  });
  const dummy = { value: '0', rho: randomDigest(), index: 0, path: Array(32).fill(ZERO) };
  const ctx = randomDigest();
  if (kind === 'merge')
    return {
      sk,
      inputs: [await input(a, 1), await input(b, 2)],
      outputs: ['500000', '0'],
      exit: '0',
      ctx,
    };
  if (kind === 'split')
    return {
      sk,
      inputs: [await input(a, 1), dummy],
      outputs: ['120000', '180000'],
      exit: '0',
      ctx,
    };
  return { sk, inputs: [await input(a, 1), dummy], outputs: ['250000', '0'], exit: '50000', ctx };
}

/** Byte 5 of a proof's header: its parameter set. */
const SET_BYTE = 5;
const FIXTURES = new URL('../test/fixtures/transition/', import.meta.url);
const set16 = {
  proof: new Uint8Array(readFileSync(new URL('proof.bin', FIXTURES))),
  inputs: new Uint8Array(readFileSync(new URL('public.bin', FIXTURES))),
};

const kinds = ['merge', 'split', 'exit'] as const;
const proveMs: Record<Backend, number[]> = { native: [], wasm: [] };
const sizes: number[] = [];
const proofs: { proof: Uint8Array; inputs: Uint8Array }[] = [];
for (let i = 0; i < PROOFS; i++) {
  const w = await witness(kinds[i % kinds.length]!);
  const encoded = encodeTransitionWitness(w);
  const inputs = raw.native.transitionPublicInputs(encoded);
  for (const backend of BACKENDS) {
    const seed = globalThis.crypto.getRandomValues(new Uint8Array(32));
    const t = performance.now();
    const proof = raw[backend].proveTransition(encoded, seed);
    proveMs[backend].push(performance.now() - t);
    sizes.push(proof.length);
    proofs.push({ proof, inputs });
  }
  process.stderr.write(`[bench:transition] proof ${i + 1}/${PROOFS}\n`);
}

// A spend proof beside, verified in the same rounds.
const note = randomNote(core, '1000000');
const spendLeaves = [note.commitment, randomDigest()];
const spend = await spendWitness(core, {
  note,
  leaves: spendLeaves,
  index: 0,
  amount: '1000',
  ctx: randomDigest(),
});
const spendEncoded = encodeWitness(spend);
const spendProof = raw.native.proveSpend(
  spendEncoded,
  globalThis.crypto.getRandomValues(new Uint8Array(32)),
);
const spendInputs = encodePublicInputs(core.spendPublicInputs(spend));

const provedSet = proofs[0]!.proof[SET_BYTE]!;
const verifyMs: Record<string, number[]> = {
  'transition native': [],
  'transition wasm': [],
  'set 16 native': [],
  'set 16 wasm': [],
  'spend native': [],
  'spend wasm': [],
};
for (let round = 0; round < VERIFY_ROUNDS; round++) {
  for (const backend of BACKENDS) {
    let t = performance.now();
    for (let k = 0; k < VERIFY_PER_ROUND; k++) {
      const { proof, inputs } = proofs[(round * VERIFY_PER_ROUND + k) % proofs.length]!;
      raw[backend].verifyTransition(proof, inputs);
    }
    verifyMs[`transition ${backend}`]!.push((performance.now() - t) / VERIFY_PER_ROUND);
    t = performance.now();
    for (let k = 0; k < VERIFY_PER_ROUND; k++)
      raw[backend].verifyTransition(set16.proof, set16.inputs);
    verifyMs[`set 16 ${backend}`]!.push((performance.now() - t) / VERIFY_PER_ROUND);
    t = performance.now();
    for (let k = 0; k < VERIFY_PER_ROUND; k++) raw[backend].verifySpend(spendProof, spendInputs);
    verifyMs[`spend ${backend}`]!.push((performance.now() - t) / VERIFY_PER_ROUND);
  }
}
const loadAfter = loadavg();

const sets = core.parameterSets();
const env = environment();
const results = {
  environment: { ...env, loadBefore, loadAfter },
  proofs: PROOFS,
  transitionParameterSet: provedSet,
  bytes: {
    mean: Math.round(sizes.reduce((s, x) => s + x, 0) / sizes.length),
    worst: Math.max(...sizes),
    spend: spendProof.length,
  },
  prove: { native: stat(proveMs.native), wasm: stat(proveMs.wasm) },
  verify: {
    transition: {
      native: stat(verifyMs['transition native']!),
      wasm: stat(verifyMs['transition wasm']!),
    },
    transitionSet16Golden: {
      bytes: set16.proof.length,
      native: stat(verifyMs['set 16 native']!),
      wasm: stat(verifyMs['set 16 wasm']!),
    },
    spend: { native: stat(verifyMs['spend native']!), wasm: stat(verifyMs['spend wasm']!) },
  },
  spendParameterSets: sets.map((s) => ({ id: s.id, provenBits: s.provenListDecodingBits })),
};
const f = (ms: number) => ms.toFixed(ms < 10 ? 2 : 0);
const markdown = [
  '# Transition proofs (merge, split, exit) beside spend proofs',
  '',
  `${env.date}, ${env.cpu}, ${env.cores} cores, Node ${env.node}; load ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after.`,
  '',
  `| | transition, set ${provedSet} (2 in, 2 out, 1024 rows × ${provedSet === 17 ? 60 : 58} columns) | transition, set 16 (golden proof, 58 columns) | spend (1 in, 512 rows × 46 columns) |`,
  '|---|---:|---:|---:|',
  `| proof bytes (mean / worst of ${sizes.length}) | ${results.bytes.mean} / ${results.bytes.worst} | ${set16.proof.length} | ${results.bytes.spend} |`,
  `| prove, native (median, one core) | ${f(results.prove.native.medianMs)} ms | — | — |`,
  `| prove, WebAssembly | ${f(results.prove.wasm.medianMs)} ms | — | — |`,
  `| verify, native (median) | ${f(results.verify.transition.native.medianMs)} ms | ${f(results.verify.transitionSet16Golden.native.medianMs)} ms | ${f(results.verify.spend.native.medianMs)} ms |`,
  `| verify, WebAssembly | ${f(results.verify.transition.wasm.medianMs)} ms | ${f(results.verify.transitionSet16Golden.wasm.medianMs)} ms | ${f(results.verify.spend.wasm.medianMs)} ms |`,
  '',
  `Transition parameter sets ${provedSet} (proved) and 16 (verified): blowup 32, 33 queries, 18 bits of query`,
  'grinding (set 3’s numbers on the 1024-row trace): 128 conjectured bits, 100 proven (list decoding), 49',
  '(unique decoding) each, as Plonky3’s estimator computes them for each set’s AIR',
  '(crates/proof/tests/transition.rs pins them).',
].join('\n');
await writeResults('transition', results, markdown);
process.stdout.write(`${markdown}\n`);
