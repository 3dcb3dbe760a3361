// The pool's own rules — settlements and deposits — on both stores, with real
// proofs from the fixture factory. Every accepted case has must-fail twins that change nothing.

import { beforeAll, describe, expect, it } from 'vitest';

import {
  commitmentOf,
  loadCore,
  type PrivStarkCore,
  precommitmentOf,
  randomDigest,
  recipientRhoOf,
} from '../../src/core/index.js';
import {
  Ledger,
  type LedgerOptions,
  type PoolStore,
  PoolUnavailableError,
  settlementId,
  type SettlementInput,
} from '../../src/ledger/index.js';
import { MAX_PROOF_BYTES } from '../../src/scheme/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { allEvents, ledgerProblems } from './helpers/invariants.js';
import { allLeaves } from './helpers/ops.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const SPEC = { seed: 'pool-rules', notes: 6, variants: 2 };
const NOW = Date.UTC(2030, 0, 1);

/** Everything observable about a ledger, to show that a refusal changed nothing. */
async function snapshot(store: PoolStore) {
  return {
    state: await store.state(),
    leaves: await allLeaves(store),
    events: await allEvents(store),
  };
}

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

describe.each(kinds)('pool rules on the %s store', (kind) => {
  const h = storeHarness(kind);
  let core: PrivStarkCore;
  let fx: Fixtures;

  beforeAll(async () => {
    core = h.core();
    fx = await fixtures(core, SPEC);
  }, 300_000);

  async function fundedPool(options: Partial<LedgerOptions> = {}) {
    const { store } = await h.fresh();
    const pool = new Ledger({ core, store, clock: () => NOW, ...options });
    await fundPool(pool, fx);
    return { pool, store };
  }

  const pay = (n: number, variant = 0) => fx.payments[n * SPEC.variants + variant]!;

  it('settles a valid payment: nullifier, change then the recipient note the pool derives, event', async () => {
    const { pool, store } = await fundedPool();
    const p = pay(0);
    const result = await pool.settle(p);
    const recipient = commitmentOf(
      core,
      p.payment.amount,
      precommitmentOf(core, fx.recipientOwner, recipientRhoOf(core, p.note.nullifier)),
    );
    expect(result).toEqual({
      ok: true,
      settlementId: settlementId(p.note.nullifier),
      eventId: SPEC.notes + 1,
      nullifier: p.note.nullifier,
      changeIndex: SPEC.notes,
      recipientIndex: SPEC.notes + 1,
      recipientNote: recipient,
    });
    expect(await store.leaves(SPEC.notes, 5)).toEqual([p.publicInputs.change, recipient]);
    const [event] = await store.events(SPEC.notes, 5);
    expect(event).toMatchObject({
      kind: 'settlement',
      nullifier: p.note.nullifier,
      recipient: p.payment.payTo,
      amount: p.payment.amount,
    });
    expect(await pool.spent(p.note.nullifier)).toEqual({
      settlementId: settlementId(p.note.nullifier),
      eventId: SPEC.notes + 1,
    });
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('refuses a spent nullifier as a duplicate with the original id, also for another payment of the same note', async () => {
    const { pool, store } = await fundedPool();
    const first = await pool.settle(pay(1, 0));
    expect(first.ok).toBe(true);
    const before = await snapshot(store);
    for (const again of [pay(1, 0), pay(1, 1)]) {
      expect(await pool.settle(again)).toMatchObject({
        ok: false,
        reason: 'duplicate_settlement',
        settlementId: settlementId(pay(1).note.nullifier),
      });
    }
    expect(await snapshot(store)).toEqual(before);
  });

  it('refuses a tampered proof or a wrong public input and changes nothing', async () => {
    const { pool, store } = await fundedPool();
    const p = pay(2);
    const before = await snapshot(store);
    const flipped = new Uint8Array(p.proof);
    flipped[Math.floor(flipped.length / 2)]! ^= 1;
    const cases: SettlementInput[] = [
      { ...p, proof: flipped },
      { ...p, proof: p.proof.subarray(0, p.proof.length - 1) },
      { ...p, publicInputs: { ...p.publicInputs, change: randomDigest() } },
      { ...p, publicInputs: { ...p.publicInputs, nullifier: randomDigest() } },
      { ...p, proof: pay(3).proof },
    ];
    for (const input of cases)
      expect(await pool.settle(input)).toMatchObject({
        ok: false,
        reason: 'invalid_priv_stark_proof',
      });
    expect(await snapshot(store)).toEqual(before);
    expect((await pool.settle(p)).ok).toBe(true); // the must-pass twin
  });

  it('refuses an anchor that is not a checkpoint, and accepts it once published; old checkpoints stay valid', async () => {
    const { store } = await h.fresh();
    const pool = new Ledger({ core, store, clock: () => NOW });
    await Promise.all(
      fx.notes.map((note) => pool.deposit({ amount: note.value, pre: note.precommitment })),
    );
    const before = await snapshot(store);
    expect(await pool.settle(pay(0))).toMatchObject({ ok: false, reason: 'unknown_root' });
    expect(
      await pool.settle({
        ...pay(0),
        publicInputs: { ...pay(0).publicInputs, root: randomDigest() },
      }),
    ).toMatchObject({
      ok: false,
      reason: 'unknown_root',
    });
    expect(await snapshot(store)).toEqual(before);
    const first = await pool.checkpoint();
    expect(first?.root).toBe(fx.root);
    // the tree moves on and a newer checkpoint is published: the old anchor still settles
    await pool.deposit({ amount: '5', pre: randomDigest() });
    const second = await pool.checkpoint();
    expect(second?.seq).toBe(2);
    expect((await pool.settle(pay(0))).ok).toBe(true);
    await pool.checkpoint();
    expect((await pool.settle(pay(1))).ok).toBe(true);
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('refuses an expired payment by its own clock, also when it expires while being verified', async () => {
    const p = pay(4);
    let now = p.payment.expiry * 1000;
    const { pool, store } = await fundedPool({ clock: () => now });
    const before = await snapshot(store);
    expect(await pool.settle(p)).toMatchObject({ ok: false, reason: 'payment_expired' });
    // expires between the checks and the commit
    now = p.payment.expiry * 1000 - 1;
    const slow = new Ledger({
      core: {
        ...core,
        verifySpend: async (proof, inputs) => {
          const verdict = await core.verifySpend(proof, inputs);
          now = p.payment.expiry * 1000;
          return verdict;
        },
      },
      store,
      clock: () => now,
    });
    expect(await slow.settle(p)).toMatchObject({ ok: false, reason: 'payment_expired' });
    expect(await snapshot(store)).toEqual(before);
    now = p.payment.expiry * 1000 - 1000;
    expect((await pool.settle(p)).ok).toBe(true);
  });

  it("refuses payment fields the proof does not pay, and other pools' networks", async () => {
    const { pool, store } = await fundedPool();
    const p = pay(5);
    const before = await snapshot(store);
    const otherAddress = core.encodeAddress(randomDigest());
    const cases: [Partial<SettlementInput['payment']>, string][] = [
      [{ amount: '10001' }, 'payment_requirements_mismatch'],
      [{ resourceId: 'GET /elsewhere' }, 'payment_requirements_mismatch'],
      [{ payTo: otherAddress }, 'payment_requirements_mismatch'],
      [{ expiry: p.payment.expiry + 60 }, 'payment_requirements_mismatch'],
      [{ scheme: 'exact' }, 'unsupported_scheme'],
      [{ network: 'shielded:mainnet' }, 'unsupported_network'],
      [{ asset: 'USDC' }, 'unsupported_asset'],
      [{ payTo: 'pstark1notanaddress' }, 'invalid_payload'],
      [{ amount: '0' }, 'invalid_payload'],
      [{ amount: '010000' }, 'invalid_payload'],
      [{ resourceId: 'x'.repeat(300) }, 'invalid_payload'],
    ];
    for (const [change, reason] of cases) {
      expect(
        await pool.settle({ ...p, payment: { ...p.payment, ...change } }),
        JSON.stringify(change),
      ).toMatchObject({ ok: false, reason });
    }
    expect(
      await pool.settle({ ...p, publicInputs: { ...p.publicInputs, amount: '10001' } }),
    ).toMatchObject({
      ok: false,
      reason: 'payment_requirements_mismatch',
    });
    expect(await snapshot(store)).toEqual(before);
  });

  it('refuses malformed transitions with invalid_payload', async () => {
    const { pool, store } = await fundedPool();
    const p = pay(5);
    const before = await snapshot(store);
    const nonCanonical = `0x${'ff'.repeat(32)}` as const;
    const cases: unknown[] = [
      null,
      {},
      { ...p, proof: Buffer.from(p.proof).toString('base64') },
      { ...p, proof: new Uint8Array(0) },
      { ...p, proof: new Uint8Array(MAX_PROOF_BYTES + 1) },
      { ...p, publicInputs: { ...p.publicInputs, root: nonCanonical } },
      { ...p, publicInputs: { ...p.publicInputs, ctx: p.publicInputs.ctx.toUpperCase() } },
      { ...p, publicInputs: { ...p.publicInputs, amount: 10000 } },
      { ...p, payment: { ...p.payment, expiry: 'soon' } },
      { ...p, payment: null },
    ];
    for (const input of cases) {
      expect(await pool.settle(input as SettlementInput)).toMatchObject({
        ok: false,
        reason: 'invalid_payload',
      });
    }
    expect(await snapshot(store)).toEqual(before);
  });

  it('settles exactly one of many concurrent transitions of one nullifier in one process', async () => {
    const { pool, store } = await fundedPool();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => pool.settle(pay(3, i % 2))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(
      results.filter(
        (r) =>
          !r.ok &&
          r.reason === 'duplicate_settlement' &&
          r.settlementId === settlementId(pay(3).note.nullifier),
      ),
    ).toHaveLength(11);
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('throws PoolUnavailableError (not a rejection) when the store fails; health says so', async () => {
    const { pool, store } = await fundedPool();
    expect(await pool.health()).toEqual({ kind, ok: true, leaves: SPEC.notes, checkpoint: 1 });
    await store.close();
    expect(await pool.health()).toEqual({ kind, ok: false, leaves: null, checkpoint: null });
    await expect(pool.settle(pay(0))).rejects.toBeInstanceOf(PoolUnavailableError);
    await expect(pool.deposit({ amount: '1', pre: randomDigest() })).rejects.toBeInstanceOf(
      PoolUnavailableError,
    );
  });

  it('deposits: the pool computes the commitment; duplicates and bad amounts change nothing', async () => {
    const { store } = await h.fresh();
    const pool = new Ledger({ core, store, clock: () => NOW });
    const pre = randomDigest();
    const result = await pool.deposit({ amount: '2500', pre });
    expect(result).toEqual({
      ok: true,
      commitment: commitmentOf(core, '2500', pre),
      index: 0,
      eventId: 1,
    });
    const before = await snapshot(store);
    expect(await pool.deposit({ amount: '2500', pre })).toMatchObject({
      ok: false,
      reason: 'duplicate_commitment',
    });
    const bad: [unknown, unknown, string][] = [
      ['0', pre, 'amount_out_of_range'],
      [String(2n ** 62n), pre, 'amount_out_of_range'],
      ['99999999999999999999999', pre, 'amount_out_of_range'],
      ['-1', pre, 'invalid_payload'],
      ['1.5', pre, 'invalid_payload'],
      ['0100', pre, 'invalid_payload'],
      [12, pre, 'invalid_payload'],
      ['', pre, 'invalid_payload'],
      ['5', `0x${'ff'.repeat(32)}`, 'invalid_payload'],
      ['5', pre.slice(0, 10), 'invalid_payload'],
      ['5', undefined, 'invalid_payload'],
    ];
    for (const [amount, p, reason] of bad) {
      expect(await pool.deposit({ amount, pre: p } as never), `${String(amount)}`).toMatchObject({
        ok: false,
        reason,
      });
    }
    expect(await snapshot(store)).toEqual(before);
    // the largest amount is accepted; the total matches the events
    expect((await pool.deposit({ amount: String(2n ** 62n - 1n), pre: randomDigest() })).ok).toBe(
      true,
    );
    expect((await pool.state()).depositTotal).toBe((2500n + 2n ** 62n - 1n).toString());
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('publishes checkpoints on its timer, about once per interval across processes sharing the store', async () => {
    const { store, open } = await h.fresh();
    const interval = 100;
    const pools = [
      new Ledger({ core, store, checkpointIntervalMs: interval }),
      new Ledger({ core, store: await open(), checkpointIntervalMs: interval }),
    ];
    // warm up both stores' writers first (a writer thread starts on the first write)
    for (const pool of pools) await pool.deposit({ amount: '1', pre: randomDigest() });
    for (const pool of pools) pool.start();
    const started = Date.now();
    try {
      while (Date.now() - started < 1500) {
        await pools[0]!.deposit({ amount: '1', pre: randomDigest() });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.stop()));
    }
    const elapsed = Date.now() - started;
    const published = await store.checkpoints(0, 1000);
    expect(published.length).toBeGreaterThanOrEqual(3);
    expect(published.length).toBeLessThanOrEqual(Math.ceil(elapsed / (interval * 0.9)) + 2);
    expect(await ledgerProblems(core, store)).toEqual([]);
  });
});

describe('pool identity', () => {
  it('defaults to the devnet network and asset', async () => {
    const ledger = new Ledger({ core: await loadCore(), store: {} as PoolStore });
    expect({ scheme: ledger.scheme, network: ledger.network, asset: ledger.asset }).toEqual({
      scheme: 'priv-stark/v1',
      network: 'shielded:devnet',
      asset: 'dUSD',
    });
  });
});
