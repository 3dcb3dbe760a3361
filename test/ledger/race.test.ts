// Races across processes: 200 concurrent transitions over 20 nullifiers from two child processes
// sharing one ledger — one SQLite file, one PostgreSQL — give exactly 20 successes, every other
// one a duplicate reporting the winner's settlement id, and a consistent tree.

import { beforeAll, describe, expect, it } from 'vitest';

import { Ledger, settlementId } from '../../src/ledger/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { startWorker } from '../../testkit/ledger-children.js';
import { ledgerProblems } from './helpers/invariants.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const SPEC = { seed: 'pool-race', notes: 20, variants: 2 };
const PER_NULLIFIER = 10;

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

describe.each(kinds)('race on the %s store', (kind) => {
  const h = storeHarness(kind);
  let fx: Fixtures;

  beforeAll(async () => {
    fx = await fixtures(h.core(), SPEC);
  }, 600_000);

  it('two processes, 200 transitions over 20 nullifiers: exactly 20 settle', async () => {
    const core = h.core();
    const { store, config } = await h.fresh();
    await fundPool(new Ledger({ core, store }), fx);

    // 10 submissions per nullifier alternating its two payments (different proofs, one nullifier),
    // dealt to the two processes so each holds 5 of every nullifier.
    const submissions = Array.from({ length: SPEC.notes * PER_NULLIFIER }, (_, k) => {
      const note = k % SPEC.notes;
      const round = Math.floor(k / SPEC.notes);
      return note * SPEC.variants + (round % SPEC.variants);
    });
    const shares = [
      submissions.filter((_, k) => k % 2 === 0),
      submissions.filter((_, k) => k % 2 === 1),
    ];
    const children = shares.map((payments) =>
      startWorker({ mode: 'race', config, spec: SPEC, payments }),
    );
    await Promise.all(children.map((child) => child.waitFor((line) => line.ready === true)));
    for (const child of children) child.process.stdin!.end('go\n');
    const reports = await Promise.all(
      children.map((child) => child.waitFor((line) => Array.isArray(line.results), 120_000)),
    );
    const exits = await Promise.all(children.map((child) => child.exited));
    expect(
      exits.map((e) => e.code),
      exits.map((e) => e.stderr).join('\n'),
    ).toEqual([0, 0]);

    const results = reports.flatMap(
      (report) =>
        report.results as {
          payment: number;
          ok: boolean;
          reason: string | null;
          settlementId: string | null;
        }[],
    );
    expect(results).toHaveLength(200);
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(SPEC.notes);
    const settledNotes = new Set(winners.map((r) => fx.payments[r.payment]!.index));
    expect(settledNotes.size).toBe(SPEC.notes);
    for (const r of results.filter((x) => !x.ok)) {
      expect(r.reason).toBe('duplicate_settlement');
      expect(r.settlementId).toBe(settlementId(fx.payments[r.payment]!.note.nullifier));
    }
    // the ledger holds exactly 20 settlements, consistently
    const state = await store.state();
    expect(state.size).toBe(SPEC.notes + 2 * SPEC.notes);
    expect(state.events).toBe(SPEC.notes * 2);
    expect(await ledgerProblems(core, store)).toEqual([]);
  }, 300_000);
});
