// Compact payments through the facilitator's listener: a reference serves only the payment its
// proof was handed over for (at /verify and /settle), only on the ledger that holds it, and settles
// once when two facilitator processes sharing PostgreSQL race on it.

import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';

import { randomDigest } from '../../src/core/index.js';
import { Ledger, openStore, settlementId } from '../../src/ledger/index.js';
import type { NetworkProfile } from '../../src/scheme/index.js';
import { fundPool } from '../../testkit/fixtures.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { ledgerProblems } from '../ledger/helpers/invariants.js';
import { AUTH, API_KEY, facilitatorHarness } from './helpers/harness.js';
import { type FacilitatorProcess, postJson, startFacilitatorProcess } from './helpers/process.js';
import {
  compactRequestOf,
  handedOverRequestOf,
  liveSpec,
  type RequestOverrides,
  requestOf,
} from './helpers/requests.js';

const SPEC = liveSpec('http-compact', 6, 2);
const ELSEWHERE: NetworkProfile = { network: 'shielded:elsewhere', asset: 'dUSD', decimals: 6 };

const kinds = [
  'sqlite' as const,
  ...(postgresAvailable() || process.env.CI ? ['postgres' as const] : []),
];

describe.each(kinds)('compact payments over HTTP (%s)', (kind) => {
  const h = facilitatorHarness(kind, SPEC);
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  const open = async (options: Parameters<typeof h.app>[0] = {}) => {
    const built = await h.app(options);
    apps.push(built.app);
    return built;
  };
  const pay = (note: number, variant = 0) =>
    h.fixtures().payments[note * SPEC.variants! + variant]!;
  const post = (app: FastifyInstance, route: 'verify' | 'settle', body: unknown) =>
    app.inject({ method: 'POST', url: `/${route}`, headers: AUTH, payload: body as object });

  /** Both routes answer 422 unknown_proof_reference, each in its shape. */
  async function expectUnknown(app: FastifyInstance, body: unknown, what: string) {
    const verify = await post(app, 'verify', body);
    expect(verify.statusCode, `${what}: ${verify.body}`).toBe(422);
    expect(verify.json()).toMatchObject({
      isValid: false,
      invalidReason: 'unknown_proof_reference',
    });
    const settle = await post(app, 'settle', body);
    expect(settle.statusCode, `${what}: ${settle.body}`).toBe(422);
    expect(settle.json()).toMatchObject({
      success: false,
      errorReason: 'unknown_proof_reference',
      transaction: '',
    });
  }

  it('a reference serves only its payment: other amount, recipient, resource id, expiry, network or parameter set is unknown_proof_reference', async () => {
    const { app, pool, store } = await open();
    const p = pay(0);
    const { reference, request } = await handedOverRequestOf(pool, p);
    const otherRecipient = h.core().encodeAddress(randomDigest());
    const cases: [string, RequestOverrides][] = [
      [
        'amount',
        {
          requirements: { amount: '9999' },
          accepted: { amount: '9999' },
          payload: { amount: '9999' },
        },
      ],
      [
        'recipient',
        {
          requirements: { payTo: otherRecipient },
          accepted: { payTo: otherRecipient },
          payload: { recipient: otherRecipient },
        },
      ],
      ['resource id', { requirements: { extra: { resourceId: 'GET /fixture/other' } } }],
      ['expiry', { payload: { expiry: p.payment.expiry - 60 } }],
    ];
    for (const [what, overrides] of cases)
      await expectUnknown(app, compactRequestOf(p, reference, overrides), what);

    // another network: a facilitator and ledger of another pool on the same store
    const elsewhere = await open({
      store,
      ledger: { network: ELSEWHERE.network },
      networks: [ELSEWHERE],
    });
    await expectUnknown(
      elsewhere.app,
      compactRequestOf(p, reference, {
        requirements: { network: ELSEWHERE.network },
        accepted: { network: ELSEWHERE.network },
        payload: { network: ELSEWHERE.network },
      }),
      'network',
    );
    // a parameter set this ledger no longer accepts
    const { parameterSet } = h.core().proofReference(p.proof, p.publicInputs);
    const strict = await open({ store, ledger: { acceptedParameterSets: [parameterSet + 1] } });
    await expectUnknown(strict.app, request, 'parameter set');
    expect(await store.nullifier(p.publicInputs.nullifier)).toBeNull();
    expect(await store.proofCount()).toBe(1);

    // the must-pass twin: the payment it was handed over for
    expect((await post(app, 'verify', request)).json()).toEqual({ isValid: true });
    const settled = await post(app, 'settle', request);
    expect(settled.statusCode, settled.body).toBe(200);
    expect(settled.json()).toMatchObject({
      success: true,
      transaction: settlementId(p.publicInputs.nullifier),
    });
    expect(await store.proofCount()).toBe(0);
    expect(await ledgerProblems(h.core(), store)).toEqual([]);
  });

  it('a facilitator on another store cannot resolve the reference', async () => {
    const a = await open();
    const b = await open();
    const p = pay(1);
    const { request } = await handedOverRequestOf(a.pool, p);
    await expectUnknown(b.app, request, 'another store');
    expect(await b.store.nullifier(p.publicInputs.nullifier)).toBeNull();
    // the must-pass twin: the store that holds it
    expect((await post(a.app, 'settle', request)).statusCode).toBe(200);
    // and the inline payment still settles on the other store (its own ledger)
    expect((await post(b.app, 'settle', requestOf(p))).statusCode).toBe(200);
  });
});

const pgKinds = postgresAvailable() || process.env.CI ? ['postgres' as const] : [];

describe.each(pgKinds)('one reference settled on two facilitator processes sharing %s', (kind) => {
  const h = facilitatorHarness(kind, SPEC);
  const running: FacilitatorProcess[] = [];
  afterEach(async () => {
    for (const p of running.splice(0)) {
      p.process.kill('SIGTERM');
      await p.exited;
    }
  });

  it('settles exactly once; every other reply is 409 duplicate_settlement with its transaction', async () => {
    const { config } = await h.stores.fresh();
    const store = await openStore(h.core(), config);
    try {
      const ledger = new Ledger({ core: h.core(), store });
      await fundPool(ledger, h.fixtures());
      const args = ['--database-url', config.databaseUrl!];
      running.push(
        ...(await Promise.all([
          startFacilitatorProcess(args, { API_KEYS: API_KEY }),
          startFacilitatorProcess(args, { API_KEYS: API_KEY }),
        ])),
      );
      const urls = running.map((p) => `${p.url}/settle`);
      const pay = (note: number, variant = 0) =>
        h.fixtures().payments[note * SPEC.variants! + variant]!;

      // one compact payment, 60 times over both processes
      const one = await handedOverRequestOf(ledger, pay(2));
      const replies = await Promise.all(
        Array.from({ length: 60 }, (_, i) => postJson(urls[i % 2]!, one.request, API_KEY)),
      );
      // both proofs of one note compact, and its inline payment, all at once
      const both = [
        await handedOverRequestOf(ledger, pay(3, 0)),
        await handedOverRequestOf(ledger, pay(3, 1)),
      ];
      const mixed = [both[0]!.request, both[1]!.request, requestOf(pay(3, 0))];
      const mixedReplies = await Promise.all(
        Array.from({ length: 60 }, (_, i) => postJson(urls[i % 2]!, mixed[i % 3], API_KEY)),
      );
      for (const [group, nullifier] of [
        [replies, pay(2).publicInputs.nullifier],
        [mixedReplies, pay(3).publicInputs.nullifier],
      ] as const) {
        expect(group.every((r) => r !== null)).toBe(true);
        const transaction = settlementId(nullifier);
        expect(group.filter((r) => r!.status === 200).map((r) => r!.body)).toEqual([
          { success: true, transaction, network: 'shielded:devnet' },
        ]);
        for (const r of group.filter((x) => x!.status !== 200)) {
          expect(r!.status).toBe(409);
          expect(r!.body).toMatchObject({ errorReason: 'duplicate_settlement', transaction });
        }
      }
      const state = await store.state();
      expect(state.events).toBe(SPEC.notes + 2);
      expect(await store.proofCount()).toBe(0);
      expect(await ledgerProblems(h.core(), store)).toEqual([]);
    } finally {
      await store.close();
    }
  }, 180_000);
});
