// Spend proofs: prove and verify medians for the native addon and WebAssembly, the proof size, and
// — in the same run — the Groth16 baseline (0xbow privacy-pools commitment circuit, from
// ../shared/baselines/) verified with snarkjs 0.7.6 as a Groth16 pool's relayer would.
//
// Run: npm run bench:proof  → bench/results/proof.json and proof.md, and a table on stdout.

import { readFileSync } from 'node:fs';

import { Bench } from 'tinybench';

import type { Backend, RawBinding } from '../src/core/binding.js';
import { loadBackend } from '../src/core/load.js';
import { loadNative } from '../src/core/native.js';
import { encodePublicInputs, encodeWitness } from '../src/core/spend.js';
import { loadWasm } from '../src/core/wasm.js';
import { randomDigest, randomNote, spendWitness } from '../src/core/witness.js';
import { environment, writeResults } from './report.js';

const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 3000);
const baselineDir = new URL(
  process.env.PRIV_STARK_BASELINES ?? '../../shared/baselines/groth16-privacy-pools-commitment/',
  import.meta.url,
);

interface Stat {
  medianMs: number;
  p99Ms: number;
  samples: number;
}

function stat(task: Bench['tasks'][number]): Stat {
  const result = task.result;
  if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
  return {
    medianMs: result.latency.p50,
    p99Ms: result.latency.p99,
    samples: result.latency.samplesCount,
  };
}

const native = await loadBackend('native');
const note = randomNote(native, '1000000');
const leaves = Array.from({ length: 64 }, (_, i) => (i === 37 ? note.commitment : randomDigest()));
const ctx = native.contextDigest({
  scheme: 'priv-stark/v1',
  network: 'shielded:devnet',
  asset: 'dUSD',
  payTo: native.encodeAddress(randomDigest()),
  amount: '10000',
  resourceId: 'GET /weather',
  expiry: 1_800_000_000,
});
const witness = await spendWitness(native, { note, leaves, index: 37, amount: '10000', ctx });
const { proof, publicInputs } = await native.proveSpend(witness);
const encodedWitness = encodeWitness(witness);
const encodedInputs = encodePublicInputs(publicInputs);

async function measure(backend: Backend) {
  const raw: RawBinding = backend === 'native' ? loadNative() : await loadWasm();
  const core = await loadBackend(backend);
  const seed = () => globalThis.crypto.getRandomValues(new Uint8Array(32));
  const sizes: number[] = [];
  const verifyBench = new Bench({ time: TIME_MS, warmupTime: 300 });
  verifyBench
    .add('verify (in thread)', () => {
      raw.verifySpend(proof, encodedInputs);
    })
    .add('verify (facade, off thread)', async () => {
      const verdict = await core.verifySpend(proof, publicInputs);
      if (!verdict.ok) throw new Error(verdict.code);
    });
  await verifyBench.run();
  const proveBench = new Bench({
    time: TIME_MS,
    iterations: backend === 'native' ? 10 : 4,
    warmupIterations: 1,
    warmupTime: 0,
  });
  proveBench
    .add('prove (in thread)', () => {
      sizes.push(raw.proveSpend(encodedWitness, seed()).length);
    })
    .add('prove (facade, off thread)', async () => {
      await core.proveSpend(witness);
    });
  await proveBench.run();
  const [verifyIn, verifyOff] = verifyBench.tasks.map(stat);
  const [proveIn, proveOff] = proveBench.tasks.map(stat);
  return {
    verifyIn: verifyIn!,
    verifyOff: verifyOff!,
    proveIn: proveIn!,
    proveOff: proveOff!,
    proofBytes: Math.max(...sizes),
  };
}

async function groth16() {
  // snarkjs ships no type declarations.
  const snarkjs = (await import('snarkjs' as string)) as {
    groth16: { verify(vk: unknown, signals: unknown, proof: unknown): Promise<boolean> };
  };
  const read = (name: string): unknown =>
    JSON.parse(readFileSync(new URL(name, baselineDir), 'utf8'));
  const [vk, signals, groth] = [
    read('verification_key.json'),
    read('public.json'),
    read('proof.json'),
  ];
  const started = performance.now();
  if (!(await snarkjs.groth16.verify(vk, signals, groth)))
    throw new Error('baseline proof did not verify');
  const coldMs = performance.now() - started;
  const tampered = (signals as string[]).map((s, i) => (i === 2 ? `${BigInt(s) + 1n}` : s));
  if (await snarkjs.groth16.verify(vk, tampered, groth))
    throw new Error('tampered baseline verified');
  const bench = new Bench({ time: TIME_MS, warmupIterations: 2 });
  bench.add('groth16 verify (snarkjs, warm)', async () => {
    await snarkjs.groth16.verify(vk, signals, groth);
  });
  await bench.run();
  return { coldMs, warm: stat(bench.tasks[0]!), proofBytes: 256 };
}

const results = {
  native: await measure('native'),
  wasm: await measure('wasm'),
  groth16: await groth16(),
};
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3));
const speedup = results.groth16.warm.medianMs / results.native.verifyIn.medianMs;
const budgets = {
  'verify native ≤ 1 ms': results.native.verifyIn.medianMs <= 1,
  'verify wasm ≤ 3 ms': results.wasm.verifyIn.medianMs <= 3,
  'verify ≥ 25× faster than Groth16 (same run)': speedup >= 25,
  'prove native ≤ 300 ms': results.native.proveIn.medianMs <= 300,
  'prove wasm ≤ 1.5 s': results.wasm.proveIn.medianMs <= 1500,
  'proof ≤ 64 KB': results.native.proofBytes <= 64_000,
};
const table = [
  '## Spend proof: native vs WebAssembly vs the Groth16 baseline (medians, ms)',
  '',
  '| operation | native | wasm | groth16 (snarkjs) |',
  '|---|---:|---:|---:|',
  `| verify, in thread | ${ms(results.native.verifyIn.medianMs)} | ${ms(results.wasm.verifyIn.medianMs)} | ${ms(results.groth16.warm.medianMs)} (warm; cold ${ms(results.groth16.coldMs)}) |`,
  `| verify, facade (off the JS thread) | ${ms(results.native.verifyOff.medianMs)} | ${ms(results.wasm.verifyOff.medianMs)} | |`,
  `| prove, in thread | ${ms(results.native.proveIn.medianMs)} | ${ms(results.wasm.proveIn.medianMs)} | |`,
  `| prove, facade (off the JS thread) | ${ms(results.native.proveOff.medianMs)} | ${ms(results.wasm.proveOff.medianMs)} | |`,
  `| proof bytes | ${results.native.proofBytes} | ${results.wasm.proofBytes} | ${results.groth16.proofBytes} |`,
  '',
  `STARK verify (native) is ${speedup.toFixed(1)}× faster than the warm Groth16 verify in this run.`,
  '',
  ...Object.entries(budgets).map(([name, met]) => `- ${met ? 'met' : 'MISSED'}: ${name}`),
].join('\n');
await writeResults(
  'proof',
  { bench: 'proof', environment: environment(), timePerTaskMs: TIME_MS, results, budgets },
  table,
);
process.stdout.write(`${table}\n`);
// snarkjs keeps its curve's worker threads alive after verifying; the results are written, so end here.
process.exit(0);
