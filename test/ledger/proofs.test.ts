// The store's handed-over proofs (compact payments), on the embedded SQLite store and a real
// PostgreSQL 15, through the one PoolStore interface: kept and read back, the same reference kept
// once, an expired reference kept again, the per-nullifier and total limits, a spent nullifier
// refused, a settlement dropping its nullifier's proofs in its own commit (also when the hand-over
// is in the same group: PostgreSQL's data-modifying CTEs do not see each other's rows), pruning,
// the head's row count, all-or-nothing groups; then random sequences against a model.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { type DigestHex, randomDigest } from '../../src/core/index.js';
import {
  type HandOverOp,
  type PoolStore,
  PoolUnavailableError,
  type StoreOp,
  type StoreOpResult,
} from '../../src/ledger/index.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { ledgerProblems, storedProofRows } from './helpers/invariants.js';
import { depositOp, handOverOp, settlementOp } from './helpers/ops.js';
import { failingTrigger, rawSql } from './helpers/raw-sql.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const NOW = 1_800_000_000_000;

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

/** What a result says, in one word: `stored`, `kept` (stored before), `ok`, or the reason. */
function outcome(result: StoreOpResult | undefined): string {
  if (!result) return 'missing';
  if (!result.ok) return result.reason;
  if (result.kind === 'handover') return result.stored ? 'stored' : 'kept';
  return 'ok';
}

/** The stored row of `op` as `handedOver` returns it. */
function rowOf(op: HandOverOp, expiresAt = op.expiresAt) {
  return {
    reference: op.reference,
    parameterSet: op.parameterSet,
    root: op.root,
    nullifier: op.nullifier,
    change: op.change,
    amount: op.amount,
    ctx: op.ctx,
    expiresAt,
  };
}

describe.each(kinds)('%s store: handed-over proofs', (kind) => {
  const h = storeHarness(kind);

  it('keeps a handed-over proof and reads it back by its reference (and nothing for another)', async () => {
    const { store } = await h.fresh();
    const op = handOverOp({ expiresAt: NOW + 60_000, parameterSet: 2 });
    expect(await store.apply([op], NOW)).toEqual([
      {
        ok: true,
        kind: 'handover',
        reference: op.reference,
        expiresAt: NOW + 60_000,
        stored: true,
      },
    ]);
    expect(await store.handedOver(op.reference)).toEqual(rowOf(op));
    expect(await store.handedOver(randomDigest())).toBeNull();
    expect(await store.proofCount()).toBe(1);
    // a hand-over is no event and no leaf
    expect(await store.state()).toMatchObject({ size: 0, events: 0 });
    // the must-fail twin: a store that never saw it
    const { store: other } = await h.fresh();
    expect(await other.handedOver(op.reference)).toBeNull();
    expect(await other.proofCount()).toBe(0);
    expect(await ledgerProblems(h.core(), store)).toEqual([]);
  });

  it('keeps a reference once: handing it over again answers the first expiry, stored: false — also within one group', async () => {
    const { store } = await h.fresh();
    const op = handOverOp({ expiresAt: NOW + 60_000 });
    await store.apply([op], NOW);
    const again = { ...op, expiresAt: NOW + 90_000 };
    expect(await store.apply([again], NOW + 1000)).toEqual([
      {
        ok: true,
        kind: 'handover',
        reference: op.reference,
        expiresAt: NOW + 60_000,
        stored: false,
      },
    ]);
    expect(await store.handedOver(op.reference)).toEqual(rowOf(op));
    expect(await store.proofCount()).toBe(1);
    const fresh = handOverOp({ expiresAt: NOW + 5000 });
    const results = await store.apply([fresh, { ...fresh, expiresAt: NOW + 7000 }, fresh], NOW);
    expect(results.map(outcome)).toEqual(['stored', 'kept', 'kept']);
    expect(results.map((r) => r.ok && r.kind === 'handover' && r.expiresAt)).toEqual([
      NOW + 5000,
      NOW + 5000,
      NOW + 5000,
    ]);
    expect(await store.proofCount()).toBe(2);
    expect(await ledgerProblems(h.core(), store)).toEqual([]);
  });

  it('keeps an expired reference again (not pruned yet) with its new time, without counting it twice', async () => {
    const { store } = await h.fresh();
    const op = handOverOp({ expiresAt: NOW + 10 });
    await store.apply([op], NOW);
    // the must-fail twin: one ms before its time it is still the stored one
    expect((await store.apply([{ ...op, expiresAt: NOW + 500 }], NOW + 9)).map(outcome)).toEqual([
      'kept',
    ]);
    const results = await store.apply([{ ...op, expiresAt: NOW + 1000 }], NOW + 10);
    expect(results).toEqual([
      { ok: true, kind: 'handover', reference: op.reference, expiresAt: NOW + 1000, stored: true },
    ]);
    expect(await store.handedOver(op.reference)).toEqual(rowOf(op, NOW + 1000));
    expect(await store.proofCount()).toBe(1);
    // kept again and then handed over again in one group: one row, the first new time
    const late = handOverOp({ expiresAt: NOW + 20 });
    await store.apply([late], NOW);
    const group = await store.apply(
      [
        { ...late, expiresAt: NOW + 2000 },
        { ...late, expiresAt: NOW + 3000 },
      ],
      NOW + 50,
    );
    expect(group.map(outcome)).toEqual(['stored', 'kept']);
    expect((await store.handedOver(late.reference))?.expiresAt).toBe(NOW + 2000);
    expect(await store.proofCount()).toBe(2);
    // a reference already past its time when its group commits, twice in that group, beside
    // another op: one row, and the group is not lost (PostgreSQL's upsert cannot touch a row twice)
    const stale = handOverOp({ expiresAt: NOW + 50 });
    const bystander = handOverOp();
    const twice = await store.apply([stale, stale, bystander], NOW + 50);
    expect(twice.map(outcome)).toEqual(['stored', 'stored', 'stored']);
    expect(await store.handedOver(bystander.reference)).toEqual(rowOf(bystander));
    expect(await store.proofCount()).toBe(4);
    expect(await ledgerProblems(h.core(), store)).toEqual([]);
  });

  it('refuses a third proof of one nullifier (too_many_proofs), across groups and within one; other nullifiers unaffected', async () => {
    const { store } = await h.fresh();
    const nullifier = randomDigest();
    const [a, b, c] = [0, 1, 2].map(() => handOverOp({ nullifier }));
    expect((await store.apply([a!], NOW)).map(outcome)).toEqual(['stored']);
    expect((await store.apply([b!], NOW)).map(outcome)).toEqual(['stored']);
    expect((await store.apply([c!], NOW)).map(outcome)).toEqual(['too_many_proofs']);
    expect(await store.handedOver(c!.reference)).toBeNull();
    // a stored one handed over again is no new proof
    expect((await store.apply([a!], NOW)).map(outcome)).toEqual(['kept']);
    const other = randomDigest();
    const group = [0, 1, 2].map(() => handOverOp({ nullifier: other }));
    const mixed = await store.apply([...group, handOverOp()], NOW);
    expect(mixed.map(outcome)).toEqual(['stored', 'stored', 'too_many_proofs', 'stored']);
    expect(await store.handedOver(group[2]!.reference)).toBeNull();
    expect(await store.proofCount()).toBe(5);
    // the limit is the op's: a larger one takes the third
    expect((await store.apply([{ ...c!, perNullifier: 3 }], NOW)).map(outcome)).toEqual(['stored']);
    expect(await ledgerProblems(h.core(), store)).toEqual([]);
  });

  it('refuses a proof past the capacity (proof_store_full), within one group too; the per-nullifier limit is answered first', async () => {
    const { store } = await h.fresh();
    const capacity = 3;
    const full = (overrides: Partial<HandOverOp> = {}) => handOverOp({ capacity, ...overrides });
    const first = full();
    const results = await store.apply([first, full(), full(), full()], NOW);
    expect(results.map(outcome)).toEqual(['stored', 'stored', 'stored', 'proof_store_full']);
    expect(await store.proofCount()).toBe(3);
    expect((await store.apply([full()], NOW)).map(outcome)).toEqual(['proof_store_full']);
    // a stored reference is answered even when the store is full
    expect((await store.apply([{ ...first, capacity }], NOW)).map(outcome)).toEqual(['kept']);
    // a nullifier at its limit is told so, not that the store is full
    const n = randomDigest();
    const { store: other } = await h.fresh();
    await other.apply([full({ nullifier: n }), full({ nullifier: n }), full()], NOW);
    expect((await other.apply([full({ nullifier: n })], NOW)).map(outcome)).toEqual([
      'too_many_proofs',
    ]);
    // room again once one goes: a settlement drops its nullifier's proof
    const settled = await store.apply(
      [settlementOp(h.core(), { nullifier: first.nullifier })],
      NOW,
    );
    expect(settled.map(outcome)).toEqual(['ok']);
    expect((await store.apply([full(), full()], NOW)).map(outcome)).toEqual([
      'stored',
      'proof_store_full',
    ]);
    expect(await store.proofCount()).toBe(3);
    expect(await ledgerProblems(h.core(), store)).toEqual([]);
    expect(await ledgerProblems(h.core(), other)).toEqual([]);
  });

  it('refuses a proof of a spent nullifier (nullifier_already_spent), also one settled earlier in the same group', async () => {
    const { store } = await h.fresh();
    const spent = settlementOp(h.core());
    await store.apply([spent], NOW);
    const late = handOverOp({ nullifier: spent.nullifier });
    expect(await store.apply([late], NOW)).toEqual([
      { ok: false, reason: 'nullifier_already_spent' },
    ]);
    expect(await store.handedOver(late.reference)).toBeNull();
    const same = settlementOp(h.core());
    const group = await store.apply(
      [same, handOverOp({ nullifier: same.nullifier }), handOverOp()],
      NOW,
    );
    expect(group.map(outcome)).toEqual(['ok', 'nullifier_already_spent', 'stored']);
    expect(await store.proofCount()).toBe(1);
    expect(await ledgerProblems(h.core(), store)).toEqual([]);
  });

  it("drops a nullifier's proofs in its settlement's commit, and only those", async () => {
    const { store } = await h.fresh();
    const n = randomDigest();
    const mine = [handOverOp({ nullifier: n }), handOverOp({ nullifier: n })];
    const theirs = handOverOp();
    await store.apply([...mine, theirs], NOW);
    expect(await store.proofCount()).toBe(3);
    expect(
      (await store.apply([settlementOp(h.core(), { nullifier: n })], NOW)).map(outcome),
    ).toEqual(['ok']);
    for (const op of mine) expect(await store.handedOver(op.reference)).toBeNull();
    expect(await store.handedOver(theirs.reference)).toEqual(rowOf(theirs));
    expect(await store.proofCount()).toBe(1);
    // the must-fail twin: a refused settlement (a duplicate) drops nothing
    const stays = handOverOp();
    await store.apply([stays], NOW);
    const dup = settlementOp(h.core(), { nullifier: n });
    expect((await store.apply([dup], NOW)).map(outcome)).toEqual(['duplicate_settlement']);
    expect(await store.handedOver(stays.reference)).not.toBeNull();
    expect(await ledgerProblems(h.core(), store)).toEqual([]);
  });

  it('a hand-over and its settlement in one group: no row is left, the count stays exact', async () => {
    const { store } = await h.fresh();
    const core = h.core();
    // nothing stored before: the group's own hand-over goes with the settlement
    const a = handOverOp();
    expect(
      (await store.apply([a, settlementOp(core, { nullifier: a.nullifier })], NOW)).map(outcome),
    ).toEqual(['stored', 'ok']);
    expect(await store.handedOver(a.reference)).toBeNull();
    // one stored, one handed over in the group, then the settlement
    const n = randomDigest();
    const stored = handOverOp({ nullifier: n });
    await store.apply([stored], NOW);
    const fresh = handOverOp({ nullifier: n });
    expect(
      (await store.apply([fresh, settlementOp(core, { nullifier: n })], NOW)).map(outcome),
    ).toEqual(['stored', 'ok']);
    // a stored live one handed over again in the group, then the settlement
    const live = handOverOp();
    await store.apply([live], NOW);
    expect(
      (await store.apply([live, settlementOp(core, { nullifier: live.nullifier })], NOW)).map(
        outcome,
      ),
    ).toEqual(['kept', 'ok']);
    // a stored expired one kept again in the group, then the settlement
    const expired = handOverOp({ expiresAt: NOW + 5 });
    await store.apply([expired], NOW);
    expect(
      (
        await store.apply(
          [
            { ...expired, expiresAt: NOW + 9000 },
            handOverOp({ nullifier: expired.nullifier }),
            settlementOp(core, { nullifier: expired.nullifier }),
          ],
          NOW + 100,
        )
      ).map(outcome),
    ).toEqual(['stored', 'stored', 'ok']);
    // an unrelated one in the same group stays
    const bystander = handOverOp();
    const b = handOverOp();
    await store.apply([b, bystander, settlementOp(core, { nullifier: b.nullifier })], NOW);
    const rows = await storedProofRows(store);
    expect(rows.map((r) => r.reference)).toEqual([bystander.reference]);
    expect(await store.proofCount()).toBe(1);
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('prunes the proofs whose time has passed (expiresAt <= now), and only those', async () => {
    const { store } = await h.fresh();
    const ops = [1, 2, 3].map((dt) => handOverOp({ expiresAt: NOW + dt }));
    await store.apply(ops, NOW);
    expect(await store.pruneProofs(NOW)).toBe(0);
    expect(await store.proofCount()).toBe(3);
    expect(await store.pruneProofs(NOW + 2)).toBe(2);
    expect(await store.proofCount()).toBe(1);
    expect(await store.handedOver(ops[0]!.reference)).toBeNull();
    expect(await store.handedOver(ops[1]!.reference)).toBeNull();
    expect(await store.handedOver(ops[2]!.reference)).toEqual(rowOf(ops[2]!));
    expect(await store.pruneProofs(NOW + 2)).toBe(0);
    expect(await store.pruneProofs(NOW + 3)).toBe(1);
    expect(await store.proofCount()).toBe(0);
    // a pruned reference handed over again is a new row
    expect(
      (await store.apply([{ ...ops[0]!, expiresAt: NOW + 100 }], NOW + 4)).map(outcome),
    ).toEqual(['stored']);
    expect(await ledgerProblems(h.core(), store)).toEqual([]);
  });

  it('a group that fails part-way keeps and drops no proof at all', async () => {
    const { store, config } = await h.fresh();
    const core = h.core();
    const n = randomDigest();
    const kept = handOverOp({ nullifier: n });
    await store.apply([kept], NOW);
    const before = await storedProofRows(store);
    await rawSql(kind, config, failingTrigger(kind, 'boom'));
    const fresh = handOverOp();
    const group: StoreOp[] = [
      fresh,
      settlementOp(core, { nullifier: n }),
      depositOp(),
      settlementOp(core, { recipient: 'boom' }),
    ];
    await expect(store.apply(group, NOW)).rejects.toBeInstanceOf(PoolUnavailableError);
    expect(await storedProofRows(store)).toEqual(before);
    expect(await store.proofCount()).toBe(1);
    expect(await store.handedOver(fresh.reference)).toBeNull();
    expect(await store.nullifier(n)).toBeNull();
    // the must-pass twin: the group without the poisoned op applies
    expect((await store.apply(group.slice(0, 3), NOW)).map(outcome)).toEqual([
      'stored',
      'ok',
      'ok',
    ]);
    expect(await store.handedOver(kept.reference)).toBeNull();
    expect(await store.proofCount()).toBe(1);
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('holds the limits across concurrent handles: at most two proofs of a nullifier, never past the capacity', async () => {
    const { open } = await h.fresh();
    const handles = await Promise.all([open(), open(), open()]);
    const n = randomDigest();
    const results = (
      await Promise.all(
        handles.flatMap((s) => [
          s.apply([handOverOp({ nullifier: n, capacity: 6 })], NOW),
          s.apply([handOverOp({ capacity: 6 }), handOverOp({ nullifier: n, capacity: 6 })], NOW),
        ]),
      )
    ).flat();
    const rows = await storedProofRows(handles[0]!);
    expect(rows.filter((r) => r.nullifier === n)).toHaveLength(2);
    expect(rows.length).toBeLessThanOrEqual(6);
    expect(results.filter((r) => outcome(r) === 'stored')).toHaveLength(rows.length);
    expect(await handles[1]!.proofCount()).toBe(rows.length);
    expect(await ledgerProblems(h.core(), handles[2]!)).toEqual([]);
  });

  it('fails with PoolUnavailableError, never hangs, when the store is gone', async () => {
    const { open } = await h.fresh();
    const store = await open();
    await store.close();
    for (const call of [
      () => store.apply([handOverOp()], NOW),
      () => store.handedOver(randomDigest()),
      () => store.pruneProofs(NOW),
      () => store.proofCount(),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(PoolUnavailableError);
    }
  });

  it('random sequences of hand-overs, settlements and prunes agree with the model, invariants after each step', async () => {
    const core = h.core();
    // A few nullifiers and references per run, so limits, repeats and settlements collide.
    const step = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.array(
          fc.oneof(
            fc.record({
              kind: fc.constant('handover' as const),
              ref: fc.nat(11),
              expiresIn: fc.integer({ min: -3, max: 40 }),
            }),
            fc.record({ kind: fc.constant('settlement' as const), nullifier: fc.nat(3) }),
            fc.record({ kind: fc.constant('deposit' as const) }),
          ),
          { minLength: 1, maxLength: 6 },
        ),
      },
      { weight: 1, arbitrary: fc.record({ prune: fc.integer({ min: -2, max: 30 }) }) },
      { weight: 2, arbitrary: fc.record({ advance: fc.integer({ min: 1, max: 15 }) }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const { store } = await h.fresh();
        try {
          await runAgainstModel(store, steps);
        } finally {
          await store.close();
        }
      }),
      { numRuns: kind === 'postgres' ? 15 : 25 },
    );

    type Step =
      | (
          | { kind: 'handover'; ref: number; expiresIn: number }
          | { kind: 'settlement'; nullifier: number }
          | { kind: 'deposit' }
        )[]
      | { prune: number }
      | { advance: number };

    async function runAgainstModel(store: PoolStore, steps: Step[]) {
      const capacity = 5;
      const nullifiers = Array.from({ length: 4 }, () => randomDigest());
      // reference r belongs to nullifier r % 4: three references per nullifier
      const references = Array.from({ length: 12 }, (_, r) =>
        handOverOp({ nullifier: nullifiers[r % 4] as DigestHex, capacity }),
      );
      const model = new Map<string, { nullifier: string; expiresAt: number }>();
      const spent = new Set<string>();
      let now = NOW;
      for (const s of steps) {
        if ('advance' in s) {
          now += s.advance;
          continue;
        }
        if ('prune' in s) {
          const at = now + s.prune;
          let dropped = 0;
          for (const [ref, row] of model)
            if (row.expiresAt <= at) {
              model.delete(ref);
              dropped++;
            }
          expect(await store.pruneProofs(at)).toBe(dropped);
        } else {
          const ops: StoreOp[] = s.map((o) =>
            o.kind === 'handover'
              ? { ...references[o.ref]!, expiresAt: now + o.expiresIn }
              : o.kind === 'settlement'
                ? settlementOp(core, { nullifier: nullifiers[o.nullifier] as DigestHex })
                : depositOp(),
          );
          // the model applies the group op by op, in order, at one time
          const expected = ops.map((op) => {
            if (op.kind === 'deposit' || op.kind === 'transition' || op.kind === 'payout')
              return 'ok';
            if (op.kind === 'settlement') {
              if (spent.has(op.nullifier)) return 'duplicate_settlement';
              spent.add(op.nullifier);
              for (const [ref, row] of model) if (row.nullifier === op.nullifier) model.delete(ref);
              return 'ok';
            }
            if (spent.has(op.nullifier)) return 'nullifier_already_spent';
            const row = model.get(op.reference);
            if (row && row.expiresAt > now) return 'kept';
            if (row) {
              row.expiresAt = op.expiresAt;
              return 'stored';
            }
            const mine = [...model.values()].filter((r) => r.nullifier === op.nullifier).length;
            if (mine >= op.perNullifier) return 'too_many_proofs';
            if (model.size >= op.capacity) return 'proof_store_full';
            model.set(op.reference, { nullifier: op.nullifier, expiresAt: op.expiresAt });
            return 'stored';
          });
          const results = await store.apply(ops, now);
          expect(results.map(outcome), JSON.stringify(s)).toEqual(expected);
        }
        const rows = await storedProofRows(store);
        expect(rows.map((r) => [r.reference, r.expiresAt]).sort()).toEqual(
          [...model].map(([ref, row]) => [ref, row.expiresAt]).sort(),
        );
        for (const n of nullifiers)
          expect(rows.filter((r) => r.nullifier === n).length).toBeLessThanOrEqual(2);
        expect(rows.length).toBeLessThanOrEqual(capacity);
        expect(await ledgerProblems(core, store)).toEqual([]);
      }
    }
  }, 240_000);
});
