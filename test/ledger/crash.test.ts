// Crash safety: a child process applying deposits and settlements is killed with SIGKILL in the
// middle of its load, several times, on one ledger. After each restart every acknowledged write is
// present and nothing partial is: the leaves, head, events, nullifiers and checkpoints agree.

import { beforeAll, describe, expect, it } from 'vitest';

import { Ledger } from '../../src/ledger/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { startWorker } from '../../testkit/ledger-children.js';
import { allEvents, ledgerProblems } from './helpers/invariants.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const SPEC = { seed: 'pool-crash', notes: 40 };
const ROUNDS = 4;

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

describe.each(kinds)('SIGKILL on the %s store', (kind) => {
  const h = storeHarness(kind);
  let fx: Fixtures;

  beforeAll(async () => {
    fx = await fixtures(h.core(), SPEC);
  }, 600_000);

  it(`loses no acknowledged write and leaves no partial one, over ${ROUNDS} kills`, async () => {
    const core = h.core();
    const { store, config, open } = await h.fresh();
    await fundPool(new Ledger({ core, store }), fx);
    await store.close();
    const acked = { deposits: new Map<number, string>(), settlements: new Map<string, string>() };
    let killedMidLoad = 0;

    for (let round = 0; round < ROUNDS; round++) {
      // every round offers every payment again: spent ones come back as duplicates
      const payments = fx.payments.map((_, i) => i).sort(() => Math.random() - 0.5);
      const child = startWorker({ mode: 'crash', config, spec: SPEC, payments });
      await child.waitFor((line) => line.ready === true);
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
