// The payout sender killed with kill -9 (its process kills itself at a named crash point:
// payout:before-send, payout:after-send, payout:after-mined) and started again over the same
// SQLite file, on the shared node: each withdrawal paid exactly once, by the bytes signed before
// the crash (no second signature), no nonce serving two payouts — a withdrawal recorded after the
// crash takes the next nonce. Then two identical senders on one PostgreSQL, the lease holder killed
// with kill -9 after it sent a payout: the other takes the lease over within 30 s and pays the rest,
// no payout twice, no nonce twice, nothing signed again for the payout sent before the kill.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { type Address, type Hex, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { openStore, type PoolStore, type StoreConfig } from '../../src/ledger/index.js';
import { openPayoutJournal } from '../../src/ledger/open-payout-journal.js';
import { send } from '../../testkit/chain.js';
import { type Child, startWorker } from '../../testkit/ledger-children.js';
import { caip10, fundCustody, paidEvents, seedWithdrawal } from '../../testkit/payouts.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../../testkit/postgres.js';
import { CUSTODY, freshAddress } from './payout-harness.js';
import { type EscrowFixture, escrowFixture, sharedChain } from './shared.js';

// The sender's process runs the built dist/ (testkit/payout-worker.mjs).
const WORKER = fileURLToPath(new URL('../../testkit/payout-worker.mjs', import.meta.url));

/** What testkit/payout-worker.mjs takes. */
interface PayoutWorkerArgs {
  readonly store: StoreConfig;
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly escrow: Address;
  readonly token: Address;
  readonly holder: string;
  readonly leaseTtlMs: number;
  readonly pollIntervalMs: number;
}

let core: PrivStarkCore;
const dirs: string[] = [];
const stores: PoolStore[] = [];
const children: Child[] = [];

beforeAll(async () => {
  core = await loadCore();
});
afterAll(async () => {
  for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
  await Promise.all(stores.map((s) => s.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The suite's contracts, custody funded, and a payout key of its own whose private key we hold. */
async function contracts(): Promise<{ f: EscrowFixture; key: Hex; payer: Address }> {
  const chain = sharedChain();
  const f = await escrowFixture(chain);
  await fundCustody(chain, f, CUSTODY);
  const key = generatePrivateKey();
  const payer = privateKeyToAccount(key).address;
  await chain.test.setBalance({ address: payer, value: parseEther('10') });
  const escrow = { address: f.escrow, abi: privStarkEscrowAbi };
  const role = await chain.public.readContract({ ...escrow, functionName: 'PAYOUT_ROLE' });
  await send(chain, f.admin, { ...escrow, functionName: 'grantRole', args: [role, payer] });
  return { f, key, payer };
}

function worker(
  f: EscrowFixture,
  key: Hex,
  store: StoreConfig,
  options: { holder: string; failpoint?: string; leaseTtlMs?: number },
): Child {
  const chain = sharedChain();
  const args: PayoutWorkerArgs = {
    store,
    rpcUrl: chain.url,
    chainId: chain.chainId,
    escrow: f.escrow,
    token: f.token,
    holder: options.holder,
    leaseTtlMs: options.leaseTtlMs ?? 3000,
    pollIntervalMs: 100,
  };
  const child = startWorker(args, {
    script: WORKER,
    env: { PAYOUT_WORKER_KEY: key, PRIV_STARK_FAILPOINT: options.failpoint ?? '' },
  });
  children.push(child);
  return child;
}

const recorded = (id: Hex, status: string) => (line: Record<string, unknown>) =>
  line.line === 'payout step recorded' && line.withdrawalId === id && line.status === status;

async function statusOf(store: PoolStore, id: Hex) {
  return (await store.withdrawals(0, 1000)).find((w) => w.withdrawalId === id)?.status ?? null;
}

describe('the payout sender killed with kill -9 and started again', () => {
  it.concurrent.each(['payout:before-send', 'payout:after-send', 'payout:after-mined'])(
    'killed at %s: pays once after a restart, with the bytes signed before the kill',
    async (point) => {
      const chain = sharedChain();
      const { f, key, payer } = await contracts();
      const dir = mkdtempSync(join(tmpdir(), 'priv-stark-payout-crash-'));
      dirs.push(dir);
      const config: StoreConfig = { dataDir: dir };
      const store = await openStore(core, config);
      stores.push(store);
      const to = freshAddress();
      const id = await seedWithdrawal(store, caip10(chain, to), 2_500n);
      const nonceBefore = await chain.public.getTransactionCount({ address: payer });

      const killed = worker(f, key, config, { holder: 'first', failpoint: point });
      expect((await killed.exited).signal).toBe('SIGKILL');
      expect(await statusOf(store, id)).toBe('paying');
      const journal = openPayoutJournal(config);
      const rail = `eip155:${chain.chainId}:${payer}`;
      const [attempt] = await journal.attempts(rail, id);
      expect(attempt?.transactions).toHaveLength(1);
      const signed = attempt!.transactions[0]!;
      const sent = await chain.public
        .getTransaction({ hash: signed.hash as Hex })
        .then(() => true)
        .catch(() => false);
      // Killed before the broadcast, the node never saw it; after, it was sent and mined.
      expect(sent).toBe(point !== 'payout:before-send');

      // Recorded while the sender was down: it must take the next nonce, never the first's.
      const next = await seedWithdrawal(store, caip10(chain, to), 100n);
      const again = worker(f, key, config, { holder: 'second' });
      await again.waitFor(recorded(id, 'paid'));
      await again.waitFor(recorded(next, 'paid'));
      again.process.kill('SIGTERM');
      await again.exited;

      expect(await statusOf(store, id)).toBe('paid');
      expect(await paidEvents(chain, f.escrow, id)).toEqual([
        { to, amount: 2_500n, transactionHash: signed.hash },
      ]);
      const attempts = await journal.attempts(rail, id);
      expect(attempts.map((a) => a.transactions.map((t) => t.raw))).toEqual([[signed.raw]]);
      const [nextAttempt] = await journal.attempts(rail, next);
      expect(nextAttempt?.nonce).toBe(attempt!.nonce + 1);
      expect(await chain.public.getTransactionCount({ address: payer })).toBe(nonceBefore + 2);
      expect(await store.state()).toMatchObject({ paidOutTotal: '2600', refundedTotal: '0' });
      await journal.close();
    },
  );
});

describe.runIf(postgresAvailable() || process.env.CI)(
  'two payout senders on one PostgreSQL',
  () => {
    let postgres: TestPostgres | undefined;
    beforeAll(async () => {
      postgres = await startTestPostgres();
    });
    afterAll(async () => {
      await postgres?.stop();
    });

    it('the lease holder killed with kill -9: the other takes over within 30 s, nothing twice', async () => {
      const chain = sharedChain();
      const { f, key, payer } = await contracts();
      const config: StoreConfig = { databaseUrl: await postgres!.newDatabase() };
      const store = await openStore(core, config);
      stores.push(store);
      const nonceBefore = await chain.public.getTransactionCount({ address: payer });
      // The first takes the lease and the second stands by; then the exits come, and the first
      // dies right after sending its first payout.
      const first = worker(f, key, config, { holder: 'first', failpoint: 'payout:after-send' });
      await first.waitFor((l) => l.line === 'payout sender lease' && l.role === 'active');
      const second = worker(f, key, config, { holder: 'second' });
      await second.waitFor((l) => l.ready === true);
      const targets = [freshAddress(), freshAddress(), freshAddress()];
      const ids: Hex[] = [];
      for (const [i, to] of targets.entries())
        ids.push(await seedWithdrawal(store, caip10(chain, to), BigInt(10_000 + i)));
      const died = await first.exited;
      expect(died.signal).toBe('SIGKILL');
      const diedAt = Date.now();
      expect(second.lines.some((l) => (l as { role?: string }).role === 'active')).toBe(false);
      const took = await second.waitFor(
        (l) => l.line === 'payout sender lease' && l.role === 'active',
        30_000,
      );
      const handOverMs = Date.now() - diedAt;
      expect(handOverMs).toBeLessThan(30_000);
      expect(took.epoch).toBe(2);
      for (const id of ids) await second.waitFor(recorded(id, 'paid'));
      second.process.kill('SIGTERM');
      await second.exited;

      const journal = openPayoutJournal(config);
      const rail = `eip155:${chain.chainId}:${payer}`;
      const nonces: number[] = [];
      for (const [i, id] of ids.entries()) {
        expect(await paidEvents(chain, f.escrow, id)).toEqual([
          expect.objectContaining({ to: targets[i], amount: BigInt(10_000 + i) }),
        ]);
        const attempts = await journal.attempts(rail, id);
        expect(attempts).toHaveLength(1);
        expect(attempts[0]!.transactions).toHaveLength(1);
        nonces.push(attempts[0]!.nonce);
      }
      expect(nonces).toEqual([nonceBefore, nonceBefore + 1, nonceBefore + 2]);
      expect(await chain.public.getTransactionCount({ address: payer })).toBe(nonceBefore + 3);
      expect(await store.state()).toMatchObject({ paidOutTotal: '30003' });
      await journal.close();
      console.log(`payout lease hand-over after kill -9: ${handOverMs} ms (lease 3 s)`);
    });
  },
);
