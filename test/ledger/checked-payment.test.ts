// One home for the payment rules (issue 22): the ledger called directly with a payment the
// facilitator would refuse — a payTo that names another owner or is no address, a non-canonical
// nullifier, an expired payment, a claimed context digest of another payment — refuses it with
// the same reason the facilitator gives, and applies nothing. A payment the ledger's own rules
// passed (the facilitator's CheckedPayment) is taken as checked; a look-alike — a copy with a field
// changed, or one another pool's rules passed — is checked again as raw input and refused.

import { beforeAll, describe, expect, it } from 'vitest';

import type { SpendPublicInputs } from '../../src/core/index.js';
import { Facilitator } from '../../src/facilitator/index.js';
import { Ledger, type SettlementInput } from '../../src/ledger/index.js';
import { type CheckedPayment, PaymentRules } from '../../src/scheme/index.js';
import { type Fixtures, fixtures, fundPool, type PaymentFixture } from '../../testkit/fixtures.js';
import { liveSpec, type RequestOverrides, requestOf } from '../http/helpers/requests.js';
import { storeHarness } from './helpers/stores.js';

describe('the ledger applies the payment rules itself to raw input', () => {
  const stores = storeHarness('sqlite');
  let fx: Fixtures;
  beforeAll(async () => {
    fx = await fixtures(stores.core(), liveSpec('facilitator', 4, 2));
  }, 300_000);

  async function open(clock: () => number = Date.now) {
    const core = stores.core();
    const { store } = await stores.fresh();
    const ledger = new Ledger({ core, store, clock });
    await fundPool(ledger, fx);
    return { ledger, store, facilitator: new Facilitator({ core, ledger, clock }) };
  }

  /** A raw settlement of `p` (the proof inline), its parts changed by `change`. */
  const raw = (
    p: PaymentFixture,
    change: { pi?: Partial<SpendPublicInputs>; payTo?: string } = {},
  ): SettlementInput => ({
    proof: p.proof,
    publicInputs: { ...p.publicInputs, ...change.pi },
    payment: { ...p.payment, ...(change.payTo !== undefined ? { payTo: change.payTo } : {}) },
  });

  const p = () => fx.payments[0]!;
  /** Another owner's address (every fixture payment pays the same merchant). */
  const otherPayTo = () => stores.core().encodeAddress(fx.notes[1]!.owner);
  /** The context digest of another payment (the other variant: another resource). */
  const otherCtx = () => fx.payments[1]!.publicInputs.ctx;
  const nonCanonical = () => `0x${'ff'.repeat(8)}${p().publicInputs.nullifier.slice(18)}`;

  /** Each case: the facilitator's request, the ledger's raw input, the reason both give. */
  const cases: [string, () => RequestOverrides, () => SettlementInput, string][] = [
    [
      'payTo naming another owner than the proof pays',
      () => ({ requirements: { payTo: otherPayTo() } }),
      () => raw(p(), { payTo: otherPayTo() }),
      'payment_requirements_mismatch',
    ],
    [
      'payTo that is no address',
      () => ({
        requirements: { payTo: 'not-an-address' },
        accepted: { payTo: 'not-an-address' },
        payload: { recipient: 'not-an-address' },
      }),
      () => raw(p(), { payTo: 'not-an-address' }),
      'invalid_payload',
    ],
    [
      'a non-canonical nullifier',
      () => ({ payload: { nullifier: nonCanonical() } }),
      () => raw(p(), { pi: { nullifier: nonCanonical() as SpendPublicInputs['nullifier'] } }),
      'invalid_payload',
    ],
  ];

  for (const [what, overrides, input, reason] of cases) {
    it(`refuses ${what} as the facilitator does (${reason}), and applies nothing`, async () => {
      const { ledger, store, facilitator } = await open();
      expect(otherPayTo()).not.toBe(p().payment.payTo);
      const viaFacilitator = await facilitator.settle(requestOf(p(), overrides()));
      expect(viaFacilitator).toMatchObject({ ok: false, reason });
      expect(await ledger.settle(input())).toMatchObject({ ok: false, reason });
      expect(await store.nullifier(p().publicInputs.nullifier)).toBeNull();
    });
  }

  it('refuses an expired payment as the facilitator does (payment_expired), and applies nothing', async () => {
    const after = (p().payment.expiry + 1) * 1000;
    const { ledger, store, facilitator } = await open(() => after);
    expect(await facilitator.settle(requestOf(p()))).toMatchObject({
      ok: false,
      reason: 'payment_expired',
    });
    expect(await ledger.settle(raw(p()))).toMatchObject({ ok: false, reason: 'payment_expired' });
    expect(await store.nullifier(p().publicInputs.nullifier)).toBeNull();
  });

  it('refuses a claimed context digest of another payment (payment_requirements_mismatch)', async () => {
    const { ledger, store } = await open();
    expect(otherCtx()).not.toBe(p().publicInputs.ctx);
    expect(await ledger.settle(raw(p(), { pi: { ctx: otherCtx() } }))).toMatchObject({
      ok: false,
      reason: 'payment_requirements_mismatch',
    });
    expect(await store.nullifier(p().publicInputs.nullifier)).toBeNull();
    // The must-pass twin: the same raw input unchanged settles.
    expect(await ledger.settle(raw(p()))).toMatchObject({ ok: true });
  });

  it('takes a payment its own rules passed; a look-alike is checked again and refused', async () => {
    const { ledger, store } = await open();
    const claim = { ...raw(p()), reference: null };
    const checked = ledger.paymentRules.check(claim, { now: Math.floor(Date.now() / 1000) });
    if (!checked.ok) throw new Error(checked.reason);
    expect(Object.isFrozen(checked)).toBe(true);
    expect(ledger.paymentRules.vouchesFor(checked)).toBe(true);
    // A copy whose payTo names another owner: not vouched for, checked as raw input.
    const copy = {
      ...checked,
      payment: { ...checked.payment, payTo: otherPayTo() },
    } as unknown as CheckedPayment;
    expect(ledger.paymentRules.vouchesFor(copy)).toBe(false);
    expect(await ledger.settle(copy)).toMatchObject({
      ok: false,
      reason: 'payment_requirements_mismatch',
    });
    // One another pool's rules passed: checked again by this pool's rules.
    const elsewhere = new PaymentRules(stores.core(), {
      ...ledger.paymentRules.pool,
      network: 'shielded:elsewhere',
    });
    // (its context digest derived, not claimed: another network is another context)
    const { root, nullifier, change, amount } = p().publicInputs;
    const foreign = elsewhere.check(
      {
        ...claim,
        publicInputs: { root, nullifier, change, amount },
        payment: { ...claim.payment, network: 'shielded:elsewhere' },
      },
      { now: Math.floor(Date.now() / 1000) },
    );
    if (!foreign.ok) throw new Error(foreign.reason);
    expect(ledger.paymentRules.vouchesFor(foreign)).toBe(false);
    expect(await ledger.settle(foreign)).toMatchObject({
      ok: false,
      reason: 'unsupported_network',
    });
    expect(await store.nullifier(p().publicInputs.nullifier)).toBeNull();
    // The must-pass twin: the vouched payment settles.
    expect(await ledger.settle(checked)).toMatchObject({ ok: true });
  });
});
