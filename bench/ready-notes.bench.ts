// Parallel and back-to-back payments from one deposit (issue 17, part 2), with ready notes and
// without (the wallet as it was: one note pays once per checkpoint). The service runs as an
// operator runs it — `priv-stark start` in a process of its own, embedded SQLite, the pool node, the
// default checkpoint cadence (2000 ms) — and eight merchants on the stock @x402/express middleware
// run in this process, each paid through `payingFetch` (compact payments, the default). Every
// payment is the whole flow: the proof, its hand-over, the merchant's /verify and /settle.
//
// Targets (the clock starts when the payments are asked for; the deposit is in a checkpoint
// beforehand; background preparation allowed): eight payments at once from a wallet funded by one
// deposit all settle in at most 3× the time of one; ten back-to-back payments from one deposit in
// under 3 s in all. With ready notes, each wallet starts a ReadyNotesKeeper (10 notes of at least 50,000
// from a deposit of 1,000,000, its default 500 ms round) once funded, and the clock starts once the
// keeper reports them ready; the preparation time is reported beside. Without, a payment that finds
// no spendable note syncs and tries again every 50 ms until a checkpoint covers the change. The other
// mechanism is measured beside: no ready notes, a second service checkpointing every 250 ms.
//
// Run: npm run bench:ready-notes → bench/results/ready-notes.{json,md,svg}.
// Knobs: BENCH_RUNS (rounds of every scenario, default 3), BENCH_SINGLES (single payments timed per
// round, default 5).

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  InsufficientFundsError,
  payingFetch,
  ReadyNotesKeeper,
  Wallet,
  WalletBehindError,
} from '../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../src/core/index.js';
import { PoolNodeClient } from '../src/pool-node/index.js';
import { API_KEY, expressMerchant, type Merchant } from '../testkit/stack.js';
import { environment, writeResults } from './report.js';
import {
  OPERATOR_TOKEN,
  ownCpuMs,
  processCpuMs,
  type ServiceProcess,
  startService,
  stopService,
} from './service-process.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SINGLES = Number(process.env.BENCH_SINGLES ?? 5);
const DEPOSIT = '1000000';
const TARGET = { count: 10, value: 50_000n } as const;
const AT_ONCE = 8;
const BACK_TO_BACK = 10;
const AT_ONCE_BUDGET_RATIO = 3;
const BACK_TO_BACK_BUDGET_MS = 3000;
const log = (text: string) => process.stderr.write(`[bench:ready-notes] ${text}\n`);

type Mode = 'ready notes' | 'without' | 'fast checkpoints';
const MODES: readonly Mode[] = ['ready notes', 'without', 'fast checkpoints'];
const DEFAULT_CHECKPOINT_MS = 2000;
/** The other mechanism measured: no ready notes, checkpoints 8× as often as the default. */
const FAST_CHECKPOINT_MS = 250;
const RETRY_MS = 50;

interface Scenario {
  readonly run: number;
  readonly mode: Mode;
  /** `single` (median of the singles), `at once`, `back to back`. */
  readonly scenario: 'single' | 'at once' | 'back to back';
  /** From asking to the last 200, ms. */
  readonly ms: number;
  /** Payments answered 200 (of those asked). */
  readonly paid: number;
  readonly asked: number;
  /** With ready notes: from the deposit in a checkpoint to the keeper's notes ready, ms. */
  readonly prepareMs: number | null;
  /** The singles' own times (single only). */
  readonly samples?: readonly number[];
  /** CPU while the clock ran, ms: this process (the payer's proofs, the merchants) and the service. */
  readonly cpu: { readonly payerAndMerchantsMs: number; readonly serviceMs: number };
  readonly load: number;
}

/** Whether a payment failed only because no note is spendable yet (retry after a checkpoint). */
function waitable(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof InsufficientFundsError || e instanceof WalletBehindError) return true;
    if (/can spend|not in a checkpoint|InsufficientFunds|WalletBehind/.test(e.message)) return true;
  }
  return false;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** One service (its checkpoint cadence) with its eight merchants. */
interface Deployment {
  readonly checkpointMs: number;
  readonly service: ServiceProcess;
  readonly poolUrl: string;
  readonly operator: PoolNodeClient;
  readonly merchants: Merchant[];
  readonly dataDir: string;
}

async function deploy(core: PrivStarkCore, checkpointMs: number): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-ready-notes-'));
  const service = await startService({
    dataDir,
    poolNode: true,
    env: { API_KEYS: API_KEY, CHECKPOINT_INTERVAL_MS: String(checkpointMs) },
  });
  const poolUrl = service.poolNodeUrl!;
  const merchants: Merchant[] = [];
  for (let i = 0; i < AT_ONCE; i++) {
    const owner = await Wallet.create({ core, pool: poolUrl });
    merchants.push(await expressMerchant(service.url, owner.address));
  }
  const operator = new PoolNodeClient(poolUrl, { token: OPERATOR_TOKEN });
  return { checkpointMs, service, poolUrl, operator, merchants, dataDir };
}

async function undeploy(d: Deployment): Promise<void> {
  for (const m of d.merchants) await m.close();
  await stopService(d.service);
  rmSync(d.dataDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const core: PrivStarkCore = await loadCore();
  const deployments: Deployment[] = [];
  try {
    const standard = await deploy(core, DEFAULT_CHECKPOINT_MS);
    deployments.push(standard);
    const fast = await deploy(core, FAST_CHECKPOINT_MS);
    deployments.push(fast);
    const deploymentOf = (mode: Mode) => (mode === 'fast checkpoints' ? fast : standard);
    const url = (d: Deployment, i: number) => `${d.merchants[i % d.merchants.length]!.url}/weather`;

    /** CPU of this process and of the service from now to `read()`. */
    function cpuMeter(d: Deployment) {
      const own = ownCpuMs();
      const svc = processCpuMs(d.service.pid);
      return {
        read: () => ({
          payerAndMerchantsMs: ownCpuMs() - own,
          serviceMs: processCpuMs(d.service.pid) - svc,
        }),
      };
    }

    /** A wallet funded by one deposit, synced once a checkpoint covers it. */
    async function funded(d: Deployment): Promise<Wallet> {
      const wallet = await Wallet.create({ core, pool: d.poolUrl });
      const ticket = await wallet.depositTicket(DEPOSIT);
      const { index } = await d.operator.deposit(ticket.amount, ticket.pre);
      // The public log shows the deposit once a checkpoint covers its leaf.
      for (;;) {
        const state = await d.operator.state();
        if ((state.checkpoint?.size ?? 0) > index) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await wallet.sync();
      return wallet;
    }

    /** A funded wallet for `mode`: with ready notes, its keeper too, once the notes are ready. */
    async function prepared(mode: Mode): Promise<{
      wallet: Wallet;
      keeper: ReadyNotesKeeper | null;
      prepareMs: number | null;
    }> {
      const wallet = await funded(deploymentOf(mode));
      if (mode !== 'ready notes') return { wallet, keeper: null, prepareMs: null };
      const errors: unknown[] = [];
      const started = performance.now();
      const keeper = new ReadyNotesKeeper(wallet, TARGET, {
        onError: (e) => errors.push(e),
      }).start();
      await keeper.whenReady(60_000);
      if (errors.length > 0) log(`keeper errors while preparing: ${String(errors[0])}`);
      return { wallet, keeper, prepareMs: performance.now() - started };
    }

    /** One payment; without ready notes it waits (sync, retry) until a note is spendable. */
    async function payOnce(wallet: Wallet, pay: typeof fetch, target: string): Promise<boolean> {
      for (;;) {
        try {
          const response = await pay(target);
          await response.arrayBuffer();
          return response.status === 200;
        } catch (error) {
          if (!waitable(error)) throw error;
          await new Promise((r) => setTimeout(r, RETRY_MS));
          await wallet.sync();
        }
      }
    }

    const results: Scenario[] = [];
    for (let run = 1; run <= RUNS; run++) {
      for (const mode of MODES) {
        const d = deploymentOf(mode);
        // Singles: one payment asked at a time (with ready notes, each from a ready note).
        {
          const { wallet, keeper, prepareMs } = await prepared(mode);
          const pay = payingFetch(wallet);
          const samples: number[] = [];
          let paid = 0;
          const cpu = cpuMeter(d);
          const count = mode === 'ready notes' ? SINGLES : 1;
          for (let i = 0; i < count; i++) {
            if (keeper) await keeper.whenReady(60_000);
            const started = performance.now();
            if (await payOnce(wallet, pay, url(d, i))) paid++;
            samples.push(performance.now() - started);
          }
          await keeper?.stop();
          results.push({
            run,
            mode,
            scenario: 'single',
            ms: median(samples),
            paid,
            asked: count,
            prepareMs,
            samples,
            cpu: cpu.read(),
            load: loadavg()[0]!,
          });
          log(
            `run ${run} ${mode}: one payment ${median(samples).toFixed(0)} ms (median of ${count})`,
          );
        }
        // Eight at once.
        {
          const { wallet, keeper, prepareMs } = await prepared(mode);
          const pay = payingFetch(wallet);
          const cpu = cpuMeter(d);
          const started = performance.now();
          const paid = await Promise.all(
            Array.from({ length: AT_ONCE }, (_, i) => payOnce(wallet, pay, url(d, i))),
          );
          const ms = performance.now() - started;
          const used = cpu.read();
          await keeper?.stop();
          results.push({
            run,
            mode,
            scenario: 'at once',
            cpu: used,
            ms,
            paid: paid.filter(Boolean).length,
            asked: AT_ONCE,
            prepareMs,
            load: loadavg()[0]!,
          });
          log(`run ${run} ${mode}: ${AT_ONCE} at once ${ms.toFixed(0)} ms`);
        }
        // Ten back to back.
        {
          const { wallet, keeper, prepareMs } = await prepared(mode);
          const pay = payingFetch(wallet);
          const cpu = cpuMeter(d);
          const started = performance.now();
          let paid = 0;
          for (let i = 0; i < BACK_TO_BACK; i++) if (await payOnce(wallet, pay, url(d, i))) paid++;
          const ms = performance.now() - started;
          const used = cpu.read();
          await keeper?.stop();
          results.push({
            run,
            mode,
            scenario: 'back to back',
            cpu: used,
            ms,
            paid,
            asked: BACK_TO_BACK,
            prepareMs,
            load: loadavg()[0]!,
          });
          log(`run ${run} ${mode}: ${BACK_TO_BACK} back to back ${ms.toFixed(0)} ms`);
        }
      }
    }

    const of = (mode: Mode, scenario: Scenario['scenario']) =>
      results.filter((r) => r.mode === mode && r.scenario === scenario);
    const summary = Object.fromEntries(
      MODES.map((mode) => {
        const single = median(of(mode, 'single').map((r) => r.ms));
        const atOnce = median(of(mode, 'at once').map((r) => r.ms));
        const backToBack = median(of(mode, 'back to back').map((r) => r.ms));
        const allPaid = results.filter((r) => r.mode === mode).every((r) => r.paid === r.asked);
        const prepare = results
          .filter((r) => r.mode === mode && r.prepareMs !== null)
          .map((r) => r.prepareMs!);
        return [
          mode,
          {
            singleMs: single,
            atOnceMs: atOnce,
            atOnceOverSingle: atOnce / single,
            backToBackMs: backToBack,
            allPaid,
            prepareMedianMs: prepare.length > 0 ? median(prepare) : null,
          },
        ];
      }),
    ) as Record<
      Mode,
      {
        singleMs: number;
        atOnceMs: number;
        atOnceOverSingle: number;
        backToBackMs: number;
        allPaid: boolean;
        prepareMedianMs: number | null;
      }
    >;
    const ready = summary['ready notes'];
    const budgets = {
      [`${AT_ONCE} payments at once from one deposit all settle in ≤ ${AT_ONCE_BUDGET_RATIO}× one`]:
        ready.allPaid && ready.atOnceOverSingle <= AT_ONCE_BUDGET_RATIO,
      [`${BACK_TO_BACK} back-to-back payments from one deposit in < ${BACK_TO_BACK_BUDGET_MS / 1000} s`]:
        ready.allPaid && ready.backToBackMs < BACK_TO_BACK_BUDGET_MS,
    };
    const json = {
      environment: environment(),
      checkpointIntervalMs: DEFAULT_CHECKPOINT_MS,
      fastCheckpointIntervalMs: FAST_CHECKPOINT_MS,
      deposit: DEPOSIT,
      target: { count: TARGET.count, value: TARGET.value.toString() },
      atOnce: AT_ONCE,
      backToBack: BACK_TO_BACK,
      budgets: { atOnceRatio: AT_ONCE_BUDGET_RATIO, backToBackMs: BACK_TO_BACK_BUDGET_MS },
      summary,
      verdicts: budgets,
      results,
    };
    const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const md = [
      '## Ready notes: parallel and back-to-back payments from one deposit',
      '',
      `With ready notes: one payment ${ready.singleMs.toFixed(0)} ms (median), **${AT_ONCE} at once ${fmt(ready.atOnceMs)}** (${ready.atOnceOverSingle.toFixed(2)}× one), **${BACK_TO_BACK} back to back ${fmt(ready.backToBackMs)}**; the keeper made its ${TARGET.count} notes in ${fmt(ready.prepareMedianMs ?? 0)} (median, in the background before the clock starts).`,
      '',
      `Without (one note pays once per checkpoint): one payment ${summary.without.singleMs.toFixed(0)} ms, ${AT_ONCE} at once ${fmt(summary.without.atOnceMs)} (${summary.without.atOnceOverSingle.toFixed(1)}× one), ${BACK_TO_BACK} back to back ${fmt(summary.without.backToBackMs)}.`,
      '',
      `Fast checkpoints instead (every ${FAST_CHECKPOINT_MS} ms, no ready notes): one payment ${summary['fast checkpoints'].singleMs.toFixed(0)} ms, ${AT_ONCE} at once ${fmt(summary['fast checkpoints'].atOnceMs)} (${summary['fast checkpoints'].atOnceOverSingle.toFixed(1)}× one), ${BACK_TO_BACK} back to back ${fmt(summary['fast checkpoints'].backToBackMs)}.`,
      '',
      ...Object.entries(budgets).map(([name, met]) => `- ${met ? 'met' : 'MISSED'}: ${name}`),
      '',
      '| run | mode | scenario | time | paid | ready notes made in | CPU: payer + merchants / service | load avg |',
      '|---:|---|---|---:|---:|---:|---:|---:|',
      ...results.map(
        (r) =>
          `| ${r.run} | ${r.mode} | ${r.scenario}${r.scenario === 'single' ? ` (median of ${r.asked})` : ''} | ${r.ms.toFixed(0)} ms | ${r.paid}/${r.asked} | ${r.prepareMs === null ? '—' : fmt(r.prepareMs)} | ${r.cpu.payerAndMerchantsMs.toFixed(0)} / ${r.cpu.serviceMs.toFixed(0)} ms${r.scenario === 'single' ? ' (all singles)' : ''} | ${r.load.toFixed(2)} |`,
      ),
      '',
      `- \`priv-stark start\` in its own process (embedded SQLite, the pool node, checkpoints every ${DEFAULT_CHECKPOINT_MS} ms), ${AT_ONCE} merchants on stock @x402/express in the bench process, payments through \`payingFetch\` (compact: proof, hand-over, /verify, /settle), each wallet funded by one deposit of ${DEPOSIT} in a checkpoint before the clock starts. Ready notes: ReadyNotesKeeper with ${TARGET.count} notes of ${TARGET.value}, its default 500 ms round; the clock starts once they are ready. Without, and with fast checkpoints (a second service with CHECKPOINT_INTERVAL_MS=${FAST_CHECKPOINT_MS}, no ready notes): a payment that finds no spendable note syncs and retries every ${RETRY_MS} ms. ${RUNS} rounds of every scenario; figures are medians over the rounds.`,
      `- Node ${process.version}; load average (1 min) ${Math.min(...results.map((r) => r.load)).toFixed(2)}–${Math.max(...results.map((r) => r.load)).toFixed(2)} at the ends of the scenarios.`,
    ].join('\n');
    await writeResults('ready-notes', json, md);
    log(md);
  } finally {
    for (const d of deployments) await undeploy(d);
  }
}

await main();
