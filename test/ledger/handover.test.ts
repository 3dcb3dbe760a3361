// The ledger's rules for handed-over proofs (compact payments), on both stores, with real proofs
// from the fixture factory: Ledger.handOver's refusals in their order, the stored verdict serving
// exactly the payment it was handed over for, expiry by the ledger's clock and removal by its
// timer, cleanup racing a settle, and a kill -9 between hand-over and settle.

import { beforeAll, describe, expect, it, vi } from 'vitest';

import {
  type PaymentContext,
  type PrivStarkCore,
  type ProofReference,
  randomDigest,
  type SpendPublicInputs,
} from '../../src/core/index.js';
import {
  type HandOverInput,
  Ledger,
  type LedgerOptions,
  type PoolStore,
  settlementId,
} from '../../src/ledger/index.js';
import {
  HANDOVER_GRACE_SECONDS,
  HANDOVER_RETENTION_CAP_SECONDS,
  MAX_PROOF_BYTES,
} from '../../src/scheme/index.js';
import { type Fixtures, fixtures, fundPool, type PaymentFixture } from '../../testkit/fixtures.js';
import { startWorker } from '../../testkit/ledger-children.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { allEvents, ledgerProblems, storedProofRows } from './helpers/invariants.js';
import { allLeaves } from './helpers/ops.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const SPEC = { seed: 'ledger-handover', notes: 12, variants: 3 };
const CRASH_SPEC = { seed: 'ledger-handover-crash', notes: 40 };
const NOW = Date.UTC(2030, 0, 1);

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

/** Everything observable about a ledger, handed-over proofs included. */
async function snapshot(store: PoolStore) {
  return {
    state: await store.state(),
    leaves: await allLeaves(store),
    events: await allEvents(store),
    proofs: await storedProofRows(store),
    proofCount: await store.proofCount(),
  };
}

/** The hand-over of a fixture payment, as the pool node passes it to the ledger. */
function handOverOf(p: PaymentFixture): HandOverInput {
  const { root, nullifier, change, amount } = p.publicInputs;
  return { proof: p.proof, publicInputs: { root, nullifier, change, amount }, payment: p.payment };
}

/** The compact settlement of `p` by `reference`, for `payment` (ctx recomputed, as the facilitator does). */
function compact(
  core: PrivStarkCore,
  p: PaymentFixture,
  reference: string,
  payment: PaymentContext = p.payment,
) {
  const publicInputs: SpendPublicInputs = {
    ...p.publicInputs,
    amount: payment.amount,
    ctx: core.contextDigest(payment),
  };
  return { reference: reference as ProofReference, publicInputs, payment };
}

describe.each(kinds)('hand-overs on the %s store', (kind) => {
  const h = storeHarness(kind);
  let core: PrivStarkCore;
  let fx: Fixtures;

  beforeAll(async () => {
    core = h.core();
    fx = await fixtures(core, SPEC);
  }, 600_000);

  /** A funded ledger whose verifications are counted. */
  async function funded(options: Partial<LedgerOptions> = {}, store?: PoolStore) {
    const theStore = store ?? (await h.fresh()).store;
    const verified: SpendPublicInputs[] = [];
    const ledger = new Ledger({
      core: {
        ...core,
        verifySpend: (proof, inputs) => {
          verified.push(inputs);
          return core.verifySpend(proof, inputs);
        },
      },
      store: theStore,
      clock: () => NOW,
      ...options,
    });
    if (!store) await fundPool(ledger, fx);
    return { ledger, store: theStore, verified };
  }

  const pay = (note: number, variant = 0) => fx.payments[note * SPEC.variants + variant]!;

  it('keeps a verified proof under the core reference: handed over again, the same; settled by reference once, and its row goes', async () => {
    const { ledger, store } = await funded();
    const p = pay(0);
    const expected = core.proofReference(p.proof, p.publicInputs).reference;
    const expiresAt =
      (Math.min(p.payment.expiry, NOW / 1000 + HANDOVER_RETENTION_CAP_SECONDS) +
        HANDOVER_GRACE_SECONDS) *
      1000;
    expect(await ledger.handOver(handOverOf(p))).toEqual({
      ok: true,
      reference: expected,
      expiresAt,
      stored: true,
    });
    expect(await ledger.handOver(handOverOf(p))).toEqual({
      ok: true,
      reference: expected,
      expiresAt,
      stored: false,
    });
    expect(await store.handedOver(expected)).toMatchObject({
      nullifier: p.publicInputs.nullifier,
      ctx: p.publicInputs.ctx,
      expiresAt,
    });
    expect(await ledger.handedOverMatches(expected, p.publicInputs)).toBe(true);
    const settled = await ledger.settle(compact(core, p, expected));
    expect(settled).toMatchObject({ ok: true, settlementId: settlementId(p.note.nullifier) });
    expect(await store.proofCount()).toBe(0);
    expect(await ledger.settle(compact(core, p, expected))).toMatchObject({
      ok: false,
      reason: 'duplicate_settlement',
      settlementId: settlementId(p.note.nullifier),
    });
    expect(await ledgerProblems(core, store)).toEqual([]);
    // Its row went, its proof did not: the archive kept the hand-over's bytes with the event, and
    // they verify again from what is public — the event's fields, the archived root and context.
    await ledger.checkpoint();
    const event = (await store.publishedEvents(0, 100)).find(
      (e) => e.kind === 'settlement' && e.nullifier === p.publicInputs.nullifier,
    );
    const archived = (await store.archivedProofs(0, 100)).find((a) => a.id === event?.id);
    expect(archived && Buffer.from(archived.proof).equals(Buffer.from(p.proof))).toBe(true);
    if (event?.kind !== 'settlement' || !archived) throw new Error('not archived');
    const { nullifier, change, amount } = event;
    const inputs = { root: archived.root, nullifier, change, amount, ctx: archived.ctx };
    expect(await core.verifySpend(archived.proof, inputs)).toEqual({ ok: true });
    // Its twin: one unit more than the event says, and the same bytes prove nothing.
    const inflated = { ...inputs, amount: String(BigInt(amount) + 1n) };
    expect((await core.verifySpend(archived.proof, inflated)).ok).toBe(false);
  });

  it('refuses before storing anything, each reason, cheapest first (the proof is verified last)', async () => {
    const p = pay(1);
    const other = pay(2);
    const { ledger, store, verified } = await funded({ proofStoreCapacity: 1 });
    const nonCanonical = `0x${'ff'.repeat(32)}`;
    const flipped = new Uint8Array(p.proof);
    flipped[flipped.length >> 1]! ^= 1;
    const at = (change: Partial<PaymentContext>) => ({
      ...handOverOf(p),
      payment: { ...p.payment, ...change },
    });
    const claims = (change: Partial<HandOverInput['publicInputs']>) => ({
      ...handOverOf(p),
      publicInputs: { ...handOverOf(p).publicInputs, ...change },
    });
    // [input, reason, whether the proof was verified]: every case, and what wins when several fail
    const cases: [unknown, string, boolean][] = [
      [null, 'invalid_payload', false],
      [{}, 'invalid_payload', false],
      [
        { ...handOverOf(p), proof: Buffer.from(p.proof).toString('base64') },
        'invalid_payload',
        false,
      ],
      [{ ...handOverOf(p), proof: new Uint8Array(0) }, 'invalid_payload', false],
      [{ ...handOverOf(p), proof: new Uint8Array(MAX_PROOF_BYTES + 1) }, 'invalid_payload', false],
      [{ ...handOverOf(p), publicInputs: null }, 'invalid_payload', false],
      [{ ...handOverOf(p), payment: null }, 'invalid_payload', false],
      [claims({ root: nonCanonical }), 'invalid_payload', false],
      [claims({ nullifier: p.publicInputs.nullifier.toUpperCase() }), 'invalid_payload', false],
      [claims({ change: 'nope' }), 'invalid_payload', false],
      [claims({ amount: 10000 as unknown as string }), 'invalid_payload', false],
      [at({ amount: '010000' }), 'invalid_payload', false],
      [at({ expiry: 'soon' as unknown as number }), 'invalid_payload', false],
      [at({ payTo: 'pstark1notanaddress' }), 'invalid_payload', false],
      [at({ resourceId: 'x'.repeat(300) }), 'invalid_payload', false],
      [{ ...at({ scheme: 'exact' }), proof: new Uint8Array(0) }, 'invalid_payload', false],
      [at({ scheme: 'exact', network: 'eip155:8453' }), 'unsupported_scheme', false],
      [at({ network: 'eip155:8453', asset: 'USDC' }), 'unsupported_network', false],
      [{ ...at({ asset: 'USDC', expiry: 1 }) }, 'unsupported_asset', false],
      [claims({ amount: '10001' }), 'payment_requirements_mismatch', false],
      [at({ expiry: NOW / 1000 }), 'payment_expired', false],
      [
        {
          ...at({ expiry: NOW / 1000 }),
          publicInputs: { ...claims({}).publicInputs, root: randomDigest() },
        },
        'payment_expired',
        false,
      ],
      [claims({ root: randomDigest() }), 'unknown_root', false],
      [{ ...handOverOf(p), proof: flipped }, 'invalid_priv_stark_proof', true],
      [{ ...handOverOf(p), proof: other.proof }, 'invalid_priv_stark_proof', true],
      [
        { ...handOverOf(p), proof: p.proof.subarray(0, p.proof.length - 1) },
        'invalid_priv_stark_proof',
        true,
      ],
      [at({ resourceId: 'GET /elsewhere' }), 'invalid_priv_stark_proof', true],
      [at({ payTo: core.encodeAddress(randomDigest()) }), 'invalid_priv_stark_proof', true],
      [at({ expiry: p.payment.expiry - 60 }), 'invalid_priv_stark_proof', true],
      [claims({ change: randomDigest() }), 'invalid_priv_stark_proof', true],
    ];
    const before = await snapshot(store);
    for (const [input, reason, verifies] of cases) {
      verified.length = 0;
      expect(
        await ledger.handOver(input as HandOverInput),
        JSON.stringify(input)?.slice(0, 200),
      ).toEqual({
        ok: false,
        reason,
        message: expect.any(String),
      });
      expect(verified.length, reason).toBe(verifies ? 1 : 0);
    }
    expect(await snapshot(store)).toEqual(before);

    // a spent nullifier: refused before the proof, also for another payment of the same note
    const spent = pay(3);
    expect((await ledger.settle(spent)).ok).toBe(true);
    const afterSettle = await snapshot(store);
    for (const input of [
      handOverOf(spent),
      handOverOf(pay(3, 1)),
      { ...handOverOf(spent), proof: flipped },
    ]) {
      verified.length = 0;
      expect(await ledger.handOver(input)).toMatchObject({
        ok: false,
        reason: 'nullifier_already_spent',
      });
      expect(verified).toHaveLength(0);
    }
    // an unknown anchor wins over a spent nullifier
    expect(
      await ledger.handOver({
        ...handOverOf(spent),
        publicInputs: { ...handOverOf(spent).publicInputs, root: randomDigest() },
      }),
    ).toMatchObject({ ok: false, reason: 'unknown_root' });
    expect(await snapshot(store)).toEqual(afterSettle);

    // the store's limits come after the proof: capacity 1
    expect((await ledger.handOver(handOverOf(p))).ok).toBe(true);
    verified.length = 0;
    expect(await ledger.handOver(handOverOf(pay(4)))).toMatchObject({
      ok: false,
      reason: 'proof_store_full',
    });
    expect(verified).toHaveLength(1);
    expect(await ledger.handOver({ ...handOverOf(pay(4)), proof: flipped })).toMatchObject({
      ok: false,
      reason: 'invalid_priv_stark_proof',
    });
    // the same proof again is still answered when full
    expect(await ledger.handOver(handOverOf(p))).toMatchObject({ ok: true, stored: false });
    expect(await store.proofCount()).toBe(1);
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('keeps two proofs of one nullifier and refuses the third (too_many_proofs); its settlement frees them', async () => {
    const { ledger, store } = await funded();
    const [a, b, c] = [pay(5, 0), pay(5, 1), pay(5, 2)];
    const ra = await ledger.handOver(handOverOf(a!));
    const rb = await ledger.handOver(handOverOf(b!));
    expect([ra.ok, rb.ok]).toEqual([true, true]);
    expect(await ledger.handOver(handOverOf(c!))).toMatchObject({
      ok: false,
      reason: 'too_many_proofs',
    });
    expect(await store.proofCount()).toBe(2);
    // another note is not limited by this one
    expect((await ledger.handOver(handOverOf(pay(6)))).ok).toBe(true);
    // the settlement of one of them drops both
    expect(
      (await ledger.settle(compact(core, b!, (rb as { reference: string }).reference))).ok,
    ).toBe(true);
    expect(await store.handedOver((ra as { reference: string }).reference)).toBeNull();
    expect(await store.proofCount()).toBe(1);
    expect(await ledger.handOver(handOverOf(c!))).toMatchObject({
      ok: false,
      reason: 'nullifier_already_spent',
    });
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('refuses a payment that expires while its proof is verified (payment_expired), storing nothing', async () => {
    const p = pay(7);
    let now = p.payment.expiry * 1000 - 1000;
    const { store } = await funded({ clock: () => now });
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
    const before = await snapshot(store);
    expect(await slow.handOver(handOverOf(p))).toMatchObject({
      ok: false,
      reason: 'payment_expired',
    });
    expect(await snapshot(store)).toEqual(before);
    // the must-pass twin: the same hand-over in time
    now = p.payment.expiry * 1000 - 1000;
    const kept = new Ledger({ core, store, clock: () => now });
    expect(await kept.handOver(handOverOf(p))).toMatchObject({ ok: true, stored: true });
  });

  it('a stored proof serves only the payment it was handed over for: unknown_proof_reference otherwise', async () => {
    const { ledger, store } = await funded();
    const p = pay(8);
    const handed = await ledger.handOver(handOverOf(p));
    if (!handed.ok) throw new Error(handed.reason);
    const { reference } = handed;
    const before = await storedProofRows(store);
    const otherRecipient = core.encodeAddress(randomDigest());
    for (const change of [
      { amount: '9999' },
      { payTo: otherRecipient },
      { resourceId: 'GET /fixture/other' },
      { expiry: p.payment.expiry - 60 },
    ] satisfies Partial<PaymentContext>[]) {
      const payment = { ...p.payment, ...change };
      expect(
        await ledger.settle(compact(core, p, reference, payment)),
        JSON.stringify(change),
      ).toMatchObject({
        ok: false,
        reason: 'unknown_proof_reference',
      });
    }
    // another public input of the same payment: other change note, other root (also a checkpoint)
    await ledger.deposit({ amount: '5', pre: randomDigest() });
    const second = await ledger.checkpoint();
    for (const pi of [
      { ...p.publicInputs, change: randomDigest() },
      { ...p.publicInputs, root: second!.root },
    ]) {
      expect(
        await ledger.settle({ reference, publicInputs: pi, payment: p.payment }),
      ).toMatchObject({
        ok: false,
        reason: 'unknown_proof_reference',
      });
    }
    // another network: a ledger of another pool on the same store
    const elsewhere = new Ledger({ core, store, clock: () => NOW, network: 'shielded:elsewhere' });
    expect(
      await elsewhere.settle(
        compact(core, p, reference, { ...p.payment, network: 'shielded:elsewhere' }),
      ),
    ).toMatchObject({ ok: false, reason: 'unknown_proof_reference' });
    // an unknown reference, and a reference of the wrong shape
    expect(await ledger.settle(compact(core, p, randomDigest()))).toMatchObject({
      ok: false,
      reason: 'unknown_proof_reference',
    });
    expect(await ledger.settle(compact(core, p, reference.toUpperCase()))).toMatchObject({
      ok: false,
      reason: 'invalid_payload',
    });
    expect(await ledger.settle({ ...compact(core, p, reference), proof: p.proof })).toMatchObject({
      ok: false,
      reason: 'invalid_payload',
    });
    // a parameter set no longer accepted
    const { parameterSet } = core.proofReference(p.proof, p.publicInputs);
    const strict = new Ledger({
      core,
      store,
      clock: () => NOW,
      acceptedParameterSets: [parameterSet + 1],
    });
    expect(await strict.handedOverMatches(reference, p.publicInputs)).toBe(false);
    expect(await strict.settle(compact(core, p, reference))).toMatchObject({
      ok: false,
      reason: 'unknown_proof_reference',
    });
    // nothing of it was applied, and the must-pass twin settles (with its set accepted)
    expect(await storedProofRows(store)).toEqual(before);
    expect(await store.nullifier(p.note.nullifier)).toBeNull();
    expect((await allEvents(store)).filter((e) => e.kind === 'settlement')).toEqual([]);
    const accepting = new Ledger({
      core,
      store,
      clock: () => NOW,
      acceptedParameterSets: [parameterSet],
    });
    expect((await accepting.settle(compact(core, p, reference))).ok).toBe(true);
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('a settled nullifier is answered first: duplicate_settlement before the reference is looked up', async () => {
    const { ledger, store } = await funded();
    const p = pay(9);
    expect((await ledger.settle(p)).ok).toBe(true);
    const lookups: string[] = [];
    const watched = new Ledger({
      core,
      store: new Proxy(store, {
        get(target, property, receiver) {
          if (property === 'handedOver')
            return (reference: string) => {
              lookups.push(reference);
              return target.handedOver(reference);
            };
          return Reflect.get(target, property, receiver);
        },
      }),
      clock: () => NOW,
    });
    expect(await watched.settle(compact(core, p, randomDigest()))).toMatchObject({
      ok: false,
      reason: 'duplicate_settlement',
      settlementId: settlementId(p.note.nullifier),
    });
    expect(lookups).toEqual([]);
    // the must-fail twin: an unspent nullifier is looked up
    expect(await watched.settle(compact(core, pay(10), randomDigest()))).toMatchObject({
      ok: false,
      reason: 'unknown_proof_reference',
    });
    expect(lookups).toHaveLength(1);
  });

  it("a settle that loses the race to its nullifier's settlement is a duplicate, not an unknown reference", async () => {
    // Two ledgers on one store (two facilitator processes): the loser looked its nullifier up
    // before the winner committed, and its reference after — when the winner's commit had dropped
    // the row. The answer must still be duplicate_settlement with the winner's transaction.
    const { ledger, store } = await funded();
    const p = pay(10, 1);
    const handed = await ledger.handOver(handOverOf(p));
    if (!handed.ok) throw new Error(handed.reason);
    let winner: Promise<unknown> | null = null;
    const loser = new Ledger({
      core,
      store: new Proxy(store, {
        get(target, property, receiver) {
          if (property === 'handedOver')
            return async (reference: string) => {
              winner ??= ledger.settle(compact(core, p, handed.reference));
              expect(await winner).toMatchObject({ ok: true });
              return target.handedOver(reference);
            };
          return Reflect.get(target, property, receiver);
        },
      }),
      clock: () => NOW,
    });
    expect(await loser.settle(compact(core, p, handed.reference))).toMatchObject({
      ok: false,
      reason: 'duplicate_settlement',
      settlementId: settlementId(p.note.nullifier),
    });
    expect(winner).not.toBeNull();
    // the must-fail twin: a reference that is simply unknown, on an unspent nullifier
    expect(await loser.settle(compact(core, pay(11, 1), randomDigest()))).toMatchObject({
      ok: false,
      reason: 'unknown_proof_reference',
    });
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it("expires stored proofs by the ledger's clock, and its timer removes them", async () => {
    let now = NOW;
    const { store } = await funded();
    const prunes: number[] = [];
    const watched = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'pruneProofs')
          return async (at: number) => {
            const dropped = await target.pruneProofs(at);
            prunes.push(dropped);
            return dropped;
          };
        return Reflect.get(target, property, receiver);
      },
    });
    const ledger = new Ledger({ core, store: watched, clock: () => now, checkpointIntervalMs: 20 });
    const p = pay(11);
    const handed = await ledger.handOver(handOverOf(p));
    if (!handed.ok) throw new Error(handed.reason);
    expect(await ledger.handedOverMatches(handed.reference, p.publicInputs)).toBe(true);
    ledger.start();
    try {
      // the timer prunes, but nothing is due yet
      await vi.waitFor(() => expect(prunes.length).toBeGreaterThanOrEqual(2), { timeout: 30_000 });
      expect(prunes.every((n) => n === 0)).toBe(true);
      expect(await store.proofCount()).toBe(1);
      now = handed.expiresAt - 1;
      expect(await ledger.handedOverMatches(handed.reference, p.publicInputs)).toBe(true);
      // at its time it serves nothing, before any prune…
      now = handed.expiresAt;
      expect(await ledger.handedOverMatches(handed.reference, p.publicInputs)).toBe(false);
      expect(await ledger.settle(compact(core, p, handed.reference))).toMatchObject({
        ok: false,
        reason: 'unknown_proof_reference',
      });
      // …and the timer drops it
      await vi.waitFor(async () => expect(await store.proofCount()).toBe(0), { timeout: 30_000 });
      expect(await store.handedOver(handed.reference)).toBeNull();
    } finally {
      await ledger.stop();
    }
    expect(await store.nullifier(p.note.nullifier)).toBeNull();
    expect(await ledgerProblems(core, store)).toEqual([]);
  });

  it('cleanup racing a settle: the settle succeeds on a live proof or is refused, never half-applied', async () => {
    const { ledger, store } = await funded();
    // Even notes' proofs are handed over to expire first, and their prunes are due (they drop
    // them); odd notes' expire ten minutes later, and their prunes are not due for them: the
    // must-pass twins, whose settles always succeed.
    const handed: { p: PaymentFixture; reference: string; expiresAt: number; due: boolean }[] = [];
    for (let note = 0; note < SPEC.notes; note++) {
      const due = note % 2 === 0;
      const at = new Ledger({ core, store, clock: () => (due ? NOW : NOW + 600_000) });
      const p = pay(note, 2);
      const result = await at.handOver(handOverOf(p));
      if (!result.ok) throw new Error(result.reason);
      handed.push({ p, reference: result.reference, expiresAt: result.expiresAt, due });
    }
    const outcomes = await Promise.all(
      handed.map(async ({ p, reference, expiresAt, due }, i) => {
        const settle = () => ledger.settle(compact(core, p, reference));
        const prune = () => store.pruneProofs(due ? expiresAt : expiresAt - 1);
        // which of the two starts first alternates
        if (i % 4 < 2) {
          const [settled] = await Promise.all([settle(), prune()]);
          return { p, due, settled };
        }
        const [, settled] = await Promise.all([prune(), settle()]);
        return { p, due, settled };
      }),
    );
    for (const { p, due, settled } of outcomes) {
      const spent = await store.nullifier(p.note.nullifier);
      if (settled.ok) {
        expect(spent?.settlementId).toBe(settlementId(p.note.nullifier));
      } else {
        expect(due).toBe(true);
        expect(settled.reason).toBe('unknown_proof_reference');
        expect(spent).toBeNull();
      }
      if (!due) expect(settled.ok).toBe(true);
    }
    expect(await store.proofCount()).toBe(0);
    expect(await ledgerProblems(core, store)).toEqual([]);
  });
});

describe.each(kinds)('kill -9 between hand-over and settle (%s)', (kind) => {
  const h = storeHarness(kind);
  let fx: Fixtures;

  beforeAll(async () => {
    fx = await fixtures(h.core(), CRASH_SPEC);
  }, 600_000);

  it('loses no acknowledged hand-over: a fresh process settles every acknowledged reference', async () => {
    const core = h.core();
    const { store, config } = await h.fresh();
    await fundPool(new Ledger({ core, store }), fx);
    const payments = fx.payments.map((_, i) => i);
    const child = startWorker({ mode: 'handover', config, spec: CRASH_SPEC, payments });
    await child.waitFor((line) => line.ready === true);
    child.process.stdin!.end('go\n');
    // killed at its third acknowledgement, while the other lanes are mid-hand-over
    let acks = 0;
    await child.waitFor((line) => line.ack === 'handover' && ++acks === 3, 60_000);
    child.process.kill('SIGKILL');
    const exit = await child.exited;
    expect(exit.signal, exit.stderr).toBe('SIGKILL');
    const acked = new Map<number, string>();
    for (const line of child.lines as { ack?: string; payment?: number; reference?: string }[])
      if (line.ack === 'handover') acked.set(line.payment!, line.reference!);
    expect(acked.size).toBeGreaterThan(0);
    expect(acked.size).toBeLessThan(payments.length); // killed mid-load, not after
    expect(await ledgerProblems(core, store)).toEqual([]);

    const settler = startWorker({
      mode: 'race',
      config,
      spec: CRASH_SPEC,
      payments: [...acked.keys()],
      references: Object.fromEntries(acked),
    });
    await settler.waitFor((line) => line.ready === true);
    settler.process.stdin!.end('go\n');
    const report = (await settler.waitFor((line) => Array.isArray(line.results), 120_000)) as {
      results: { payment: number; ok: boolean; reason: string | null }[];
    };
    expect(report.results.filter((r) => !r.ok)).toEqual([]);
    expect(report.results).toHaveLength(acked.size);
    for (const payment of acked.keys())
      expect(await store.nullifier(fx.payments[payment]!.note.nullifier)).not.toBeNull();
    expect(await ledgerProblems(core, store)).toEqual([]);
    await settler.exited;
  }, 300_000);
});
