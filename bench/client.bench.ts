// The client side: wallet sync of 100,000 leaves (and as many deposit events) from a pool node on
// loopback, proof building (note selection, path from the local tree, proof, pending record), and
// the full paid request round trip (stock @x402/fetch → stock @x402/express merchant → facilitator
// → pool, upfront flow) with the native backend.
//
// Run: npx tsx bench/client.bench.ts → bench/results/client.json and client.md.
// Knobs: CLIENT_BENCH_LEAVES (100000), CLIENT_BENCH_PAYMENTS (50).
// Budgets (issue 6): full paid request p50 ≤ 150 ms; sync of 100,000 leaves ≤ 5 s.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { payingFetch, Wallet } from '../src/client/index.js';
import { loadCore, randomDigest } from '../src/core/index.js';
import { SERVICE_DEFAULTS, startService } from '../src/service/index.js';
import { NO_EPOCH_GRID } from '../src/scheme/index.js';
import { expressMerchant, startStack } from '../testkit/stack.js';
import { environment, writeResults } from './report.js';

const LEAVES = Number(process.env.CLIENT_BENCH_LEAVES ?? 100_000);
const PAYMENTS = Number(process.env.CLIENT_BENCH_PAYMENTS ?? 50);
const log = (text: string) => process.stderr.write(`[bench:client] ${text}\n`);
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0;

async function syncBench(core: Awaited<ReturnType<typeof loadCore>>) {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-client-bench-'));
  // The pool node as `priv-stark pool serve` runs it; the leaves go straight into its store.
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
  try {
    log(`appending ${LEAVES} deposits`);
    for (let done = 0; done < LEAVES; ) {
      const n = Math.min(4096, LEAVES - done);
      await service.ledger.store.apply(
        Array.from({ length: n }, () => ({
          kind: 'deposit' as const,
          amount: '1000',
          commitment: randomDigest(),
        })),
        Date.now(),
      );
      done += n;
    }
    await service.ledger.checkpoint();
    const url = service.poolNodeUrl!;
    const runs: number[] = [];
    for (let run = 0; run < 3; run++) {
      const wallet = await Wallet.create({ core, pool: url });
      const started = performance.now();
      const report = await wallet.sync();
      runs.push(performance.now() - started);
      if (report.leaves !== LEAVES) throw new Error(`synced ${report.leaves} leaves`);
      log(`sync run ${run + 1}: ${runs.at(-1)!.toFixed(0)} ms`);
    }
    return { leaves: LEAVES, events: LEAVES, medianMs: quantile(runs, 0.5), runsMs: runs };
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function paymentBench(core: Awaited<ReturnType<typeof loadCore>>) {
  const stack = await startStack(core);
  try {
    const merchantWallet = await stack.wallet();
    const merchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address);
    const payer = await stack.wallet();
    log(`funding ${PAYMENTS * 2 + 5} notes`);
    for (let i = 0; i < PAYMENTS * 2 + 5; i++) {
      const ticket = await payer.depositTicket('1000000');
      await stack.operator.deposit(ticket.amount, ticket.pre);
      // At most DEPOSIT_GAP tickets open: seen once a checkpoint publishes the deposit.
      await stack.settle(payer);
    }
    await stack.settle(payer);
    const requirements = {
      scheme: 'priv-stark/v1',
      network: 'shielded:devnet',
      asset: 'dUSD',
      amount: '10000',
      payTo: merchantWallet.address,
      maxTimeoutSeconds: 300,
      extra: { resourceId: 'bench' },
    };
    const proving: number[] = [];
    for (let i = 0; i < PAYMENTS; i++) {
      const started = performance.now();
      await payer.createPayment(requirements);
      proving.push(performance.now() - started);
    }
    const pay = payingFetch(payer);
    for (let i = 0; i < 3; i++) await (await pay(`${merchant.url}/weather`)).text(); // warm-up
    const roundTrips: number[] = [];
    for (let i = 0; i < PAYMENTS - 3; i++) {
      const started = performance.now();
      const response = await pay(`${merchant.url}/weather`);
      await response.text();
      roundTrips.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`paid request answered ${response.status}`);
    }
    await merchant.close();
    return {
      backend: core.backend,
      proofBuilding: {
        samples: proving.length,
        p50Ms: quantile(proving, 0.5),
        p99Ms: quantile(proving, 0.99),
      },
      paidRequest: {
        samples: roundTrips.length,
        p50Ms: quantile(roundTrips, 0.5),
        p99Ms: quantile(roundTrips, 0.99),
      },
    };
  } finally {
    await stack.close();
  }
}

const core = await loadCore();
const sync = await syncBench(core);
const payments = await paymentBench(core);
const budgets = {
  'full paid request p50 ≤ 150 ms (native)': payments.paidRequest.p50Ms <= 150,
  [`sync of ${LEAVES} leaves ≤ 5 s`]: sync.medianMs <= 5000,
};
const md = [
  '## Client (wallet, scheme client, paid request)',
  '',
  `backend: ${core.backend}; ${JSON.stringify(environment())}`,
  '',
  '| measurement | p50 | p99 | samples |',
  '|---|---:|---:|---:|',
  `| wallet sync, ${sync.leaves} leaves + ${sync.events} deposit events | ${sync.medianMs.toFixed(0)} ms | – | ${sync.runsMs.length} |`,
  `| proof building (select, path, prove, pending record) | ${payments.proofBuilding.p50Ms.toFixed(0)} ms | ${payments.proofBuilding.p99Ms.toFixed(0)} ms | ${payments.proofBuilding.samples} |`,
  `| full paid request (402, prove, pay, settle, 200) | ${payments.paidRequest.p50Ms.toFixed(0)} ms | ${payments.paidRequest.p99Ms.toFixed(0)} ms | ${payments.paidRequest.samples} |`,
  '',
  ...Object.entries(budgets).map(([name, met]) => `- ${met ? 'met' : 'MISSED'}: ${name}`),
].join('\n');
await writeResults('client', { environment: environment(), sync, payments, budgets }, md);
process.stdout.write(`${md}\n`);
