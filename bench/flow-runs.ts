// One bench/flow.bench.ts run in a process of its own against a fresh `priv-stark start`, its
// results read back (BENCH_JSON_OUT), and the medians over rounds of such runs: what the scale
// bench (worker counts) and the levers bench (one change at a time) both measure.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { CommitFigures } from './commit-figures.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One flow of a flow.bench run, as its results JSON has it. */
export interface FlowRunJson {
  flow: { id: string };
  paymentsPerSec: number;
  completed: number;
  ended: string;
  serverCpuMsPerPayment: number;
  serverThreadsCpuMsPerPayment: {
    main: number;
    primary: number;
    niced: number;
    other: number;
    busiestOther: number;
  };
  generatorCpuMsPerPayment: number;
  load: number;
  bytes: Record<string, number>;
  commits: CommitFigures | null;
}

/**
 * One flow.bench run of `flows` on SQLite (the scale issue's setting: a 500 ms checkpoint interval,
 * no raw verify measurement) with `env` on top.
 * @throws Error when the run fails
 */
export function flowBenchRun(
  flows: readonly string[],
  env: Readonly<Record<string, string>>,
): FlowRunJson[] {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-flow-run-'));
  const out = join(dir, 'flow.json');
  try {
    const result = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'bench/flow.bench.ts')],
      {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          BENCH_STORES: 'sqlite',
          BENCH_ONLY: flows.map((flow) => `sqlite:${flow}`).join(','),
          BENCH_DURATION_S: process.env.BENCH_DURATION_S ?? '60',
          BENCH_RAW_VERIFY_S: '0',
          CHECKPOINT_INTERVAL_MS: '500',
          ...env,
          BENCH_JSON_OUT: out,
        },
      },
    );
    if (result.status !== 0) throw new Error(`flow.bench (${JSON.stringify(env)}) failed`);
    return (JSON.parse(readFileSync(out, 'utf8')) as { flows: FlowRunJson[] }).flows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
export const round2 = (x: number): number => Number(x.toFixed(2));

/** The medians of one flow over its rounds: payments/s, CPU per payment by role, bytes per hop. */
export function summarize(of: readonly FlowRunJson[]) {
  const role = (key: keyof FlowRunJson['serverThreadsCpuMsPerPayment']) =>
    round2(median(of.map((f) => f.serverThreadsCpuMsPerPayment[key])));
  return {
    paymentsPerSec: Math.round(median(of.map((f) => f.paymentsPerSec))),
    rounds: of.map((f) => Math.round(f.paymentsPerSec)),
    completed: of.map((f) => f.completed),
    ended: of.map((f) => f.ended),
    serverCpuMsPerPayment: round2(median(of.map((f) => f.serverCpuMsPerPayment))),
    serverCpuRounds: of.map((f) => round2(f.serverCpuMsPerPayment)),
    cpuByRole: {
      main: role('main'),
      primary: role('primary'),
      verify: role('niced'),
      other: role('other'),
      writer: role('busiestOther'),
    },
    generatorCpuMsPerPayment: round2(median(of.map((f) => f.generatorCpuMsPerPayment))),
    bytes: of[0]?.bytes ?? {},
    commits: commitMedians(of.map((f) => f.commits)),
    load: of.map((f) => f.load),
  };
}

/** The medians of the runs' commit figures (`null` when a run has none). */
function commitMedians(all: readonly (CommitFigures | null)[]) {
  if (all.length === 0 || all.some((c) => c === null)) return null;
  const of = all as readonly CommitFigures[];
  const m = (read: (c: CommitFigures) => number | null | undefined) => {
    const values = of.map(read).filter((v): v is number => typeof v === 'number');
    return values.length === of.length ? round2(median(values)) : null;
  };
  return {
    opsPerGroup: m((c) => c.opsPerGroup),
    groupsPerPayment: m((c) => c.groupsPerPayment),
    queueWaitMsPerOp: m((c) => c.queueWaitMsPerOp),
    storeMsPerPayment: m((c) => c.storeMsPerPayment),
    lockMsPerCommit: m((c) => c.storeMsPerCommit?.lock),
    workMsPerCommit: m((c) => c.storeMsPerCommit?.work),
    syncMsPerCommit: m((c) => c.storeMsPerCommit?.sync),
  };
}
