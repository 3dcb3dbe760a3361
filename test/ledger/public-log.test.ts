// The public log on both stores (SQLite and a throwaway PostgreSQL): a checkpoint publishes the
// events since the previous one and nothing newer, listed by nullifier (a deposit by its
// commitment) whatever their order of arrival (fast-check), each at its checkpoint's time, never
// its arrival's — while the store's own record keeps arrival order and time (the twin that shows
// the test would catch a log published as it arrived); the published head and totals stand still
// between checkpoints; migration 6 publishes an existing ledger's events in the order they were
// already served.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { randomDigest } from '../../src/core/index.js';
import { type PoolEvent, type StoreOp, settlementId } from '../../src/ledger/index.js';
import type { TransitionOp } from '../../src/ledger/store.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { allEvents, ledgerProblems } from './helpers/invariants.js';
import { depositOp, settlementOp } from './helpers/ops.js';
import {
  allPublished,
  expectedPublicLog,
  publicKey,
  publicLogProblems,
} from './helpers/public-log.js';
import { rawSql } from './helpers/raw-sql.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';
import { STAND_IN_PROOF } from '../../testkit/stand-in-proof.js';

const NOW = 1_800_000_000_000;

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

/** An exit of `amount` (a withdrawal event), its refund note proven. */
const exitOp = (amount: string): TransitionOp => {
  const first = randomDigest();
  return {
    kind: 'transition',
    transitionId: settlementId(first),
    nullifiers: [first, randomDigest()],
    outputs: [randomDigest(), randomDigest()],
    memo: ['1', '2'],
    exit: amount,
    destination: 'eip155:1:0x0000000000000000000000000000000000000001',
    refund: randomDigest(),
    proof: STAND_IN_PROOF,
  };
};

const sorted = (keys: string[]) => [...keys].sort();

describe.each(kinds)('the public log on the %s store', (kind) => {
  const h = storeHarness(kind);

  it('lists a checkpoint’s events by nullifier whatever their arrival, at its time (fast-check)', async () => {
    let arrivalDiffered = false;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('deposit', 'settlement', 'exit'), { minLength: 2, maxLength: 9 }),
        fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 3 }),
        async (kindsOf, cuts) => {
          const { store } = await h.fresh();
          const ops: StoreOp[] = kindsOf.map((k) =>
            k === 'deposit'
              ? depositOp()
              : k === 'settlement'
                ? settlementOp(h.core())
                : exitOp('5'),
          );
          // Each op arrives on its own, at its own millisecond; checkpoints at the cuts.
          const at = new Set(cuts.filter((c) => c < ops.length));
          let checkpoints = 0;
          for (const [i, op] of ops.entries()) {
            if (at.has(i)) {
              expect(await store.checkpoint(NOW + 1000 * i + 500, 0)).not.toBeNull();
              checkpoints++;
            }
            await store.apply([op], NOW + 1000 * i);
          }
          // The last op is never published until a checkpoint covers it.
          const before = await allPublished(store);
          expect(before).toHaveLength((await store.publishedState()).events);
          expect(before.length).toBeLessThan(ops.length);
          const last = await store.checkpoint(NOW + 1_000_000, 0);
          expect(last).not.toBeNull();
          const published = await allPublished(store);
          expect(published).toEqual(await expectedPublicLog(store));
          expect(published.map((e) => e.id)).toEqual(ops.map((_, i) => i + 1));
          // Arrival leaves no trace: every time is a checkpoint's, and within the last checkpoint
          // the keys are in order.
          const times = new Set((await store.checkpoints(0, 100)).map((cp) => cp.time));
          for (const event of published) expect(times.has(event.time)).toBe(true);
          const lastCheckpoint = published.filter((e) => e.time === last!.time).map(publicKey);
          expect(lastCheckpoint).toEqual(sorted(lastCheckpoint));
          // The store's own record keeps arrival: order and time (the operator's, never served).
          const raw = await allEvents(store);
          expect(raw.map((e) => e.time)).toEqual(ops.map((_, i) => NOW + 1000 * i));
          const lastKeys = new Set(lastCheckpoint);
          const arrived = raw.map(publicKey).filter((key) => lastKeys.has(key));
          if (JSON.stringify(arrived) !== JSON.stringify(sorted(arrived))) arrivalDiffered = true;
          expect(await publicLogProblems(store)).toEqual([]);
          expect(await ledgerProblems(h.core(), store)).toEqual([]);
          expect(checkpoints + 1).toBe((await store.publishedState()).checkpoint?.seq);
        },
      ),
      { numRuns: kind === 'sqlite' ? 25 : 12 },
    );
    // The twin: arrival order did differ from the published order in some run, so a log served in
    // arrival order would have failed the property above.
    expect(arrivalDiffered).toBe(true);
  }, 240_000);

  it('two arrival orders of the same events publish one order', async () => {
    const ops = [
      depositOp(),
      settlementOp(h.core()),
      exitOp('9'),
      depositOp(),
      settlementOp(h.core()),
    ];
    const logs: string[][] = [];
    for (const order of [ops, [...ops].reverse()]) {
      const { store } = await h.fresh();
      for (const [i, op] of order.entries()) await store.apply([op], NOW + i);
      await store.checkpoint(NOW + 10_000, 0);
      const published = await allPublished(store);
      logs.push(published.map(publicKey));
      // Their arrival differed: the record says so (the twin of the equality below).
      logs.push((await allEvents(store)).map(publicKey));
    }
    const [publishedA, rawA, publishedB, rawB] = logs;
    expect(publishedA).toEqual(publishedB);
    expect(publishedA).toEqual(sorted(publishedA!));
    expect(rawA).not.toEqual(rawB);
  });

  it('shows the head and totals of the latest checkpoint until the next', async () => {
    const { store } = await h.fresh();
    const empty = await store.publishedState();
    expect(empty).toEqual({ ...(await store.state()), checkpoint: null });
    const exit = exitOp('300');
    await store.apply([depositOp({ amount: '1000' }), depositOp({ amount: '700' }), exit], NOW);
    // Nothing published yet: the head is the empty tree's, every total zero.
    expect(await store.publishedState()).toEqual(empty);
    expect(await store.publishedEvents(0, 10)).toEqual([]);
    const first = await store.checkpoint(NOW + 1, 0);
    const published = await store.publishedState();
    expect(published).toEqual(await store.state());
    expect(published).toMatchObject({
      size: 4,
      events: 3,
      depositTotal: '1700',
      withdrawnTotal: '300',
      checkpoint: first,
    });
    // More arrives — a deposit, another exit, the first exit's payout failing (a refund) — while
    // the public head stands still; the payout steps recorded show (they are the operator's).
    await store.apply([depositOp({ amount: '50' }), exitOp('20')], NOW + 2);
    await store.apply([{ kind: 'payout', withdrawalId: exit.transitionId, status: 'paying' }], NOW);
    await store.apply([{ kind: 'payout', withdrawalId: exit.transitionId, status: 'failed' }], NOW);
    const live = await store.state();
    expect(live).toMatchObject({
      size: 8,
      events: 6,
      depositTotal: '1750',
      withdrawnTotal: '320',
      refundedTotal: '300',
    });
    expect(await store.publishedState()).toEqual(published);
    expect(await store.publishedEvents(0, 10)).toHaveLength(3);
    // Twin: once a checkpoint covers them, the public head is the live one.
    await store.checkpoint(NOW + 3, 0);
    expect(await store.publishedState()).toEqual(await store.state());
    expect(await store.publishedEvents(3, 10)).toHaveLength(3);
    expect(await publicLogProblems(store)).toEqual([]);
  });

  it('migration 6 publishes an existing ledger in the order it was served, then by nullifier', async () => {
    const { store, open, config } = await h.fresh();
    const early = [depositOp(), settlementOp(h.core()), depositOp()];
    for (const [i, op] of early.entries()) await store.apply([op], NOW + i);
    const first = await store.checkpoint(NOW + 100, 0);
    const late = [settlementOp(h.core()), depositOp()];
    for (const [i, op] of late.entries()) await store.apply([op], NOW + 200 + i);
    const record = await allEvents(store);
    await store.close();
    // The ledger as schema 5 left it: no public-log columns, no proof archive.
    await rawSql(
      kind,
      config,
      `ALTER TABLE proofs DROP COLUMN proof_sha256;
       DELETE FROM schema_migrations WHERE version = 9;
       DROP TABLE attested_withdrawals;
       DROP TABLE attested_sets;
       DELETE FROM schema_migrations WHERE version = 8;
       DROP TABLE proof_archive;
       DROP TABLE archive_state;
       DROP TABLE log_digests;
       DROP INDEX checkpoints_time;
       DELETE FROM schema_migrations WHERE version = 7;
       DROP INDEX events_position;
       ALTER TABLE events DROP COLUMN position;
       ALTER TABLE events DROP COLUMN checkpoint_seq;
       ALTER TABLE checkpoints DROP COLUMN events;
       DELETE FROM schema_migrations WHERE version = 6;`,
    );
    const migrated = await open();
    // Served before in arrival order: kept so (a wallet's cursor stays good), at the checkpoint's time.
    const arrival = (events: readonly PoolEvent[], time: number) =>
      events.map((e) => ({ ...e, time }));
    expect(await allPublished(migrated)).toEqual(arrival(record.slice(0, 3), first!.time));
    expect(await migrated.publishedState()).toMatchObject({ events: 3, size: first!.size });
    // Migration 7: the events before it have no archived proof, and the archive says where they end
    // (migration 6 placed all five, the two not yet published included).
    expect(await migrated.archiveState()).toEqual({ prunedThrough: 0, legacyThrough: 5 });
    const second = await migrated.checkpoint(NOW + 300, 0);
    expect(await allPublished(migrated)).toEqual([
      ...arrival(record.slice(0, 3), first!.time),
      ...arrival(record.slice(3), second!.time),
    ]);
    // What arrives after the migration is published by nullifier again.
    const after = [settlementOp(h.core()), depositOp(), settlementOp(h.core()), depositOp()];
    for (const [i, op] of after.entries()) await migrated.apply([op], NOW + 400 + i);
    await migrated.checkpoint(NOW + 500, 0);
    const newest = (await migrated.publishedEvents(5, 10)).map(publicKey);
    expect(newest).toHaveLength(4);
    expect(newest).toEqual(sorted(newest));
    // Archived from the migration on: the two new settlements' proofs, none of the legacy events'.
    const settled = (await migrated.publishedEvents(0, 20)).filter((e) => e.kind === 'settlement');
    expect((await migrated.archivedProofs(0, 20)).map((p) => p.id)).toEqual(
      settled.filter((e) => e.id > 5).map((e) => e.id),
    );
    expect(await ledgerProblems(h.core(), migrated)).toEqual([]);
  });
});
