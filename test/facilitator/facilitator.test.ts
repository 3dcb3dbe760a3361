// verify and settle over the pool: verify changes nothing and verifies off the event loop with
// in-flight deduplication (no result cache); settle leaves the proof to the pool's transition and
// maps its verdicts; a store outage is pool_unavailable, never a crash.

import { beforeAll, describe, expect, it } from 'vitest';

import {
  loadCore,
  type PrivStarkCore,
  randomDigest,
  type SpendPublicInputs,
} from '../../src/core/index.js';
import {
  Facilitator,
  type FacilitatorCore,
  type FacilitatorLedger,
} from '../../src/facilitator/index.js';
import { Ledger, PoolUnavailableError, reject, settlementId } from '../../src/ledger/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { allEvents } from '../ledger/helpers/invariants.js';
import { storeHarness } from '../ledger/helpers/stores.js';
import {
  compactRequestOf,
  handedOverRequestOf,
  liveSpec,
  requestOf,
} from '../http/helpers/requests.js';

/** The real core with counted verifications. */
function countingCore(core: PrivStarkCore) {
  const calls: SpendPublicInputs[] = [];
  const counted: FacilitatorCore = {
    parseDigest: (text) => core.parseDigest(text),
    decodeAddress: (address) => core.decodeAddress(address),
    contextDigest: (context) => core.contextDigest(context),
    verifySpend: (proof, inputs) => {
      calls.push(inputs);
      return core.verifySpend(proof, inputs);
    },
  };
  return { core: counted, calls };
}

describe('facilitator over a pool', () => {
  const stores = storeHarness('sqlite');
  let core: PrivStarkCore;
  let fx: Fixtures;
  beforeAll(async () => {
    core = stores.core();
    fx = await fixtures(core, liveSpec('facilitator', 4, 2));
  }, 300_000);

  async function funded() {
    const { store } = await stores.fresh();
    const pool = new Ledger({ core, store });
    await fundPool(pool, fx);
    const counting = countingCore(core);
    return {
      pool,
      store,
      facilitator: new Facilitator({ core: counting.core, ledger: pool }),
      calls: counting.calls,
    };
  }

  const pay = (note: number, variant = 0) => fx.payments[note * 2 + variant]!;

  it('asks the store each question once on one settle: a valid one, another on the same anchor, a replay, a refused one', async () => {
    const { store } = await stores.fresh();
    const counts: Record<string, number> = {};
    const counted = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          counts[String(property)] = (counts[String(property)] ?? 0) + 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const ledger = new Ledger({ core, store: counted });
    await fundPool(ledger, fx);
    const facilitator = new Facilitator({ core, ledger });
    const settleCounting = async (request: ReturnType<typeof requestOf>) => {
      for (const key of Object.keys(counts)) delete counts[key];
      const outcome = await facilitator.settle(request);
      return { outcome, calls: { ...counts } };
    };
    const first = await settleCounting(requestOf(pay(2)));
    expect(first.outcome.ok).toBe(true);
    expect(first.calls).toEqual({ nullifier: 1, checkpointByRoot: 1, apply: 1 });
    const second = await settleCounting(requestOf(pay(3)));
    expect(second.outcome.ok).toBe(true);
    expect(second.calls).toEqual({ nullifier: 1, apply: 1 });
    const replay = await settleCounting(requestOf(pay(2)));
    expect(replay.outcome).toMatchObject({
      ok: false,
      reason: 'duplicate_settlement',
      transaction: settlementId(pay(2).publicInputs.nullifier),
    });
    expect(replay.calls).toEqual({ nullifier: 1 });
    const refused = await settleCounting(requestOf(pay(1), { requirements: { amount: '1' } }));
    expect(refused.outcome).toMatchObject({ ok: false, reason: 'payment_requirements_mismatch' });
    expect(refused.calls).toEqual({ nullifier: 1 });
    const refusedReplay = await settleCounting(
      requestOf(pay(2), { requirements: { amount: '1' } }),
    );
    expect(refusedReplay.outcome).toMatchObject({ ok: false, reason: 'duplicate_settlement' });
    expect(refusedReplay.calls).toEqual({ nullifier: 1 });
  });

  it('asks the store each question once on a compact verify and a compact settle', async () => {
    const { store } = await stores.fresh();
    const counts: Record<string, number> = {};
    const counted = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          counts[String(property)] = (counts[String(property)] ?? 0) + 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const ledger = new Ledger({ core, store: counted });
    await fundPool(ledger, fx);
    const compactA = (await handedOverRequestOf(ledger, pay(2))).request;
    const compactB = (await handedOverRequestOf(ledger, pay(3))).request;
    const { core: countingVerifier, calls: verifications } = countingCore(core);
    const facilitator = new Facilitator({ core: countingVerifier, ledger });
    const counting = async <T>(call: () => Promise<T>) => {
      for (const key of Object.keys(counts)) delete counts[key];
      const outcome = await call();
      return { outcome, calls: { ...counts } };
    };
    // verify: the anchor (cached once known), the nullifier, the hand-over; no proof verified
    const hand = await counting(() => facilitator.verify(compactA));
    expect(hand.outcome).toEqual({ ok: true });
    expect(hand.calls).toEqual({ nullifier: 1, handedOver: 1 });
    expect(verifications).toHaveLength(0);
    const unknown = await counting(() =>
      facilitator.verify(compactRequestOf(pay(1), randomDigest())),
    );
    expect(unknown.outcome).toEqual({ ok: false, reason: 'unknown_proof_reference' });
    expect(unknown.calls).toEqual({ nullifier: 1, handedOver: 1 });
    // the must-fail twin: an inline verify asks for no hand-over and verifies the proof
    const inline = await counting(() => facilitator.verify(requestOf(pay(1))));
    expect(inline.outcome).toEqual({ ok: true });
    expect(inline.calls).toEqual({ nullifier: 1 });
    expect(verifications).toHaveLength(1);
    // settle: the nullifier, the hand-over, the commit (the anchor is known by now)
    const settle = await counting(() => facilitator.settle(compactA));
    expect(settle.outcome).toMatchObject({ ok: true });
    expect(settle.calls).toEqual({ nullifier: 1, handedOver: 1, apply: 1 });
    const replay = await counting(() => facilitator.settle(compactA));
    expect(replay.outcome).toMatchObject({ ok: false, reason: 'duplicate_settlement' });
    expect(replay.calls).toEqual({ nullifier: 1 });
    // a reference matching no stored proof asks the nullifier again (it may have just settled)
    const refused = await counting(() =>
      facilitator.settle(compactRequestOf(pay(1), randomDigest())),
    );
    expect(refused.outcome).toMatchObject({ ok: false, reason: 'unknown_proof_reference' });
    expect(refused.calls).toEqual({ nullifier: 2, handedOver: 1 });
    expect(verifications).toHaveLength(1);
    // a fresh facilitator and ledger ask for the anchor once, on a compact settle too
    const fresh = new Ledger({ core, store: counted });
    const second = await counting(() => new Facilitator({ core, ledger: fresh }).settle(compactB));
    expect(second.outcome).toMatchObject({ ok: true });
    expect(second.calls).toEqual({ nullifier: 1, checkpointByRoot: 1, handedOver: 1, apply: 1 });
  });

  it('verify accepts a valid payment and changes nothing in the pool', async () => {
    const { store, facilitator } = await funded();
    const before = await store.state();
    expect(await facilitator.verify(requestOf(pay(0)))).toEqual({ ok: true });
    expect(await facilitator.verify(requestOf(pay(0)))).toEqual({ ok: true });
    expect(await store.state()).toEqual(before);
    expect(await allEvents(store)).toHaveLength(fx.notes.length);
  });

  it('verify refuses a tampered proof and a proof for another payment of the same note', async () => {
    const { facilitator } = await funded();
    const p = pay(1);
    const flipped = Buffer.from(p.proof);
    flipped[flipped.length >> 1]! ^= 1;
    expect(await facilitator.verify(requestOf({ ...p, proof: flipped }))).toEqual({
      ok: false,
      reason: 'invalid_priv_stark_proof',
    });
    // variant 1 pays another resource: its requirements with variant 0's proof do not verify
    const other = pay(1, 1);
    expect(await facilitator.verify(requestOf({ ...other, proof: p.proof }))).toEqual({
      ok: false,
      reason: 'invalid_priv_stark_proof',
    });
    // nor does a change commitment that is not the proved one
    expect(
      await facilitator.verify(
        requestOf(p, { payload: { commitment: pay(2).publicInputs.change } }),
      ),
    ).toEqual({
      ok: false,
      reason: 'invalid_priv_stark_proof',
    });
  });

  it('verifies identical payloads in flight once, and again later (no result cache)', async () => {
    const { facilitator, calls } = await funded();
    const request = requestOf(pay(2));
    const verdicts = await Promise.all(
      Array.from({ length: 20 }, () => facilitator.verify(structuredClone(request))),
    );
    expect(verdicts.every((v) => v.ok)).toBe(true);
    expect(calls).toHaveLength(1);
    expect(facilitator.verifier.joined).toBe(19);
    expect(facilitator.verifier.size).toBe(0);
    expect((await facilitator.verify(request)).ok).toBe(true);
    expect(calls).toHaveLength(2);
    // different payloads of one note in flight are verified separately
    await Promise.all([
      facilitator.verify(requestOf(pay(3, 0))),
      facilitator.verify(requestOf(pay(3, 1))),
    ]);
    expect(calls).toHaveLength(4);
  });

  it('verify reports unknown_root for an anchor that is not a checkpoint, and nullifier_already_spent after a settle', async () => {
    const { facilitator } = await funded();
    const p = pay(0);
    expect(
      await facilitator.verify(requestOf(p, { payload: { root: pay(0).publicInputs.change } })),
    ).toEqual({ ok: false, reason: 'unknown_root' });
    expect((await facilitator.settle(requestOf(p))).ok).toBe(true);
    expect(await facilitator.verify(requestOf(p))).toEqual({
      ok: false,
      reason: 'nullifier_already_spent',
    });
    expect(await facilitator.verify(requestOf(pay(0, 1)))).toEqual({
      ok: false,
      reason: 'nullifier_already_spent',
    });
  });

  it('settle leaves the proof to the pool and settles a nullifier once, whatever the payment', async () => {
    const { facilitator, calls } = await funded();
    const p = pay(1);
    const id = settlementId(p.publicInputs.nullifier);
    expect(await facilitator.settle(requestOf(p))).toEqual({
      ok: true,
      transaction: id,
      network: 'shielded:devnet',
    });
    expect(calls).toHaveLength(0); // the facilitator did not verify: the pool did, with its own core
    for (const again of [p, pay(1, 1)]) {
      expect(await facilitator.settle(requestOf(again))).toEqual({
        ok: false,
        reason: 'duplicate_settlement',
        transaction: id,
        network: 'shielded:devnet',
      });
    }
  });

  it('settle answers duplicate_settlement for a settled nullifier whatever other check the replay fails, and the real reason for one never settled', async () => {
    const { pool, facilitator } = await funded();
    const settled = pay(3);
    const fresh = pay(0);
    const id = settlementId(settled.publicInputs.nullifier);
    expect(await facilitator.settle(requestOf(settled))).toMatchObject({
      ok: true,
      transaction: id,
    });
    const afterExpiry = new Facilitator({
      core,
      ledger: pool,
      clock: () => (settled.payment.expiry + 1) * 1000,
    });
    const cases: [
      string,
      Facilitator,
      (p: typeof settled) => Parameters<Facilitator['settle']>,
      string,
    ][] = [
      ['expired since', afterExpiry, (p) => [requestOf(p)], 'payment_expired'],
      [
        'a policy that forbids the recipient',
        facilitator,
        (p) => [requestOf(p), { allowedRecipients: [] }],
        'policy_violation',
      ],
      [
        'other requirements',
        facilitator,
        (p) => [requestOf(p, { requirements: { amount: '1' } })],
        'payment_requirements_mismatch',
      ],
      [
        'a broken proof encoding',
        facilitator,
        (p) => [requestOf(p, { payload: { proof: '!!!' } })],
        'invalid_payload',
      ],
    ];
    for (const [, f, args, reason] of cases) {
      expect(await f.settle(...args(settled))).toEqual({
        ok: false,
        reason: 'duplicate_settlement',
        transaction: id,
        network: 'shielded:devnet',
      });
      // The twin: the same failure for a nullifier that never settled keeps its own reason.
      expect(await f.settle(...args(fresh))).toEqual({
        ok: false,
        reason,
        transaction: '',
        network: 'shielded:devnet',
      });
    }
    // A nullifier that is not a canonical digest names nothing: the encoding check answers.
    const bad = requestOf(settled, { payload: { nullifier: 'f'.repeat(64) } });
    expect(await facilitator.settle(bad)).toMatchObject({
      ok: false,
      reason: 'invalid_payload',
      transaction: '',
    });
  });

  it("settle of a tampered proof is refused by the pool's own verification", async () => {
    const { facilitator, store } = await funded();
    const before = await store.state();
    const flipped = Buffer.from(pay(2).proof);
    flipped[100]! ^= 0x40;
    expect(await facilitator.settle(requestOf({ ...pay(2), proof: flipped }))).toEqual({
      ok: false,
      reason: 'invalid_priv_stark_proof',
      transaction: '',
      network: 'shielded:devnet',
    });
    expect(await store.state()).toEqual(before);
  });
});

describe('facilitator over a failing pool', () => {
  let core: PrivStarkCore;
  let fx: Fixtures;
  beforeAll(async () => {
    core = await loadCore();
    fx = await fixtures(core, liveSpec('facilitator', 4, 2));
  }, 300_000);

  // A ledger whose transition and refusal ask its own store questions, as the real one does: a
  // failing question fails whichever call asks it.
  const pool = (overrides: Partial<FacilitatorLedger>): FacilitatorLedger => {
    const ledger: FacilitatorLedger = {
      isCheckpoint: async () => true,
      spent: async () => null,
      handedOverMatches: async () => false,
      settle: async (input) => {
        await ledger.spent(input.publicInputs.nullifier);
        await ledger.isCheckpoint(input.publicInputs.root);
        return reject('invalid_payload');
      },
      refuse: async (nullifier, reason) => {
        const spent = await ledger.spent(String(nullifier));
        return spent
          ? reject('duplicate_settlement', { settlementId: spent.settlementId })
          : { ok: false as const, reason };
      },
      ...overrides,
    };
    return ledger;
  };
  const down = async () => {
    throw new PoolUnavailableError('down');
  };

  it('turns a store outage into pool_unavailable on every pool call', async () => {
    const request = requestOf(fx.payments[0]!);
    for (const failing of [{ isCheckpoint: down }, { spent: down }, { settle: down }]) {
      const facilitator = new Facilitator({ core, ledger: pool(failing) });
      expect(await facilitator.settle(request)).toEqual({
        ok: false,
        reason: 'pool_unavailable',
        transaction: '',
        network: 'shielded:devnet',
      });
      if (!('settle' in failing))
        expect(await facilitator.verify(request)).toEqual({
          ok: false,
          reason: 'pool_unavailable',
        });
    }
  });

  it("answers pool_unavailable, not the check's reason, for a settle that fails a check while the store is down (it may have settled)", async () => {
    const request = requestOf(fx.payments[0]!, { requirements: { amount: '1' } });
    expect(await new Facilitator({ core, ledger: pool({ spent: down }) }).settle(request)).toEqual({
      ok: false,
      reason: 'pool_unavailable',
      transaction: '',
      network: 'shielded:devnet',
    });
    expect(await new Facilitator({ core, ledger: pool({}) }).settle(request)).toMatchObject({
      reason: 'payment_requirements_mismatch',
    });
    // verify keeps the check's reason: it asks the pool nothing once a check failed.
    expect(await new Facilitator({ core, ledger: pool({ spent: down }) }).verify(request)).toEqual({
      ok: false,
      reason: 'payment_requirements_mismatch',
    });
  });

  it("maps the pool's verdicts: a full tree is pool_unavailable, its reasons pass through, a duplicate carries the id", async () => {
    const request = requestOf(fx.payments[0]!);
    const cases: [ReturnType<typeof reject>, string, string][] = [
      [reject('tree_full'), 'pool_unavailable', ''],
      [reject('payment_expired'), 'payment_expired', ''],
      [reject('unknown_root'), 'unknown_root', ''],
      [reject('duplicate_settlement', { settlementId: '0xabc' }), 'duplicate_settlement', '0xabc'],
      [reject('duplicate_commitment'), 'facilitator_error', ''],
    ];
    for (const [verdict, reason, transaction] of cases) {
      const facilitator = new Facilitator({ core, ledger: pool({ settle: async () => verdict }) });
      expect(await facilitator.settle(request)).toEqual({
        ok: false,
        reason,
        transaction,
        network: 'shielded:devnet',
      });
    }
  });

  it('lets a fault of its own through as an exception (the HTTP layer answers facilitator_error)', async () => {
    const facilitator = new Facilitator({
      core,
      ledger: pool({
        spent: async () => {
          throw new TypeError('bug');
        },
      }),
    });
    await expect(facilitator.verify(requestOf(fx.payments[0]!))).rejects.toThrow(TypeError);
  });
});
