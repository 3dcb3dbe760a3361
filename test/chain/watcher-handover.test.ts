// Two identical pool nodes — `priv-stark pool serve` in processes of their own, as an operator
// runs them — on one PostgreSQL database (a throwaway cluster) and one escrow on the shared node,
// each with the same acceptor key: only the holder of the deposit watcher's lease acts. The holder
// is killed with kill -9 mid-work, right after sending an acceptance and before recording it
// (watcher:after-accept), with another deposit pending; the other takes the lease over within
// 30 s (the lease's time to live made short by configuration, CHAIN_WATCHER_LEASE_TTL_MS), reads
// the acceptance back from the chain and goes on: each deposit accepted by one transaction and
// shielded once, the acceptor's nonces with no duplicate and no gap.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { loadCore } from '../../src/core/index.js';
import { noteCommitment, openDepositWatch, openStore } from '../../src/ledger/index.js';
import { minedFrom } from '../../testkit/chain.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../../testkit/postgres.js';
import { chainArgs, type PoolProcess, poolProcess } from './pool-process.js';
import {
  depositDirect,
  depositor,
  type EscrowFixture,
  escrowFixture,
  sharedChain,
  tickets,
} from './shared.js';
import { acceptorKey } from './watcher-harness.js';

/** Confirmations before a deposit is decided and before its acceptance is shielded. */
const N = 2;
/** The watcher's lease: the longest hand-over, polls every 100 ms renewing it. */
const LEASE_TTL_MS = 3000;

const message = (text: string) => (line: Record<string, unknown>) => line.msg === text;
const ACTIVE = 'deposit watcher active (lease taken)';

/** Resolves once `check` holds, checking every 50 ms; fails after a minute (a hang guard). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(postgresAvailable() || process.env.CI)(
  'two pool nodes on one PostgreSQL: the deposit watcher’s lease',
  () => {
    let postgres: TestPostgres | undefined;
    const nodes: PoolProcess[] = [];
    const dirs: string[] = [];

    beforeAll(async () => {
      postgres = await startTestPostgres();
    });
    afterAll(async () => {
      for (const node of nodes) if (node.child.exitCode === null) node.child.kill('SIGKILL');
      await Promise.all(nodes.map((node) => node.exited));
      await postgres?.stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    /** One pool node over `databaseUrl`, its watcher polling every 100 ms. */
    function node(f: EscrowFixture, keyFile: string, databaseUrl: string, failpoint = '') {
      const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-watcher-handover-'));
      dirs.push(dataDir);
      const args = ['--port', '0', '--data-dir', dataDir, '--database-url', databaseUrl];
      args.push('--confirmations', String(N));
      const started = poolProcess(
        [...args, ...chainArgs(f.chain.url, f.escrow, [`acceptor=${keyFile}`])],
        {
          PRIV_STARK_FAILPOINT: failpoint,
          CHAIN_POLL_INTERVAL_MS: '100',
          CHAIN_WATCHER_LEASE_TTL_MS: String(LEASE_TTL_MS),
          POOL_OPERATOR_TOKEN: 'watcher-handover-operator-token-01',
          LOG_LEVEL: 'info',
        },
      );
      nodes.push(started);
      return started;
    }

    it('the holder killed with kill -9 after sending an acceptance: the other takes over within 30 s, nothing twice, no nonce skipped', async () => {
      const chain = sharedChain();
      const core = await loadCore();
      const f = await escrowFixture(chain);
      const acceptor = await acceptorKey(f);
      const databaseUrl = await postgres!.newDatabase();
      // The first takes the lease (while the deposits' tickets are made), then the second
      // stands by; both are up before anything is paid in.
      const first = node(f, acceptor.file, databaseUrl, 'watcher:after-accept');
      const amounts = [51_000n, 52_000n, 53_000n];
      const paid = await tickets(amounts);
      const payers = [];
      for (const amount of amounts) payers.push(await depositor(f, amount));
      await until(
        async () => ((await first.health()).chain as { active: boolean }).active,
        'the first node to take the lease',
      );
      const second = node(f, acceptor.file, databaseUrl);
      await second.waitFor(message('deposit watcher standing by'), 'the second to stand by');

      // Two deposits: the holder accepts what is final (one or both: each transaction is a
      // block) and dies before recording it.
      for (const i of [0, 1]) await depositDirect(f, payers[i]!, amounts[i]!, paid[i]!.pre);
      await chain.test.mine({ blocks: N });
      expect(await first.exited, first.output()).toBe('SIGKILL');
      const diedAt = Date.now();
      expect(first.lines.some(message('acceptance sent'))).toBe(false);
      expect(second.lines.some(message(ACTIVE))).toBe(false);
      // A third, pending while the lease is held by no one alive.
      await depositDirect(f, payers[2]!, amounts[2]!, paid[2]!.pre);
      await chain.test.mine({ blocks: N });

      await second.waitFor(message(ACTIVE), 'the second node to take the lease over', 30_000);
      const handOverMs = Date.now() - diedAt;
      expect(handOverMs).toBeLessThan(30_000);
      // It reads the first's acceptance back from the chain, accepts the rest and shields all
      // three once final (blocks mined here while it has nothing unmined).
      const shielded = () => second.lines.filter(message('deposit shielded')).length;
      await until(async () => {
        if (shielded() >= 3) return true;
        await minedFrom(chain, acceptor.address);
        await chain.test.mine({ blocks: 1 });
        return false;
      }, 'the three deposits shielded');
      expect(await second.stop()).toBe(0);

      // On chain: each deposit accepted once; the acceptor's transactions are its nonces 0..n-1,
      // each one accepting (a second acceptance of a deposit would revert and take a nonce), the
      // first's — nonce 0, sent before the kill and never recorded — and the second's after it.
      const accepted = await chain.public.getContractEvents({
        address: f.escrow,
        abi: privStarkEscrowAbi,
        eventName: 'Accepted',
        fromBlock: 0n,
      });
      expect(accepted.map((e) => e.args.index).sort()).toEqual([0n, 1n, 2n]);
      const hashes = [...new Set(accepted.map((e) => e.transactionHash))];
      const transactions = await Promise.all(
        hashes.map((hash) => chain.public.getTransaction({ hash })),
      );
      for (const t of transactions) expect(getAddress(t.from)).toBe(getAddress(acceptor.address));
      const sent = await chain.public.getTransactionCount({ address: acceptor.address as Hex });
      expect(transactions.map((t) => t.nonce).sort((a, b) => a - b)).toEqual([
        ...Array(sent).keys(),
      ]);
      const bySecond = second.lines.filter(message('acceptance sent'));
      const byFirst = transactions.filter((t) => !bySecond.some((l) => l.tx === t.hash));
      expect(byFirst.map((t) => t.nonce)).toEqual([0]);
      expect(bySecond).toHaveLength(sent - 1);
      const acceptedByFirst = accepted.filter((e) => e.transactionHash === byFirst[0]!.hash);
      expect(bySecond.reduce((n, l) => n + (l.accepted as number), 0)).toBe(
        3 - acceptedByFirst.length,
      );
      expect(shielded()).toBe(3);

      // In the shared database: three leaves, one per deposit, each once.
      const store = await openStore(core, { databaseUrl });
      const watch = openDepositWatch({ databaseUrl });
      try {
        const notes = paid.map((t) => noteCommitment(core, t.amount, t.pre));
        expect([...(await store.leaves(0, 10))].sort()).toEqual([...notes].sort());
        const [binding] = await watch.bindings();
        expect(await watch.counts(binding!.source)).toMatchObject({
          shielded: 3,
          accepted: 0,
          pending: 0,
        });
      } finally {
        await watch.close();
        await store.close();
      }
      console.log(
        `deposit watcher lease hand-over after kill -9: ${handOverMs} ms (lease ${LEASE_TTL_MS} ms)`,
      );
    });
  },
);
