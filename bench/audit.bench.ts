// The audit bench (issue 26, item 4; docs/audit-bench.md): a log of 1,000,000 events — 10,000
// deposits through the escrow, 960,000 settlements, 25,000 transitions, 5,000 exits paid on chain,
// 200 attestations on one anvil — written through the real store (bench/audit-log.ts), served by a
// real pool node process (`priv-stark start` on that store), and audited without proof checks by
// an auditor process of its own (bench/audit-run.ts: wall time, events/s, peak RSS); then proof
// checks on real spend proofs through the audit's own path (bench/audit-proofs.ts), in proofs/s on
// this machine, extrapolated to the full log's 960,000 settlements and 30,000 transitions/exits.
//
// Run: npm run bench:audit → bench/results/audit.{json,md,svg}.
// Knobs: AUDIT_BENCH_SCALE (1: the log; 0.01 for a try), AUDIT_BENCH_PROOFS (10000
// verifications), AUDIT_BENCH_DISTINCT_PROOFS (250 proved), AUDIT_BENCH_SKIP_PROOFS=1,
// AUDIT_BENCH_AUDITOR_NODE_OPTIONS (the auditor's node flags, e.g. to profile it),
// AUDIT_BENCH_AUDIT_WHEN (a file the audit waits for).

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadCore, randomDigest } from '../src/core/index.js';
import { openStore } from '../src/ledger/index.js';
import { attestAll, depositAll, payAll, startBenchChain } from './audit-chain.js';
import { type ChainDeposit, eventsOf, FULL_PLAN, generateLog, scaledPlan } from './audit-log.js';
import { measureProofChecks, type ProofChecks } from './audit-proofs.js';
import type { AuditRun } from './audit-run.js';
import { environment, writeResults } from './report.js';
import { processCpuMs, startService, stopService } from './service-process.js';

const SCALE = Number(process.env.AUDIT_BENCH_SCALE ?? 1);
const PROOFS = Number(process.env.AUDIT_BENCH_PROOFS ?? 10_000);
const DISTINCT = Number(process.env.AUDIT_BENCH_DISTINCT_PROOFS ?? 250);
const log = (text: string) =>
  process.stderr.write(`[bench:audit] ${new Date().toISOString().slice(11, 19)} ${text}\n`);
const loadNow = () => loadavg().map((l) => Number(l.toFixed(2)));

/** Bytes of a directory's files (the SQLite file and its WAL). */
const dirBytes = (dir: string) =>
  readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);

/** Runs the auditor process; its report. */
async function runAuditor(args: string[]): Promise<AuditRun> {
  const script = fileURLToPath(new URL('./audit-run.ts', import.meta.url));
  // AUDIT_BENCH_AUDITOR_NODE_OPTIONS: the auditor's node flags (e.g. `--cpu-prof`).
  const flags = (process.env.AUDIT_BENCH_AUDITOR_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the auditor exited ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as AuditRun;
}

const plan = SCALE === 1 ? FULL_PLAN : scaledPlan(SCALE);
const events = eventsOf(plan);
const loadBefore = loadNow();
const core = await loadCore();
log(`plan ${JSON.stringify(plan)}: ${events} events`);
const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-audit-bench-'));
const bc = await startBenchChain();
let service: Awaited<ReturnType<typeof startService>> | null = null;
try {
  let t = performance.now();
  const deposits: ChainDeposit[] = Array.from({ length: plan.deposits }, () => ({
    amount: 1_000_000n,
    pre: randomDigest(),
  }));
  await depositAll(bc, deposits);
  const depositMs = performance.now() - t;
  log(`${plan.deposits} deposits made and accepted on chain in ${(depositMs / 1000).toFixed(1)} s`);

  const store = await openStore(core, { dataDir });
  const destinations = Array.from(
    { length: 16 },
    (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}` as const,
  );
  const generated = await generateLog(core, store, plan, deposits, {
    chainId: bc.chain.chainId,
    destinations,
    onRound: (round, n) => {
      if (round % 10 === 0) log(`round ${round}/${plan.attestations}: ${n} events`);
    },
  });
  await store.close();
  const storeBytes = dirBytes(dataDir);
  log(`generated ${generated.events} events in ${(generated.ms / 1000).toFixed(0)} s`);

  t = performance.now();
  await payAll(bc, generated.exits);
  await attestAll(bc, generated.claims);
  const payAttestMs = performance.now() - t;
  log(
    `${generated.exits.length} payouts, ${generated.claims.length} attestations in ${(payAttestMs / 1000).toFixed(1)} s`,
  );

  // AUDIT_BENCH_AUDIT_WHEN=FILE: the audit waits for FILE to exist (a long generation can run
  // while a change to the audit is still to come; the auditor process loads src/ when it starts).
  const gate = process.env.AUDIT_BENCH_AUDIT_WHEN;
  if (gate) {
    log(`waiting for ${gate} before the audit`);
    while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 5000));
  }
  service = await startService({ dataDir, poolNode: true, env: { LOG_LEVEL: 'warn' } });
  const loadAudit = loadNow();
  const cpuBefore = processCpuMs(service.pid);
  const run = await runAuditor([
    service.poolNodeUrl!,
    bc.node.url,
    bc.escrow,
    String(bc.deployBlock),
  ]);
  const poolNodeCpuMs = processCpuMs(service.pid) - cpuBefore;
  const loadAuditEnd = loadNow();
  log(`audit: ${JSON.stringify(run)}`);
  if (!run.ok) throw new Error(`the generated log did not audit clean: ${JSON.stringify(run)}`);
  await stopService(service);
  service = null;

  let proofs: ProofChecks | null = null;
  if (process.env.AUDIT_BENCH_SKIP_PROOFS !== '1') {
    log(`proof checks: ${DISTINCT} real proofs, ${PROOFS} verifications`);
    proofs = await measureProofChecks(core, DISTINCT, PROOFS, log);
    log(`proofs: ${JSON.stringify(proofs)}`);
  }
  const transition = JSON.parse(
    readFileSync(new URL('./results/transition.json', import.meta.url), 'utf8'),
  ) as {
    verify: {
      transition: { native: { medianMs: number } };
      spend: { native: { medianMs: number } };
    };
  };
  // A transition's proof verifies in about twice a spend's (bench/results/transition.json).
  const transitionCost =
    transition.verify.transition.native.medianMs / transition.verify.spend.native.medianMs;
  const full = {
    settlements: FULL_PLAN.settlements,
    transitionsAndExits: FULL_PLAN.transitions + FULL_PLAN.exits,
  };
  const extrapolated =
    proofs === null
      ? null
      : {
          transitionCost,
          ...full,
          seconds:
            (full.settlements + full.transitionsAndExits * transitionCost) / proofs.proofsPerSecond,
          verifyOnlySeconds:
            (full.settlements + full.transitionsAndExits * transitionCost) /
            proofs.verifyOnlyPerSecond,
        };
  const loadAfter = loadNow();
  const logOnly = {
    events: run.events,
    attestations: run.attestations,
    wallSeconds: run.totalMs / 1000,
    chainSeconds: run.chainMs / 1000,
    logSeconds: run.logMs / 1000,
    eventsPerSecond: run.events / (run.totalMs / 1000),
    peakRssMiB: Math.round(run.maxRssMiB),
    poolNodeCpuSeconds: poolNodeCpuMs / 1000,
    loadAverageAtStart: loadAudit,
    loadAverageAtEnd: loadAuditEnd,
    // The pass is linear in the log: a smaller scale's time, for the 1,000,000 events.
    projectedFullSeconds: (run.totalMs / 1000) * (eventsOf(FULL_PLAN) / run.events),
  };
  const generation = {
    plan,
    events: generated.events,
    seconds: generated.ms / 1000,
    eventsPerSecond: generated.events / (generated.ms / 1000),
    storeBytes,
    chainDepositSeconds: depositMs / 1000,
    chainPayoutAttestSeconds: payAttestMs / 1000,
  };
  const markdown = [
    '## The audit: a pool log audited without proof checks, and proof checks in proofs/s',
    '',
    `${events.toLocaleString('en-US')} events (${plan.deposits} deposits through the escrow, ${plan.settlements} settlements, ${plan.transitions} transitions, ${plan.exits} exits paid on chain, ${plan.attestations} attestations on one anvil); load average ${loadBefore.join(' / ')} before, ${loadAfter.join(' / ')} after.`,
    '',
    '| | |',
    '|---|---:|',
    `| log-only audit, wall (HTTP from a pool node process) | ${logOnly.wallSeconds.toFixed(1)} s |`,
    `| of which the chain's facts (RPC) | ${logOnly.chainSeconds.toFixed(1)} s |`,
    `| events/s | ${Math.round(logOnly.eventsPerSecond).toLocaleString('en-US')} |`,
    `| projected for 1,000,000 events (linear) | ${(logOnly.projectedFullSeconds / 60).toFixed(1)} min |`,
    `| auditor peak RSS | ${logOnly.peakRssMiB} MiB |`,
    `| pool node CPU while serving it | ${logOnly.poolNodeCpuSeconds.toFixed(1)} s |`,
    `| generation through the store | ${generation.seconds.toFixed(0)} s (${Math.round(generation.eventsPerSecond)} events/s), store ${(storeBytes / 1e9).toFixed(2)} GB |`,
    ...(proofs && extrapolated
      ? [
          `| proof checks (${proofs.verified} verifications of ${proofs.distinctProofs} real spend proofs, ${proofs.proofBytes} B mean) | ${proofs.proofsPerSecond.toFixed(0)} proofs/s (verify alone ${proofs.verifyOnlyPerSecond.toFixed(0)}/s) |`,
          `| extrapolated: 960,000 settlements + 30,000 transitions/exits (×${transitionCost.toFixed(2)} a spend) | ${(extrapolated.seconds / 60).toFixed(1)} min |`,
        ]
      : []),
  ].join('\n');
  await writeResults(
    'audit',
    {
      environment: { ...environment(), loadAverage: loadBefore, loadAfter },
      scale: SCALE,
      generation,
      logOnly,
      proofs,
      extrapolated,
    },
    markdown,
  );
  log('wrote bench/results/audit.{json,md,svg}');
} finally {
  if (service) await stopService(service);
  await bc.node.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
