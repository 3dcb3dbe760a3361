// A chain-backed pool's network and asset are in every payment's context (docs/chain.md,
// "Binding"): a proof made for the devnet pool never settles in a chain pool — presented as it is
// or with its payment relabelled to the chain's network and asset — and a proof made for a chain
// pool never settles in the devnet pool, nor in the pool of another escrow. Real proofs; each
// refusal beside the payment that does settle where it belongs.

import { beforeAll, describe, expect, it } from 'vitest';

import { type PaymentContext, spendWitness } from '../../src/core/index.js';
import { Ledger, type SettlementInput } from '../../src/ledger/index.js';
import { chainNetworkProfile, type NetworkProfile } from '../../src/scheme/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { storeHarness } from './helpers/stores.js';

const SPEC = { seed: 'chain-binding', notes: 2 };
const NOW = Date.UTC(2030, 0, 1);
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const CHAIN = chainNetworkProfile(
  { chainId: 8453, escrow: '0x1111111111111111111111111111111111111111', token: TOKEN },
  6,
);
const OTHER_ESCROW = chainNetworkProfile(
  { chainId: 8453, escrow: '0x2222222222222222222222222222222222222222', token: TOKEN },
  6,
);

describe('a chain pool and the devnet pool', () => {
  const h = storeHarness('sqlite');
  let fx: Fixtures;
  let chainPayment: SettlementInput;

  beforeAll(async () => {
    const core = h.core();
    fx = await fixtures(core, SPEC);
    // The same note's payment, proved for the chain pool.
    const devnet = fx.payments[0]!;
    const payment: PaymentContext = {
      ...devnet.payment,
      network: CHAIN.network,
      asset: CHAIN.asset,
    };
    const witness = await spendWitness(core, {
      note: devnet.note,
      leaves: fx.notes.map((n) => n.commitment),
      index: devnet.index,
      amount: payment.amount,
      ctx: core.contextDigest(payment),
    });
    const { proof, publicInputs } = await core.proveSpend(witness);
    chainPayment = { proof, publicInputs, payment };
  }, 300_000);

  async function pool(network?: NetworkProfile) {
    const { store } = await h.fresh();
    const ledger = new Ledger({
      core: h.core(),
      store,
      clock: () => NOW,
      ...(network ? { network: network.network, asset: network.asset } : {}),
    });
    await fundPool(ledger, fx);
    return ledger;
  }

  it('a devnet proof is refused by the chain pool, relabelled or not; it settles on the devnet', async () => {
    const devnet = fx.payments[0]!;
    const chain = await pool(CHAIN);
    expect(await chain.settle(devnet)).toMatchObject({ ok: false, reason: 'unsupported_network' });
    const relabelled = {
      ...devnet,
      payment: { ...devnet.payment, network: CHAIN.network, asset: CHAIN.asset },
    };
    expect(await chain.settle(relabelled)).toMatchObject({
      ok: false,
      reason: 'payment_requirements_mismatch',
    });
    expect((await chain.state()).events).toBe(fx.notes.length);
    // Twin: where it was made for, it settles.
    expect((await (await pool()).settle(devnet)).ok).toBe(true);
  });

  it('a chain proof is refused by the devnet pool and by another escrow’s; it settles in its own', async () => {
    const devnet = await pool();
    expect(await devnet.settle(chainPayment)).toMatchObject({
      ok: false,
      reason: 'unsupported_network',
    });
    const relabelled = {
      ...chainPayment,
      payment: { ...chainPayment.payment, network: 'shielded:devnet', asset: 'dUSD' },
    };
    expect(await devnet.settle(relabelled)).toMatchObject({
      ok: false,
      reason: 'payment_requirements_mismatch',
    });
    const other = await pool(OTHER_ESCROW);
    expect(
      await other.settle({
        ...chainPayment,
        payment: { ...chainPayment.payment, network: OTHER_ESCROW.network },
      }),
    ).toMatchObject({ ok: false, reason: 'payment_requirements_mismatch' });
    // Twin: in its own pool it settles.
    expect((await (await pool(CHAIN)).settle(chainPayment)).ok).toBe(true);
  });
});
