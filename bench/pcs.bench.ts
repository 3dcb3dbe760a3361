// The polynomial commitment alone (issue 23, part 2; docs/proof.md §7.5): FRI at proof v3's
// numbers against STIR at 100 bits under the Johnson bound, over a grid of rates, folding factors
// and options, and WHIR (multilinear: the same cells as one stacked commitment) at 100 composed
// bits under the Johnson bound, over a grid of rates and folding factors, on the committed
// matrices of the spend and transition statements; one run, every candidate in every round
// (interleaved). The measurement is bench/pcs/ (Rust, Plonky3
// 0.9.0-rc.2, a package of its own); this script builds it, runs it, and writes the results file
// and chart with the load average before and after.
//
// For information only: no AIR, no zero knowledge (STIR's PCS declares `ZK = false`, WHIR's is the
// plain one; no set the prover makes may use either), and sizes of the commitment's opening proof,
// not of whole proofs.
//
// It also recomputes the security of every accepted set (spend 3 and 2, transition 17 and 16) with
// p3-security 0.9.0-rc.2 from the estimator inputs the product computes for each set's own AIR
// (`--example measure -- security-inputs`), beside 0.8's figures, grinding reported apart.
//
// Run: npm run bench:pcs → bench/results/pcs.{json,md,svg}. BENCH_PCS_ROUNDS (default 7).

import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

import { median } from './flow-runs.js';
import { environment, writeResults } from './report.js';

const ROUNDS = Number(process.env.BENCH_PCS_ROUNDS ?? 7);
const manifest = fileURLToPath(new URL('./pcs/Cargo.toml', import.meta.url));
const root = fileURLToPath(new URL('../', import.meta.url));

/** Standard output of a command that must succeed. */
function output(command: string, args: readonly string[], input?: string): string {
  const done = spawnSync(command, args, {
    cwd: root,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'inherit'],
    maxBuffer: 64 * 2 ** 20,
  });
  if (done.status !== 0) throw new Error(`bench:pcs: ${command} ${args.join(' ')} failed`);
  return String(done.stdout);
}

// Each accepted set's estimator inputs (the product's crate, 0.8), recomputed by 0.9.
const inputs = output('cargo', [
  'run',
  '--quiet',
  '--release',
  '-p',
  'priv-stark-proof',
  '--features',
  'measure',
  '--example',
  'measure',
  '--',
  'security-inputs',
]);
const security = output(
  'cargo',
  ['run', '--quiet', '--release', '--locked', '--manifest-path', manifest, '--bin', 'security'],
  inputs,
)
  .split('\n')
  .filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line) as SecurityLine);

interface Bits {
  readonly conjectured: number;
  readonly provenListDecoding: number | null;
  readonly provenUniqueDecoding: number;
}
interface SecurityLine {
  readonly statement: string;
  readonly set: number;
  readonly bits08: Bits;
  readonly bits09: Bits & { readonly binding: string | null };
  readonly bits09WithoutGrinding: Bits;
  readonly grindingBits: number;
}

const built = spawnSync('cargo', ['build', '--release', '--locked', '--manifest-path', manifest], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
if (built.status !== 0) throw new Error('bench:pcs: cargo build failed');

const loadBefore = loadavg();
const run = spawnSync(
  'cargo',
  [
    'run',
    '--quiet',
    '--release',
    '--locked',
    '--manifest-path',
    manifest,
    '--bin',
    'priv-stark-pcs-bench',
  ],
  {
    env: { ...process.env, BENCH_PCS_ROUNDS: String(ROUNDS) },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 2 ** 20,
  },
);
if (run.status !== 0) throw new Error('bench:pcs: the measurement failed');
const loadAfter = loadavg();

interface Line {
  readonly round?: number;
  readonly statement: string;
  readonly candidate: string;
  readonly bytes?: number;
  readonly proveMs?: number;
  readonly verifyMs?: number;
  readonly derivable?: false;
  /** On the lines before the rounds: the parameters a candidate derived (WHIR). */
  readonly parameters?: WhirParameters;
}
interface WhirParameters {
  readonly derivable?: false;
  readonly reason?: string;
  readonly variables?: number;
  readonly levelPerTerm?: number;
  readonly bits?: number;
  readonly folds?: readonly number[];
  readonly queries?: readonly number[];
  readonly maxGrindingBits?: number;
}
const all = String(run.stdout)
  .split('\n')
  .filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line) as Line);
const lines = all.filter((line) => line.round !== undefined);
const derived = new Map(
  all
    .filter((line) => line.parameters !== undefined)
    .map((line) => [`${line.statement}\u0000${line.candidate}`, line.parameters!]),
);

/** Per statement and candidate: mean and largest bytes, median prove and verify times. */
const groups = new Map<string, Line[]>();
for (const line of lines) {
  const key = `${line.statement}\u0000${line.candidate}`;
  const group = groups.get(key);
  if (group === undefined) groups.set(key, [line]);
  else group.push(line);
}
const candidates = [...groups.values()].map((samples) => {
  const { statement, candidate } = samples[0]!;
  const parameters = derived.get(`${statement}\u0000${candidate}`);
  const measured = samples.filter((s) => s.bytes !== undefined);
  if (measured.length === 0) return { statement, candidate, derivable: false as const, parameters };
  const bytes = measured.map((s) => s.bytes!);
  return {
    statement,
    candidate,
    parameters,
    derivable: true as const,
    samples: measured.length,
    bytes: {
      mean: Math.round(bytes.reduce((a, b) => a + b, 0) / bytes.length),
      largest: Math.max(...bytes),
    },
    proveMs: median(measured.map((s) => s.proveMs!)),
    verifyMs: median(measured.map((s) => s.verifyMs!)),
  };
});

const env = environment();
const results = {
  environment: { ...env, loadBefore, loadAfter },
  rounds: ROUNDS,
  plonky3: '0.9.0-rc.2',
  security:
    'STIR: 100 bits as its own parameter derivation computes them under the Johnson bound (max 18 grinding bits per step); WHIR: the lowest per-term level at which p3-whir’s own composition of the opening’s error terms (prescribed_security, Johnson bound, max 18 grinding bits per step) reaches 100 bits; FRI: set 3 numbers, 100 proven bits (list decoding) for proof v3 as p3-security 0.8 computes them',
  candidates,
  parameterSetSecurity: security,
};

const f = (ms: number) => ms.toFixed(ms < 10 ? 2 : 1);
const table = (statement: string) => {
  const rows = candidates
    .filter((c) => c.statement === statement)
    .sort((a, b) =>
      a.derivable && b.derivable ? a.bytes.mean - b.bytes.mean : a.derivable ? -1 : 1,
    );
  return [
    `### ${statement}`,
    '',
    '| candidate | bytes (mean / largest) | commit + open, median | verify, median |',
    '|---|---:|---:|---:|',
    ...rows.map((c) =>
      c.derivable
        ? `| ${c.candidate} | ${c.bytes.mean} / ${c.bytes.largest} | ${f(c.proveMs)} ms | ${f(c.verifyMs)} ms |`
        : `| ${c.candidate} | not derivable | | |`,
    ),
  ];
};
/** The WHIR schedules as the crate derived them, per statement. */
const whirTable = (statement: string) => [
  `#### WHIR schedules, ${statement}`,
  '',
  '| candidate | variables | per-term level | composed bits | folds | queries | most grinding |',
  '|---|---:|---:|---:|---|---|---:|',
  ...candidates
    .filter((c) => c.statement === statement && c.parameters !== undefined)
    .map(({ candidate, parameters: p }) =>
      p!.derivable === false
        ? `| ${candidate} | not derivable: ${p!.reason} | | | | | |`
        : `| ${candidate} | ${p!.variables} | ${p!.levelPerTerm} | ${p!.bits!.toFixed(2)} | ${p!.folds!.join(', ')} | ${p!.queries!.join(', ')} | ${p!.maxGrindingBits} |`,
    ),
];
const markdown = [
  '# The polynomial commitment alone: FRI (proof v3) against STIR and WHIR at 100 bits',
  '',
  `${env.date}, ${env.cpu}, ${env.cores} cores, ${ROUNDS} rounds interleaved; load ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after. Plonky3 0.9.0-rc.2, native, one thread.`,
  '',
  'Each candidate commits random matrices of the statement’s shape (trace: 512 × 46 for spend,',
  '1024 × 60 for transition, opened at two points; quotient: 9 columns at one point), opens them',
  'and verifies the opening. No AIR, no zero knowledge: these are the sizes of the commitment’s',
  'opening proof without the opened values, the part of a proof a STIR or WHIR set would change,',
  'not of whole proofs.',
  '',
  'WHIR is multilinear: both matrices are the two tables of one stacked commitment (every column',
  'back to back, zero-padded to a power of two: 2^15 cells for spend, 2^17 for transition),',
  'opened at one point r as a multilinear STARK’s zerocheck would leave it: each trace column at r',
  'and through its successor (the next row), the nine other columns at r. Its schedule is derived',
  'by p3-whir under the Johnson bound, at most 18 grinding bits a step, at the lowest per-term',
  'level whose composed opening error (p3-whir’s prescribed_security, a union bound over its',
  'terms) is at least 100 bits. A WHIR set needs a multilinear AIR framing (p3-multi-stark, whose',
  'proofs are not zero-knowledge), so none is built for the product.',
  '',
  ...table('spend'),
  '',
  ...whirTable('spend'),
  '',
  ...table('transition'),
  '',
  ...whirTable('transition'),
  '',
  '### Every accepted set recomputed with p3-security 0.9.0-rc.2',
  '',
  'Conjectured / proven list-decoding (Johnson) / proven unique-decoding bits, from the estimator inputs the',
  'product computes for each set’s own AIR; “without grinding” sets every proof-of-work site to zero.',
  '',
  '| set | p3-security 0.8 (the product) | 0.9.0-rc.2 | 0.9.0-rc.2 without grinding | grinding | binding term (0.9, list decoding) |',
  '|---|---:|---:|---:|---:|---|',
  ...security.map((s) => {
    const b = (x: Bits) =>
      `${x.conjectured} / ${x.provenListDecoding ?? '—'} / ${x.provenUniqueDecoding}`;
    return `| ${s.statement} ${s.set} | ${b(s.bits08)} | ${b(s.bits09)} | ${b(s.bits09WithoutGrinding)} | ${s.grindingBits} bits (queries) | ${s.bits09.binding ?? '—'} |`;
  }),
].join('\n');
await writeResults('pcs', results, markdown);
process.stdout.write(`${markdown}\n`);
