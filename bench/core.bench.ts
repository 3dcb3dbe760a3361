// Core primitives, native vs WebAssembly side by side: the RPO permutation, the 2-to-1 merge
// (H_NODE) and a frontier append (32 merges plus the frontier's encoding). Both the byte-level
// binding call and the typed facade call (hex digests) are measured.
//
// Run: npm run bench   → bench/results/core.json and core.md, and a table on stdout.

import { Bench } from 'tinybench';

import type { Backend, RawBinding } from '../src/core/binding.js';
import { loadBackend } from '../src/core/load.js';
import { loadNative } from '../src/core/native.js';
import { loadWasm } from '../src/core/wasm.js';
import { environment, formatTable, type Row, writeResults } from './report.js';

const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 1500);

function digestBytes(seed: number): Uint8Array {
  const out = new Uint8Array(32);
  new DataView(out.buffer).setUint32(0, seed, true);
  return out;
}

async function measure(
  backend: Backend,
): Promise<Map<string, { medianUs: number; p99Us: number; samples: number }>> {
  const raw: RawBinding = backend === 'native' ? loadNative() : await loadWasm();
  const core = await loadBackend(backend);
  const state = new Uint8Array(96);
  const [left, right] = [digestBytes(1), digestBytes(2)];
  const [leftHex, rightHex] = [
    core.merge(core.emptyFrontier().root, core.emptyFrontier().root),
    core.emptyFrontier().root,
  ];
  let frontier = raw.frontierEmpty();
  let typedFrontier = core.emptyFrontier();
  let seed = 0;

  const bench = new Bench({ time: TIME_MS, warmupTime: 300 });
  bench
    .add('RPO permutation (bytes)', () => {
      raw.rpoPermute(state);
    })
    .add('2-to-1 merge H_NODE (bytes)', () => {
      raw.merge(left, right);
    })
    .add('2-to-1 merge H_NODE (typed, hex)', () => {
      core.merge(leftHex, rightHex);
    })
    .add('frontier append, 1 leaf (bytes)', () => {
      frontier = raw.frontierAppend(frontier, digestBytes(++seed));
    })
    .add('frontier append, 1 leaf (typed, hex)', () => {
      typedFrontier = core.frontierAppend(typedFrontier, [rightHex]);
    });
  await bench.run();
  const out = new Map<string, { medianUs: number; p99Us: number; samples: number }>();
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
    out.set(task.name, {
      medianUs: result.latency.p50 * 1000,
      p99Us: result.latency.p99 * 1000,
      samples: result.latency.samplesCount,
    });
  }
  return out;
}

const native = await measure('native');
const wasm = await measure('wasm');
const rows: Row[] = [...native.keys()].map((name) => {
  const n = native.get(name)!;
  const w = wasm.get(name)!;
  return {
    name,
    native: { medianUs: n.medianUs, p99Us: n.p99Us, samples: n.samples },
    wasm: { medianUs: w.medianUs, p99Us: w.p99Us, samples: w.samples },
    wasmOverNative: w.medianUs / n.medianUs,
  };
});

const budgets = {
  'merge native median ≤ 8 µs':
    (native.get('2-to-1 merge H_NODE (bytes)')?.medianUs ?? Infinity) <= 8,
  'merge wasm ≤ 2.5 × native':
    (rows.find((r) => r.name === '2-to-1 merge H_NODE (bytes)')?.wasmOverNative ?? Infinity) <= 2.5,
};
const results = {
  bench: 'core',
  environment: environment(),
  timePerTaskMs: TIME_MS,
  rows,
  budgets,
};
await writeResults(
  'core',
  results,
  formatTable('Core primitives: native vs WebAssembly (medians, µs)', rows, budgets),
);
process.stdout.write(
  `${formatTable('Core primitives: native vs WebAssembly (medians, µs)', rows, budgets)}\n`,
);
