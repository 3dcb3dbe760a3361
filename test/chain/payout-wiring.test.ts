// The payout sender as the service wires it, on the shared node: its settings from the environment
// (defaults, each variable's range refused with its name), an exit paid with the steps and the
// transaction in the log — hashes and nonces, never the signed bytes — and counted in the metrics;
// the payout key's gas below the minimum said once in the log and shown by its gauge; a graceful
// stop giving the lease up so another instance takes it at once.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Hex, parseEther } from 'viem';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chainClients } from '../../src/chain/rpc-client.js';
import { PayoutMetrics } from '../../src/http/payout-metrics.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { Ledger, openStore, type PoolStore } from '../../src/ledger/index.js';
import { openPayoutJournal } from '../../src/ledger/open-payout-journal.js';
import { ServiceConfigError } from '../../src/service/config-error.js';
import {
  PAYOUT_DEFAULTS,
  payoutConfigFromEnv,
  payoutSender,
  type WiredPayouts,
} from '../../src/service/payout-wiring.js';
import { minedFrom } from '../../testkit/chain.js';
import { caip10, fundCustody, seedWithdrawal, tokenBalance } from '../../testkit/payouts.js';
import { CUSTODY, freshAddress } from './payout-harness.js';
import { startRpcProxy } from './rpc-proxy.js';
import { type EscrowFixture, escrowFixture, sharedChain } from './shared.js';

let core: PrivStarkCore;
const dirs: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  core = await loadCore();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('payout settings from the environment', () => {
  it('takes the defaults, or each variable in its range', () => {
    expect(payoutConfigFromEnv({})).toEqual(PAYOUT_DEFAULTS);
    expect(
      payoutConfigFromEnv({
        PAYOUT_MAX_FEE_PER_GAS: '7000000000',
        PAYOUT_DEADLINE_SECONDS: '3600',
        PAYOUT_REPLACE_AFTER_BLOCKS: '5',
        PAYOUT_LEASE_TTL_MS: '20000',
        PAYOUT_POLL_INTERVAL_MS: '500',
      }),
    ).toEqual({
      maxFeePerGas: 7_000_000_000n,
      deadlineSeconds: 3600,
      replaceAfterBlocks: 5,
      leaseTtlMs: 20_000,
      pollIntervalMs: 500,
    });
  });

  it('refuses a value out of range or not an integer, naming the variable', () => {
    for (const [name, value] of [
      ['PAYOUT_MAX_FEE_PER_GAS', '0'],
      ['PAYOUT_MAX_FEE_PER_GAS', '1.5'],
      ['PAYOUT_DEADLINE_SECONDS', '59'],
      ['PAYOUT_REPLACE_AFTER_BLOCKS', 'three'],
      ['PAYOUT_LEASE_TTL_MS', '999'],
      ['PAYOUT_POLL_INTERVAL_MS', '-1'],
    ] as const) {
      const call = () => payoutConfigFromEnv({ [name]: value });
      expect(call).toThrow(ServiceConfigError);
      expect(call).toThrow(name);
    }
  });
});

describe('the wired payout sender', () => {
  async function wired(
    minGasBalance: bigint,
    holder: string,
    store?: { store: PoolStore; dir: string; f: EscrowFixture },
    rpcUrl?: string,
  ) {
    const chain = sharedChain();
    const f = store?.f ?? (await escrowFixture(chain));
    if (!store) await fundCustody(chain, f, CUSTODY);
    const dir = store?.dir ?? mkdtempSync(join(tmpdir(), 'priv-stark-payout-wiring-'));
    if (!store) dirs.push(dir);
    const theStore = store?.store ?? (await openStore(core, { dataDir: dir }));
    if (!store) closers.push(() => theStore.close());
    const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
    const registry = new Registry();
    let sender: WiredPayouts | undefined;
    const metrics = new PayoutMetrics(registry, () => {
      const status = sender!.sender.status();
      return {
        role: status.role,
        waiting: status.waiting,
        gasBalance: status.rail.gasBalance,
        gasLow: status.rail.gasLow,
        lastPassAt: status.lastPassAt,
      };
    });
    sender = payoutSender({
      ledger: new Ledger({ core, store: theStore }),
      account: f.payer,
      client: rpcUrl ? chainClients(rpcUrl).public : chain.public,
      chainId: chain.chainId,
      escrow: f.escrow,
      token: f.token,
      deployBlock: 0,
      finality: { confirmations: 1 },
      minGasBalance,
      storeConfig: { dataDir: dir },
      config: PAYOUT_DEFAULTS,
      log: {
        info: (fields, message) =>
          lines.push({ level: 'info', message, fields: fields as Record<string, unknown> }),
        warn: (fields, message) =>
          lines.push({ level: 'warn', message, fields: fields as Record<string, unknown> }),
      },
      metrics,
      holder,
    });
    closers.push(() => sender!.close());
    return { chain, f, store: theStore, dir, lines, registry, sender };
  }

  it('pays, logs each step with the transaction and no signed bytes, and counts it', async () => {
    const w = await wired(1n, 'logging');
    const to = freshAddress();
    const id = await seedWithdrawal(w.store, caip10(w.chain, to), 321n);
    await w.sender.sender.pass();
    await minedFrom(w.chain, w.f.payer.address);
    await w.sender.sender.pass();
    const journal = openPayoutJournal({ dataDir: w.dir });
    closers.push(() => journal.close());
    const [attempt] = await journal.attempts(w.sender.sender.rail.name, id as Hex);
    const signed = attempt!.transactions[0]!;
    expect(w.lines.map((l) => l.message)).toEqual([
      'payout sender lease',
      'payout step recorded',
      'payout transaction signed and sent',
      'payout step recorded',
    ]);
    expect(w.lines[2]!.fields).toEqual({
      withdrawalId: id,
      nonce: attempt!.nonce,
      hash: signed.hash,
      broadcast: 'sent',
    });
    expect(w.lines[3]!.fields).toEqual({
      withdrawalId: id,
      status: 'paid',
      transaction: signed.hash,
    });
    const text = JSON.stringify(w.lines);
    expect(text).not.toContain(signed.raw.slice(2, 200));
    const exported = await w.registry.metrics();
    expect(exported).toContain('priv_stark_payouts_total{status="paid"} 1');
    expect(exported).toContain('priv_stark_payout_transactions_total{kind="signed"} 1');
    expect(exported).toContain('priv_stark_payout_sender_active 1');
    expect(exported).toContain('priv_stark_payout_gas_low 0');
    expect(exported).toContain('priv_stark_payouts_waiting{wait="in_flight"} 0');
  });

  it('says once that the payout key is below the minimum gas balance, and shows it', async () => {
    const w = await wired(parseEther('1000'), 'poor');
    await seedWithdrawal(w.store, caip10(w.chain, freshAddress()), 5n);
    await w.sender.sender.pass();
    await w.sender.sender.pass();
    const warnings = w.lines.filter((l) => l.level === 'warn');
    expect(warnings).toEqual([
      {
        level: 'warn',
        message:
          'payout key below the minimum gas balance: nothing new is signed until it is topped up',
        fields: { wait: 'gas_low', withdrawals: 1 },
      },
    ]);
    const exported = await w.registry.metrics();
    expect(exported).toContain('priv_stark_payout_gas_low 1');
    expect(exported).toContain('priv_stark_payouts_waiting{wait="gas_low"} 1');
  });

  it('with the RPC down after signing: says so once per failure, records nothing, pays once it is back', async () => {
    const proxy = await startRpcProxy(sharedChain().url);
    closers.push(() => proxy.close());
    const w = await wired(1n, 'outage', undefined, proxy.url);
    const to = freshAddress();
    const id = await seedWithdrawal(w.store, caip10(w.chain, to), 77n);
    await w.sender.sender.pass();
    await minedFrom(w.chain, w.f.payer.address);
    proxy.mode = 'down';
    for (let i = 0; i < 3; i++) await expect(w.sender.sender.pass()).rejects.toThrow();
    proxy.mode = 'garbage';
    await expect(w.sender.sender.pass()).rejects.toThrow();
    expect((await w.store.withdrawals(0, 10)).map((x) => x.status)).toEqual(['paying']);
    proxy.mode = 'pass';
    expect((await w.sender.sender.pass()).decided).toEqual([{ withdrawalId: id, status: 'paid' }]);
    const said = w.lines.map((l) => l.message);
    // Once when it went down (not at each of its three passes), once when it answered garbage.
    expect(said.filter((m) => m.startsWith('payout pass failed'))).toHaveLength(2);
    expect(said).toContain('payout passes resumed');
    expect(await tokenBalance(w.chain, w.f.token, to)).toBe(77n);
  });

  it('gives the lease up when it stops, so another instance takes it at once', async () => {
    const first = await wired(1n, 'stopping');
    await first.sender.sender.pass();
    expect(first.sender.sender.status().role).toBe('active');
    const second = await wired(1n, 'taking', first);
    expect((await second.sender.sender.pass()).role).toBe('standby');
    await first.sender.close();
    expect(first.sender.sender.status().role).toBe('stopped');
    expect((await second.sender.sender.pass()).role).toBe('active');
    expect(second.sender.sender.status().epoch).toBe(2);
  });
});
