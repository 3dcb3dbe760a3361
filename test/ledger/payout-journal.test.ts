// The payout sender's journal on both stores (a SQLite file and a throwaway PostgreSQL): the lease
// — granted, renewed, refused while another holds it, taken with the next epoch once expired,
// released at once — and its fence on every signing write (an old holder's write refused, nothing
// written); nonces reserved in order above the floor, each for one withdrawal only; signed
// transactions kept in signing order, the same one stored twice kept once; the cursor never moving
// back; what was written read back by a journal opened again. On PostgreSQL, instances racing for
// the lease and for nonces: one holder, no nonce twice.

import { afterEach, describe, expect, it } from 'vitest';

import { openPayoutJournal } from '../../src/ledger/open-payout-journal.js';
import {
  LeaseLostError,
  NonceNotReservedError,
  type PayoutJournal,
  type SignedPayout,
} from '../../src/ledger/payout-journal.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

const RAIL = 'eip155:31337:0x00000000000000000000000000000000000000a1';
const W1 = `0x${'1'.repeat(64)}`;
const W2 = `0x${'2'.repeat(64)}`;
const TTL = 10_000;

function signed(nonce: number, n: number, maxFee = 100 + n): SignedPayout {
  return {
    hash: `0x${n.toString(16).padStart(64, '0')}`,
    raw: `0x02${n.toString(16).padStart(8, '0')}`,
    nonce,
    maxFeePerGas: String(maxFee),
    maxPriorityFeePerGas: '1',
    signedAt: 1000 + n,
    signedBlock: 7 + n,
  };
}

describe.each(kinds)('the payout journal on the %s store', (kind) => {
  const harness = storeHarness(kind);
  let journals: PayoutJournal[] = [];
  afterEach(async () => {
    await Promise.all(journals.map((j) => j.close()));
    journals = [];
  });
  async function fresh() {
    const { config } = await harness.fresh();
    const open = () => {
      const journal = openPayoutJournal(config);
      journals.push(journal);
      return journal;
    };
    return { journal: open(), open };
  }

  it('grants, renews, refuses, hands the lease over with the next epoch, and releases it', async () => {
    const { journal } = await fresh();
    expect(await journal.readLease(RAIL)).toBeNull();
    const a = await journal.acquireLease(RAIL, 'a', 1000, TTL);
    expect(a).toEqual({ name: RAIL, holder: 'a', epoch: 1, expiresAt: 11_000 });
    // Another instance is refused while it is valid, even a millisecond before it ends.
    expect(await journal.acquireLease(RAIL, 'b', 10_999, TTL)).toBeNull();
    // Renewed by its holder: the same epoch, a later end.
    expect(await journal.acquireLease(RAIL, 'a', 5000, TTL)).toMatchObject({
      epoch: 1,
      expiresAt: 15_000,
    });
    expect(await journal.acquireLease(RAIL, 'b', 14_999, TTL)).toBeNull();
    // Expired: taken by the next instance, next epoch.
    const b = await journal.acquireLease(RAIL, 'b', 15_000, TTL);
    expect(b).toEqual({ name: RAIL, holder: 'b', epoch: 2, expiresAt: 25_000 });
    expect(await journal.acquireLease(RAIL, 'a', 15_001, TTL)).toBeNull();
    // Released: free at once.
    await journal.releaseLease(b!);
    expect(await journal.acquireLease(RAIL, 'a', 15_002, TTL)).toMatchObject({
      holder: 'a',
      epoch: 3,
    });
    // Another rail's lease is another row.
    expect(await journal.acquireLease(`${RAIL}0`, 'b', 15_003, TTL)).toMatchObject({ epoch: 1 });
  });

  it('fences every signing write: an old holder, or an expired lease, writes nothing', async () => {
    const { journal } = await fresh();
    const a = (await journal.acquireLease(RAIL, 'a', 0, TTL))!;
    expect((await journal.reserveNonce(a, W1, 0, 99, 1)).nonce).toBe(0);
    // Expired and not renewed: refused, though nobody took it.
    await expect(journal.reserveNonce(a, W1, 0, 99, TTL)).rejects.toBeInstanceOf(LeaseLostError);
    const b = (await journal.acquireLease(RAIL, 'b', TTL, TTL))!;
    await expect(journal.reserveNonce(a, W2, 0, 99, TTL + 1)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await expect(journal.storeTransaction(a, W1, signed(0, 1), TTL + 1)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await expect(journal.setCursor(a, 5, TTL + 1)).rejects.toBeInstanceOf(LeaseLostError);
    expect(await journal.attempts(RAIL, W1)).toEqual([
      expect.objectContaining({ nonce: 0, transactions: [] }),
    ]);
    expect(await journal.attempts(RAIL, W2)).toEqual([]);
    expect(await journal.cursor(RAIL)).toBe(0);
    // The holder's own writes go through (the twin).
    expect((await journal.reserveNonce(b, W2, 0, 99, TTL + 2)).nonce).toBe(1);
    await journal.setCursor(b, 5, TTL + 2);
    expect(await journal.cursor(RAIL)).toBe(5);
  });

  it('reserves nonces in order above the floor, each for one withdrawal, and keeps every signature', async () => {
    const { journal, open } = await fresh();
    const lease = (await journal.acquireLease(RAIL, 'a', 0, 1e12))!;
    const first = await journal.reserveNonce(lease, W1, 3, 500, 10);
    expect(first).toEqual({
      rail: RAIL,
      withdrawalId: W1,
      nonce: 3,
      deadline: 500,
      reservedAt: 10,
      transactions: [],
    });
    // Above every nonce reserved, whatever the floor says.
    expect((await journal.reserveNonce(lease, W2, 0, 600, 11)).nonce).toBe(4);
    // A floor above (nonces taken by another sender of the key) is skipped to.
    expect((await journal.reserveNonce(lease, W1, 9, 700, 12)).nonce).toBe(9);
    await journal.storeTransaction(lease, W1, signed(3, 1, 100), 13);
    await journal.storeTransaction(lease, W1, signed(3, 2, 110), 14);
    await journal.storeTransaction(lease, W1, signed(3, 2, 110), 15);
    await journal.storeTransaction(lease, W2, signed(4, 3), 16);
    // A nonce of another withdrawal takes no transaction of this one.
    await expect(journal.storeTransaction(lease, W2, signed(3, 4), 17)).rejects.toBeInstanceOf(
      NonceNotReservedError,
    );
    await expect(journal.storeTransaction(lease, W1, signed(5, 5), 17)).rejects.toBeInstanceOf(
      NonceNotReservedError,
    );
    const again = open();
    const attempts = await again.attempts(RAIL, W1);
    expect(attempts.map((a) => [a.nonce, a.deadline, a.transactions.map((t) => t.hash)])).toEqual([
      [3, 500, [signed(3, 1).hash, signed(3, 2).hash]],
      [9, 700, []],
    ]);
    expect(attempts[0]?.transactions[1]).toEqual(signed(3, 2, 110));
    expect((await again.openAttempts(RAIL, 4)).map((a) => [a.withdrawalId, a.nonce])).toEqual([
      [W2, 4],
      [W1, 9],
    ]);
    expect(await again.openAttempts(RAIL, 10)).toEqual([]);
    // The cursor never moves back.
    await journal.setCursor(lease, 8, 20);
    await journal.setCursor(lease, 3, 21);
    expect(await again.cursor(RAIL)).toBe(8);
  });

  it.runIf(kind === 'postgres')(
    'instances racing: one holder per round, no nonce reserved twice',
    async () => {
      const { open } = await fresh();
      const instances = Array.from({ length: 4 }, open);
      for (let round = 0; round < 5; round++) {
        const now = round * 2 * TTL;
        const grants = await Promise.all(
          instances.map((j, i) => j.acquireLease(RAIL, `holder-${i}`, now, TTL)),
        );
        expect(grants.filter((g) => g !== null)).toHaveLength(1);
      }
      const lease = (await instances[0]!.readLease(RAIL))!;
      const holder = instances[Number(lease.holder.slice(-1))]!;
      const nonces = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          holder.reserveNonce(lease, i % 2 ? W1 : W2, 0, 1, lease.expiresAt - 1),
        ),
      );
      expect(new Set(nonces.map((n) => n.nonce)).size).toBe(12);
      expect(Math.max(...nonces.map((n) => n.nonce))).toBe(11);
    },
  );
});
