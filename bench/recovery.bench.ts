// Recovery at scale: a wallet restored from its spending key alone (a new wallet file, one sync)
// against a pool of 1,000,000 leaves — mostly other wallets' deposits and settlements, appended
// straight through the store's `apply` as bench/client.bench.ts does — among which sit the key's
// own twelve deposits (shielded out of their tickets' order, within the recovery bound), payments
// from them with change, and payments received. The restored wallet must find exactly the notes
// the bench put there (values, spent flags); the bench reports how long the sync took and where
// the time went (pool node requests, leaf store writes, the local tree, event matching). The pool
// node runs in a process of its own, as it would on the operator's machine: the restore's time is
// the wallet's, waiting on the node included.
//
// Run: npm run bench:recovery (or npx tsx bench/recovery.bench.ts) → bench/results/recovery.json
// and recovery.md.
// Knobs: RECOVERY_BENCH_LEAVES (1000000), RECOVERY_BENCH_AMOUNTS (`mixed,distinct`: the other
// wallets' deposit amounts — `mixed` draws most from a few dozen round amounts, `distinct` makes
// every one different, the worst case for matching deposits), RECOVERY_BENCH_RUNS (1).
// Budget (the product owner's issue): restoring against 1,000,000 leaves under 60 s.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { DEPOSIT_GAP, Wallet } from '../src/client/index.js';
import {
  changeRhoOf,
  commitmentOf,
  type DigestHex,
  depositRhoOf,
  deriveNote,
  loadCore,
  ownerOf,
  type PrivStarkCore,
  precommitmentOf,
  randomDigest,
} from '../src/core/index.js';
import { recipientNote, settlementId, type StoreOp } from '../src/ledger/index.js';
import { SERVICE_DEFAULTS, startService } from '../src/service/index.js';
import { NO_EPOCH_GRID } from '../src/scheme/index.js';
import { environment, writeResults } from './report.js';
import { STAND_IN_PROOF } from '../testkit/stand-in-proof.js';

const LEAVES = Number(process.env.RECOVERY_BENCH_LEAVES ?? 1_000_000);
const MIXES = (process.env.RECOVERY_BENCH_AMOUNTS ?? 'mixed,distinct').split(',') as Mix[];
const RUNS = Number(process.env.RECOVERY_BENCH_RUNS ?? 1);
const BUDGET_MS = 60_000;
const log = (text: string) => process.stderr.write(`[bench:recovery] ${text}\n`);

type Mix = 'mixed' | 'distinct';

/** A deterministic generator, so both mixes see the same shape of pool. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ROUND = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000].flatMap((u) => [
  String(u * 10_000),
  String(u * 1_000_000),
]);

/** What the key owns, computed by the bench as it builds the pool. */
interface Expected {
  notes: Map<DigestHex, { value: bigint; spent: boolean }>;
}

/** CPU time this process has used, all threads (the libuv pool's included), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** What the pool process reports once it serves. */
interface PoolReady {
  url: string;
  events: number;
  checkpoints: number;
  buildMs: number;
  notes: [DigestHex, string, boolean][];
}

/** The key's own history, placed at fixed fractions of the pool. */
function ownHistory(core: PrivStarkCore, sk: DigestHex, foreign: () => string) {
  const owner = ownerOf(core, sk);
  const address = core.encodeAddress(owner);
  const amounts = [
    '70000',
    '500000',
    '70000',
    '90000',
    '70000',
    '40000',
    '70000',
    '10000',
    '33000',
    '12000',
    '8000',
    '19000',
  ];
  // Shielded out of the tickets' order, within the bound: ticket c lands after at least c − N + 1
  // of the others (the wallet issued it while at most N − 1 others were open).
  const order = [7, 3, 0, 6, 1, 5, 2, 4, 11, 9, 10, 8];
  const expected: Expected = { notes: new Map() };
  const deposits = order.map((counter) => {
    const rho = depositRhoOf(core, sk, counter);
    const note = deriveNote(core, { sk, value: amounts[counter]!, rho });
    return { counter, note };
  });
  const ops: StoreOp[][] = [];
  for (const { note } of deposits) {
    expected.notes.set(note.commitment, { value: BigInt(note.value), spent: false });
    ops.push([{ kind: 'deposit', amount: note.value, commitment: note.commitment }]);
  }
  // Every 70,000 note pays 10,000 to someone else; its change (60,000) pays 5,000 again.
  const spend = (note: { value: string; nullifier: DigestHex; commitment: DigestHex }) => {
    const amount = note.value === '70000' ? 10_000n : 5_000n;
    const changeValue = BigInt(note.value) - amount;
    const rho = changeRhoOf(core, sk, note.nullifier);
    const change = deriveNote(core, { sk, value: changeValue.toString(), rho });
    const to = foreign();
    expected.notes.get(note.commitment)!.spent = true;
    expected.notes.set(change.commitment, { value: changeValue, spent: false });
    const op: StoreOp = {
      kind: 'settlement',
      nullifier: note.nullifier,
      settlementId: settlementId(note.nullifier),
      change: commitmentOf(core, changeValue.toString(), precommitmentOf(core, owner, rho)),
      recipientNote: recipientNote(core, amount, core.decodeAddress(to), note.nullifier),
      recipient: to,
      amount: amount.toString(),
      proof: STAND_IN_PROOF,
    };
    return { op, change };
  };
  for (const { note } of deposits) {
    if (note.value !== '70000') continue;
    const first = spend(note);
    const second = spend(first.change);
    ops.push([first.op], [second.op]);
  }
  // Three payments received from other wallets.
  for (const amount of [1234n, 5678n, 910n]) {
    const nullifier = randomDigest();
    const cm = recipientNote(core, amount, owner, nullifier);
    expected.notes.set(cm, { value: amount, spent: false });
    ops.push([
      {
        kind: 'settlement',
        nullifier,
        settlementId: settlementId(nullifier),
        change: randomDigest(),
        recipientNote: cm,
        recipient: address,
        amount: amount.toString(),
        proof: STAND_IN_PROOF,
      },
    ]);
  }
  return { ops, expected };
}

async function buildPool(
  core: PrivStarkCore,
  mix: Mix,
  sk: DigestHex,
): Promise<{
  url: string;
  close: () => Promise<void>;
  expected: Expected;
  events: number;
  checkpoints: number;
  buildMs: number;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-recovery-bench-'));
  const service = await startService(
    {
      ...SERVICE_DEFAULTS,
      epoch: NO_EPOCH_GRID,
      facilitator: false,
      poolPort: 0,
      dataDir: dir,
      logLevel: 'silent',
      checkpointIntervalMs: 3_600_000,
      operatorToken: 'bench-operator-token-0123',
    },
    () => undefined,
  );
  const random = prng(42);
  const addresses = Array.from({ length: 256 }, () =>
    core.encodeAddress(ownerOf(core, randomDigest())),
  );
  const foreign = () => addresses[Math.floor(random() * addresses.length)]!;
  const own = ownHistory(core, sk, foreign);
  // The key's ops sit at evenly spread points of the pool, in their order (deposits first).
  const ownAt = own.ops.map((_, i) => Math.floor(((i + 1) * LEAVES) / (own.ops.length + 2)));
  let nextOwn = 0;
  let amountSeq = 0;
  const foreignAmount = () => {
    if (mix === 'distinct') return String(1_000_003 + amountSeq++ * 7);
    return random() < 0.8
      ? ROUND[Math.floor(random() * ROUND.length)]!
      : String(1 + Math.floor(random() * 9_999_999));
  };
  const started = performance.now();
  let leaves = 0;
  let events = 0;
  let checkpoints = 0;
  let checkpointedAt = 0;
  while (leaves < LEAVES) {
    const group: StoreOp[] = [];
    while (group.length < 2048 && leaves < LEAVES) {
      if (nextOwn < own.ops.length && leaves >= ownAt[nextOwn]!) {
        for (const op of own.ops[nextOwn]!) {
          group.push(op);
          leaves += op.kind === 'deposit' ? 1 : 2;
          events++;
        }
        nextOwn++;
        continue;
      }
      // Foreign traffic: three deposits for every two settlements (one leaf a deposit, two a
      // settlement: about 43 % of the leaves are deposits).
      if (random() < 0.6 || LEAVES - leaves < 2) {
        group.push({ kind: 'deposit', amount: foreignAmount(), commitment: randomDigest() });
        leaves += 1;
      } else {
        const nullifier = randomDigest();
        group.push({
          kind: 'settlement',
          nullifier,
          settlementId: settlementId(nullifier),
          change: randomDigest(),
          recipientNote: randomDigest(),
          recipient: foreign(),
          amount: String(1 + Math.floor(random() * 99_999)),
          proof: STAND_IN_PROOF,
        });
        leaves += 2;
      }
      events++;
    }
    const results = await service.ledger.store.apply(group, Date.now());
    const refused = results.find((r) => !r.ok);
    if (refused) throw new Error(`the store refused an op: ${JSON.stringify(refused)}`);
    // A checkpoint every ~16,000 leaves, as a pool publishing on a timer would.
    if (leaves - checkpointedAt >= 16_384) {
      await service.ledger.checkpoint();
      checkpointedAt = leaves;
      checkpoints++;
    }
    if (leaves % (2048 * 50) < 2048) log(`${mix}: ${leaves} leaves`);
  }
  if (nextOwn !== own.ops.length) throw new Error('not every own op was placed');
  await service.ledger.checkpoint();
  checkpoints++;
  return {
    url: service.poolNodeUrl!,
    expected: own.expected,
    events,
    checkpoints,
    buildMs: performance.now() - started,
    close: async () => {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One restore: a new wallet file, one sync, timed and split into its parts. The wallet reads
 * leaves and events side by side, so the parts overlap: each side's wall time, and inside it the
 * time spent in pool node requests (latency, overlapping the work: a page is read ahead), leaf
 * file writes, the local tree's hashing (`mergePairs`, on the JavaScript thread) and deposit
 * matching (`depositMatchesAsync`, off it).
 */
async function restore(
  core: PrivStarkCore,
  pool: { url: string; expected: Expected; cpuMs: () => Promise<number> },
  sk: DigestHex,
) {
  const { url, expected } = pool;
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-recovery-wallet-'));
  const parts = {
    leafRequestsMs: 0,
    eventRequestsMs: 0,
    leafWritesMs: 0,
    treeHashingMs: 0,
    depositMatchingMs: 0,
    leavesSideMs: 0,
    eventsSideMs: 0,
  };
  let started = 0;
  const timed = <A extends unknown[], R>(part: keyof typeof parts, call: (...a: A) => R) =>
    ((...args: A) => {
      const t = performance.now();
      const result = call(...args);
      if (result instanceof Promise)
        return result.finally(() => {
          parts[part] += performance.now() - t;
        });
      parts[part] += performance.now() - t;
      return result;
    }) as (...a: A) => R;
  const measured: { -readonly [K in keyof PrivStarkCore]: PrivStarkCore[K] } = {
    ...core,
    mergePairs: timed('treeHashingMs', core.mergePairs),
    depositMatchesAsync: timed('depositMatchingMs', core.depositMatchesAsync),
    depositMatches: timed('depositMatchingMs', core.depositMatches),
  };
  try {
    const wallet = await Wallet.create({
      core: measured,
      pool: url,
      sk,
      path: join(dir, 'restored.wallet'),
    });
    const node = wallet.poolNode;
    const poolEvents = (await node.state()).events;
    node.leavesPage = timed('leafRequestsMs', node.leavesPage.bind(node));
    const events = timed('eventRequestsMs', node.eventsPage.bind(node));
    // The events side ends once its last page is read and matched (settlements apply at once).
    const sideEnd = () => {
      parts.eventsSideMs = performance.now() - started;
    };
    let lastPageRead = false;
    node.eventsPage = async (number) => {
      const page = await events(number);
      if ((page.events.at(-1)?.id ?? 0) >= poolEvents) {
        lastPageRead = true;
        sideEnd();
      }
      return page;
    };
    const match = measured.depositMatchesAsync;
    measured.depositMatchesAsync = (pres, deposits) =>
      match(pres, deposits).finally(() => {
        if (lastPageRead) sideEnd();
      });
    const store = wallet.store!;
    const appendLeaves = timed('leafWritesMs', store.appendLeaves.bind(store));
    store.appendLeaves = async (from, list) => {
      await appendLeaves(from, list);
      parts.leavesSideMs = performance.now() - started;
    };
    // The machine is shared: its load (1, 5, 15 min) before and after says what the time means.
    const loadBefore = loadavg();
    const poolCpuBefore = await pool.cpuMs();
    const walletCpuBefore = cpuMs();
    started = performance.now();
    const report = await wallet.sync();
    const totalMs = performance.now() - started;
    const walletCpuMs = cpuMs() - walletCpuBefore;
    const poolCpuMs = (await pool.cpuMs()) - poolCpuBefore;
    const loadAfter = loadavg();
    // What the wallet found against what the bench put there.
    const found = new Map(wallet.allNotes().map((n) => [n.commitment, n]));
    const missing = [...expected.notes.entries()].filter(([cm, e]) => {
      const n = found.get(cm);
      return !n || BigInt(n.value) !== e.value || Boolean(n.spent) !== e.spent;
    });
    const unspent = [...expected.notes.values()]
      .filter((e) => !e.spent)
      .reduce((sum, e) => sum + e.value, 0n);
    return {
      totalMs,
      loadAverage1m: loadBefore[0]!,
      loadBefore,
      loadAfter,
      // The restore's own work: the wallet's process and the pool node's, on a 2-core machine.
      walletCpuMs,
      poolCpuMs,
      leaves: report.leaves,
      events: report.events,
      notesExpected: expected.notes.size,
      notesFound: found.size,
      missing: missing.length,
      balanceTotal: wallet.balance().total.toString(),
      expectedTotal: unspent.toString(),
      parts: {
        ...parts,
        // After both sides: the checkpoints (the tree's root at each) and the final save.
        checkpointsAndSaveMs: totalMs - Math.max(parts.leavesSideMs, parts.eventsSideMs),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The pool in a process of its own: `--pool <mix> <sk>` builds it, prints one line, serves. */
async function servePool(mix: Mix, sk: DigestHex): Promise<void> {
  const core = await loadCore();
  const pool = await buildPool(core, mix, sk);
  const ready: PoolReady = {
    url: pool.url,
    events: pool.events,
    checkpoints: pool.checkpoints,
    buildMs: pool.buildMs,
    notes: [...pool.expected.notes].map(([cm, e]) => [cm, e.value.toString(), e.spent]),
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  // Until the bench closes stdin; each line `cpu` is answered with the CPU time used so far (all
  // threads), so the bench can tell the restore's work from the machine's other load.
  const requests = createInterface({ input: process.stdin });
  requests.on('line', (line) => {
    if (line === 'cpu') process.stdout.write(`${JSON.stringify({ cpuMs: cpuMs() })}\n`);
  });
  await new Promise((resolve) => requests.once('close', resolve));
  await pool.close();
}

/** Starts the pool process and waits until it serves. */
async function startPool(mix: Mix, sk: DigestHex) {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--pool', mix, sk],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the pool process exited (${code})`)));
  });
  const ready = JSON.parse(first) as PoolReady;
  const answers: ((line: string) => void)[] = [];
  lines.on('line', (line) => answers.shift()?.(line));
  const expected: Expected = {
    notes: new Map(ready.notes.map(([cm, value, spent]) => [cm, { value: BigInt(value), spent }])),
  };
  return {
    ...ready,
    expected,
    cpuMs: () =>
      new Promise<number>((resolve) => {
        answers.push((line) => resolve((JSON.parse(line) as { cpuMs: number }).cpuMs));
        child.stdin.write('cpu\n');
      }),
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

if (process.argv[2] === '--pool') {
  await servePool(process.argv[3] as Mix, process.argv[4] as DigestHex);
  process.exit(0);
}

const core = await loadCore();
const sk = randomDigest();
const results: Record<string, unknown>[] = [];
for (const mix of MIXES) {
  log(`${mix}: building a pool of ${LEAVES} leaves (in its own process)`);
  const pool = await startPool(mix, sk);
  log(
    `${mix}: built in ${(pool.buildMs / 1000).toFixed(1)} s (${pool.events} events, ${pool.checkpoints} checkpoints)`,
  );
  try {
    for (let run = 0; run < RUNS; run++) {
      const r = await restore(core, pool, sk);
      log(
        `${mix}: restore ${run + 1}: ${(r.totalMs / 1000).toFixed(1)} s, ${r.notesFound}/${r.notesExpected} notes, load ${r.loadAverage1m.toFixed(2)}`,
      );
      results.push({
        mix,
        run: run + 1,
        poolEvents: pool.events,
        poolBuildMs: pool.buildMs,
        ...r,
      });
    }
  } finally {
    await pool.close();
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const loads = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');
const budgets = Object.fromEntries(
  results.map((r) => [
    `${r.mix} run ${r.run}: restore against ${LEAVES} leaves < 60 s, every note found`,
    (r.totalMs as number) < BUDGET_MS && r.missing === 0,
  ]),
);
const md = [
  '## Recovery (a wallet restored from its key alone: new wallet file, one sync)',
  '',
  `backend: ${core.backend}; bound N = ${DEPOSIT_GAP}; ${JSON.stringify(environment())}`,
  '',
  '| amounts | leaves | events | restore | CPU: wallet + pool node | load (1, 5, 15 min) before → 1 min after | leaves side: wall (requests, file writes, tree hashing) | events side: wall (requests, deposit matching) | checkpoints + save | notes found |',
  '|---|---:|---:|---:|---:|---:|---|---|---:|---:|',
  ...results.map((r) => {
    const p = r.parts as Record<string, number>;
    return `| ${r.mix} | ${r.leaves} | ${r.events} | **${s(r.totalMs as number)}** | ${s(r.walletCpuMs as number)} + ${s(r.poolCpuMs as number)} | ${loads(r.loadBefore as number[])} → ${(r.loadAfter as number[])[0]!.toFixed(2)} | ${s(p.leavesSideMs!)} (${s(p.leafRequestsMs!)}, ${s(p.leafWritesMs!)}, ${s(p.treeHashingMs!)}) | ${s(p.eventsSideMs!)} (${s(p.eventRequestsMs!)}, ${s(p.depositMatchingMs!)}) | ${s(p.checkpointsAndSaveMs!)} | ${r.notesFound}/${r.notesExpected} |`;
  }),
  '',
  'The two sides run at once; request times are latencies summed over pages read ahead (they',
  'overlap the work), deposit matching runs off the JavaScript thread in two halves (summed).',
  'CPU is the time both processes used during the restore, all threads: on this 2-core machine',
  'shared with other work, the load average says how much of it the restore could have.',
  '',
  ...Object.entries(budgets).map(([name, met]) => `- ${met ? 'met' : 'MISSED'}: ${name}`),
].join('\n');
await writeResults(
  'recovery',
  { environment: environment(), leaves: LEAVES, budgetMs: BUDGET_MS, results, budgets },
  md,
);
process.stdout.write(`${md}\n`);
