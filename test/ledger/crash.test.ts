// Crash safety: a child process applying deposits and settlements is killed with SIGKILL in the
// middle of its load, several times, on one ledger. After each restart every acknowledged write is
// present and nothing partial is: the leaves, head, events, nullifiers and checkpoints agree.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { Ledger, type StoreConfig } from '../../src/ledger/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { type Child, startWorker } from '../../testkit/ledger-children.js';
import { allEvents, ledgerProblems } from './helpers/invariants.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const SPEC = { seed: 'pool-crash', notes: 40 };
const ROUNDS = 4;

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

/** Workers started ahead of their round: killed after each test (a test that failed left one). */
const started: Child[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.process.kill('SIGKILL');
});

/**
 * A worker started now that opens the ledger only when {@link restart} says so. A worker takes
 * about 1.6 s to load (tsx, the source, the core, the fixtures), more than the rest of its round:
 * every round's worker loads from the test's start, side by side, and each still opens the ledger
 * only after the previous kill and its checks, as a restart does.
 */
function ahead(args: {
  mode: 'crash' | 'crash-transitions';
  config: StoreConfig;
  spec: typeof SPEC;
  payments: number[];
}): Child {
  const child = startWorker({ ...args, openOn: 'open' });
  started.push(child);
  return child;
}

/** Lets a worker started {@link ahead} open the ledger; resolves once it is ready for `go`. */
async function restart(child: Child): Promise<void> {
  child.process.stdin!.write('open\n');
  await child.waitFor((line) => line.ready === true);
}

describe.each(kinds)('SIGKILL on the %s store', (kind) => {
  const h = storeHarness(kind);
  let fx: Fixtures;

  beforeAll(async () => {
    fx = await fixtures(h.core(), SPEC);
  }, 600_000);

  it(`loses no acknowledged write and leaves no partial one, over ${ROUNDS} kills`, async () => {
    const core = h.core();
    const { store, config, open } = await h.fresh();
    // every round offers every payment again: spent ones come back as duplicates
    const workers = Array.from({ length: ROUNDS }, () =>
      ahead({
        mode: 'crash',
        config,
        spec: SPEC,
        payments: fx.payments.map((_, i) => i).sort(() => Math.random() - 0.5),
      }),
    );
    await fundPool(new Ledger({ core, store }), fx);
    await store.close();
    const acked = { deposits: new Map<number, string>(), settlements: new Map<string, string>() };
    let killedMidLoad = 0;

    for (let round = 0; round < ROUNDS; round++) {
      const child = workers[round]!;
      await restart(child);
      child.process.stdin!.end('go\n');
      await child.waitFor((line) => typeof line.ack === 'string', 30_000);
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 400));
      const before = child.lines.length;
      child.process.kill('SIGKILL');
      const exit = await child.exited;
      expect(exit.signal, exit.stderr).toBe('SIGKILL');
      if (child.lines.length > 0 && before > 1) killedMidLoad++;
      for (const line of child.lines as {
        ack?: string;
        index?: number;
        commitment?: string;
        nullifier?: string;
        settlementId?: string;
      }[]) {
        if (line.ack === 'deposit') acked.deposits.set(line.index!, line.commitment!);
        if (line.ack === 'settlement') acked.settlements.set(line.nullifier!, line.settlementId!);
      }

      const reopened = await open();
      expect(await ledgerProblems(core, reopened)).toEqual([]);
      const leaves = await reopened.leaves(0, 1_000_000);
      for (const [index, commitment] of acked.deposits)
        expect(leaves[index], `deposit at ${index}`).toBe(commitment);
      for (const [nullifier, id] of acked.settlements)
        expect((await reopened.nullifier(nullifier))?.settlementId).toBe(id);
      // no nullifier row without its settlement event
      const settled = new Set(
        (await allEvents(reopened)).flatMap((e) => (e.kind === 'settlement' ? [e.nullifier] : [])),
      );
      for (const payment of fx.payments) {
        const spent = await reopened.nullifier(payment.note.nullifier);
        expect(spent === null || settled.has(payment.note.nullifier)).toBe(true);
      }
      await reopened.close();
    }
    expect(killedMidLoad).toBe(ROUNDS);
    expect(acked.deposits.size).toBeGreaterThan(ROUNDS);
    expect(acked.settlements.size).toBeGreaterThan(0);
  }, 600_000);
});

describe.each(kinds)('SIGKILL during transitions, exits and payouts on the %s store', (kind) => {
  const h = storeHarness(kind);

  it('loses no acknowledged transition or payout step and leaves no partial one', async () => {
    const core = h.core();
    const { store, config, open } = await h.fresh();
    await store.close();
    const transitions = new Map<string, string>();
    const payouts = new Map<string, string>();
    const workers = Array.from({ length: 3 }, () =>
      ahead({ mode: 'crash-transitions', config, spec: SPEC, payments: [] }),
    );
    for (let round = 0; round < 3; round++) {
      const child = workers[round]!;
      await restart(child);
      child.process.stdin!.end('go\n');
      await child.waitFor((line) => line.ack === 'payout', 30_000);
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 300));
      child.process.kill('SIGKILL');
      const exit = await child.exited;
      expect(exit.signal, exit.stderr).toBe('SIGKILL');
      for (const line of child.lines as {
        ack?: string;
        transitionId?: string;
        nullifier?: string;
        withdrawalId?: string;
        status?: string;
      }[]) {
        if (line.ack === 'transition') transitions.set(line.nullifier!, line.transitionId!);
        if (line.ack === 'payout') payouts.set(line.withdrawalId!, line.status!);
      }
      const reopened = await open();
      expect(await ledgerProblems(core, reopened)).toEqual([]);
      for (const [nullifier, id] of transitions)
        expect((await reopened.nullifier(nullifier))?.settlementId).toBe(id);
      // Every acknowledged step is there (or a later one of the same payout: paying → paid/failed).
      const recorded = new Map(
        (await reopened.withdrawals(0, 100_000)).map((w) => [w.withdrawalId, w.status]),
      );
      for (const [id, status] of payouts) {
        const now = recorded.get(id);
        expect(
          now === status || (status === 'paying' && (now === 'paid' || now === 'failed')),
        ).toBe(true);
      }
      // The head's totals are the log's, after every kill.
      const state = await reopened.state();
      let withdrawn = 0n;
      let refunded = 0n;
      for (const event of await allEvents(reopened)) {
        if (event.kind === 'withdrawal') withdrawn += BigInt(event.amount);
        if (event.kind === 'refund') refunded += BigInt(event.amount);
      }
      let paidOut = 0n;
      for (const w of await reopened.withdrawals(0, 100_000))
        if (w.status === 'paid') paidOut += BigInt(w.amount);
      expect([state.withdrawnTotal, state.refundedTotal, state.paidOutTotal]).toEqual([
        withdrawn.toString(),
        refunded.toString(),
        paidOut.toString(),
      ]);
      await reopened.close();
    }
    expect(transitions.size).toBeGreaterThan(3);
    expect([...payouts.values()]).toContain('failed');
  }, 300_000);
});
