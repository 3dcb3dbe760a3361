// Every reason of the registry reached through the HTTP listener by a request that should produce
// it, with its status and the x402 body shape of the route (inject(), no sockets).

import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';

import { randomDigest } from '../../src/core/index.js';
import { PoolUnavailableError } from '../../src/ledger/index.js';
import {
  DEFAULT_EPOCH_GRID,
  encodeProof,
  MAX_PROOF_BYTES,
  messageOf,
  type Reason,
  REASON_CODES,
  statusOf,
} from '../../src/scheme/index.js';
import { API_KEY, AUTH, facilitatorHarness } from './helpers/harness.js';
import {
  compactRequestOf,
  handedOverRequestOf,
  liveSpec,
  type RequestOverrides,
  requestOf,
} from './helpers/requests.js';

const SPEC = liveSpec('http-reasons', 8, 2);
const reached = new Set<Reason>();

/** Checks status and body shape of a failure and records the reason as reached. */
function expectFailure(
  response: LightMyRequestResponse,
  kind: 'verify' | 'settle',
  reason: Reason,
  transaction = '',
) {
  expect(response.statusCode, response.body).toBe(statusOf(reason));
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json();
  if (kind === 'verify') {
    expect(body).toEqual({
      isValid: false,
      invalidReason: reason,
      invalidMessage: messageOf(reason),
    });
  } else {
    expect(body).toEqual({
      success: false,
      errorReason: reason,
      errorMessage: messageOf(reason),
      transaction,
      network: expect.any(String),
    });
  }
  reached.add(reason);
}

describe('every reason over HTTP', () => {
  const h = facilitatorHarness('sqlite', SPEC);
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
  const post = (
    app: FastifyInstance,
    kind: 'verify' | 'settle',
    payload: unknown,
    headers: Record<string, string> = AUTH,
  ) => app.inject({ method: 'POST', url: `/${kind}`, headers, payload: payload as object });

  it('200 for a valid payment on both routes, then 409 duplicate_settlement with the original transaction', async () => {
    const { app } = await open();
    const verify = await post(app, 'verify', requestOf(pay(0)));
    expect(verify.statusCode).toBe(200);
    expect(verify.json()).toEqual({ isValid: true });
    const settle = await post(app, 'settle', requestOf(pay(0)));
    expect(settle.statusCode).toBe(200);
    const { transaction } = settle.json();
    expect(settle.json()).toEqual({
      success: true,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      network: 'shielded:devnet',
    });
    expectFailure(
      await post(app, 'settle', requestOf(pay(0))),
      'settle',
      'duplicate_settlement',
      transaction,
    );
    expectFailure(
      await post(app, 'settle', requestOf(pay(0, 1))),
      'settle',
      'duplicate_settlement',
      transaction,
    );
    expectFailure(
      await post(app, 'verify', requestOf(pay(0, 1))),
      'verify',
      'nullifier_already_spent',
    );
  });

  it('401 unauthorized without a key, with an unknown key, or a malformed header — on both routes', async () => {
    const { app } = await open();
    for (const kind of ['verify', 'settle'] as const) {
      for (const headers of [
        {},
        { authorization: 'Bearer nope-nope-nope-nope' },
        { authorization: API_KEY },
        { authorization: `Basic ${API_KEY}` },
        { authorization: `Bearer  ${API_KEY}` },
      ]) {
        const response = await post(app, kind, requestOf(pay(1)), headers);
        expectFailure(response, kind, 'unauthorized');
        expect(response.headers['www-authenticate']).toBe('Bearer');
      }
    }
  });

  it('413 payload_too_large for a body over 512 KiB and for a proof over 128 KiB', async () => {
    const { app } = await open();
    const big = requestOf(pay(1), {
      payload: { proof: encodeProof(new Uint8Array(MAX_PROOF_BYTES + 3)) },
    });
    expectFailure(await post(app, 'verify', big), 'verify', 'payload_too_large');
    expectFailure(await post(app, 'settle', big), 'settle', 'payload_too_large');
    const huge = { ...requestOf(pay(1)), padding: 'x'.repeat(600 * 1024) };
    expectFailure(await post(app, 'verify', huge), 'verify', 'payload_too_large');
    expectFailure(await post(app, 'settle', huge), 'settle', 'payload_too_large');
  });

  it("429 rate_limited past a key's rate limit, with Retry-After; other keys unaffected", async () => {
    const limited = 'limited-key-0123456789';
    const { app } = await open({
      keys: { [limited]: { rateLimit: { max: 2, timeWindowMs: 60_000 } } },
    });
    const headers = { authorization: `Bearer ${limited}` };
    for (let i = 0; i < 2; i++)
      expect((await post(app, 'verify', requestOf(pay(1)), headers)).statusCode).toBe(200);
    const refused = await post(app, 'verify', requestOf(pay(1)), headers);
    expectFailure(refused, 'verify', 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expectFailure(await post(app, 'settle', requestOf(pay(1)), headers), 'settle', 'rate_limited');
    expect((await post(app, 'verify', requestOf(pay(1)))).statusCode).toBe(200);
  });

  it('400 invalid_payload for bad JSON, a wrong content type, schema violations and non-canonical encodings', async () => {
    const { app } = await open();
    const p = pay(1);
    for (const kind of ['verify', 'settle'] as const) {
      const raw = (payload: string, type = 'application/json') =>
        app.inject({
          method: 'POST',
          url: `/${kind}`,
          headers: { ...AUTH, 'content-type': type },
          payload,
        });
      expectFailure(await raw('{"x402Version":2,'), kind, 'invalid_payload');
      expectFailure(await raw(''), kind, 'invalid_payload');
      expectFailure(await raw('{"__proto__":{"x":1}}'), kind, 'invalid_payload');
      expectFailure(await raw(JSON.stringify(requestOf(p)), 'text/plain'), kind, 'invalid_payload');
      expectFailure(
        await app.inject({ method: 'POST', url: `/${kind}`, headers: AUTH }),
        kind,
        'invalid_payload',
      );
      const cases: unknown[] = [
        null,
        [],
        { ...requestOf(p), x402Version: 1 },
        { ...requestOf(p), paymentRequirements: undefined },
        { ...requestOf(p), paymentPayload: { ...requestOf(p).paymentPayload, x402Version: '2' } },
        requestOf(p, { payload: { expiry: String(p.payment.expiry) as unknown as number } }),
        requestOf(p, { payload: { amount: 10000 as unknown as string } }),
        requestOf(p, { payload: { root: p.publicInputs.root.toUpperCase() } }),
        requestOf(p, { requirements: { maxTimeoutSeconds: 0 } }),
        {
          ...requestOf(p),
          paymentPayload: {
            ...requestOf(p).paymentPayload,
            payload: { ...requestOf(p).paymentPayload.payload, payer: 'me' },
          },
        },
        requestOf(p, { payload: { proof: `${encodeProof(p.proof).slice(0, -4)}====` } }),
      ];
      for (const body of cases) expectFailure(await post(app, kind, body), kind, 'invalid_payload');
    }
  });

  it('400 unsupported_scheme, unsupported_network, unsupported_asset, payment_requirements_mismatch, payment_expired, expiry_too_far', async () => {
    const p = pay(1);
    const { app } = await open();
    const cases: [RequestOverrides, Reason][] = [
      [{ requirements: { scheme: 'exact' }, accepted: { scheme: 'exact' } }, 'unsupported_scheme'],
      [
        { requirements: { network: 'eip155:8453' }, accepted: { network: 'eip155:8453' } },
        'unsupported_network',
      ],
      [{ requirements: { asset: 'USDC' }, accepted: { asset: 'USDC' } }, 'unsupported_asset'],
      [{ requirements: { amount: '20000' } }, 'payment_requirements_mismatch'],
      [{ requirements: { maxTimeoutSeconds: 60 } }, 'expiry_too_far'],
    ];
    for (const kind of ['verify', 'settle'] as const) {
      for (const [overrides, reason] of cases)
        expectFailure(await post(app, kind, requestOf(p, overrides)), kind, reason);
    }
    const late = await open({ clock: () => p.payment.expiry * 1000 });
    expectFailure(await post(late.app, 'verify', requestOf(p)), 'verify', 'payment_expired');
    expectFailure(await post(late.app, 'settle', requestOf(p)), 'settle', 'payment_expired');
  });

  it('403 policy_violation for a recipient or an amount the key may not pay', async () => {
    const [onlyOther, small] = ['only-other-recipient-key', 'small-amounts-only-key'];
    const other = h.core().encodeAddress(h.fixtures().notes[0]!.owner);
    const { app } = await open({
      keys: { [onlyOther]: { allowedRecipients: [other] }, [small]: { maxAmount: 100n } },
    });
    for (const kind of ['verify', 'settle'] as const) {
      expectFailure(
        await post(app, kind, requestOf(pay(1)), { authorization: `Bearer ${onlyOther}` }),
        kind,
        'policy_violation',
      );
      expectFailure(
        await post(app, kind, requestOf(pay(1)), { authorization: `Bearer ${small}` }),
        kind,
        'policy_violation',
      );
    }
  });

  it('422 unknown_root for an anchor that is not a checkpoint, 422 invalid_priv_stark_proof for a bad proof', async () => {
    const { app } = await open({ fund: true });
    const p = pay(2);
    const flipped = Buffer.from(p.proof);
    flipped[flipped.length - 7]! ^= 1;
    for (const kind of ['verify', 'settle'] as const) {
      expectFailure(
        await post(app, kind, requestOf(p, { payload: { root: p.publicInputs.nullifier } })),
        kind,
        'unknown_root',
      );
      expectFailure(
        await post(app, kind, requestOf(p, { payload: { proof: flipped.toString('base64') } })),
        kind,
        'invalid_priv_stark_proof',
      );
      expectFailure(
        await post(app, kind, requestOf(pay(2, 1), { payload: { proof: encodeProof(p.proof) } })),
        kind,
        'invalid_priv_stark_proof',
      );
    }
    // nothing of it was settled
    expect((await post(app, 'settle', requestOf(p))).statusCode).toBe(200);
  });

  it('422 root_too_old for an anchor superseded longer ago than the epoch grid allows, then 200 within it (the twin)', async () => {
    const p = pay(6);
    const expiryMs = p.payment.expiry * 1000;
    const clock = { now: expiryMs - 86_400_000 };
    const { app, pool } = await open({
      fund: true,
      clock: () => clock.now,
      ledger: { epoch: DEFAULT_EPOCH_GRID },
    });
    // The funding checkpoint (the payment's anchor) superseded at the next boundary.
    clock.now += DEFAULT_EPOCH_GRID.epochMs;
    expect((await pool.deposit({ amount: '5', pre: randomDigest() })).ok).toBe(true);
    expect(await pool.checkpoint()).not.toBeNull();
    // A day later, 100 s before the payment expires, with a maxTimeoutSeconds of 200: the anchor
    // is far older than E + D + 200 s + the slack.
    clock.now = expiryMs - 100_000;
    const short = { maxTimeoutSeconds: 200 };
    const old = requestOf(p, { requirements: short, accepted: short });
    for (const kind of ['verify', 'settle'] as const)
      expectFailure(await post(app, kind, old), kind, 'root_too_old');
    // The twin: the same payment with a maxTimeoutSeconds that covers its anchor's age.
    expect((await post(app, 'verify', requestOf(p))).statusCode).toBe(200);
  });

  it('422 unknown_proof_reference for a compact payment whose reference the pool does not hold, or holds for another payment', async () => {
    const { app, pool, store } = await open({ fund: true });
    const held = await handedOverRequestOf(pool, pay(4));
    for (const kind of ['verify', 'settle'] as const) {
      expectFailure(
        await post(app, kind, compactRequestOf(pay(5), randomDigest())),
        kind,
        'unknown_proof_reference',
      );
      // pay(4)'s reference does not pay pay(5), nor pay(4, 1) (same note, other resource)
      expectFailure(
        await post(app, kind, compactRequestOf(pay(5), held.reference)),
        kind,
        'unknown_proof_reference',
      );
      expectFailure(
        await post(app, kind, compactRequestOf(pay(4, 1), held.reference)),
        kind,
        'unknown_proof_reference',
      );
    }
    expect(await store.nullifier(pay(5).publicInputs.nullifier)).toBeNull();
    // the must-pass twin: the payment it was handed over for
    const verify = await post(app, 'verify', held.request);
    expect(verify.statusCode, verify.body).toBe(200);
    expect(verify.json()).toEqual({ isValid: true });
    const settle = await post(app, 'settle', held.request);
    expect(settle.statusCode, settle.body).toBe(200);
    expect(await store.proofCount()).toBe(0);
  });

  it('503 pool_unavailable when the store fails, 500 facilitator_error on a fault of the facilitator', async () => {
    const { app, pool } = await open();
    const p = pay(3);
    pool.spent = async () => {
      throw new PoolUnavailableError('down');
    };
    expectFailure(await post(app, 'verify', requestOf(p)), 'verify', 'pool_unavailable');
    const settle = await post(app, 'settle', requestOf(p));
    expectFailure(settle, 'settle', 'pool_unavailable');
    expect(settle.json().network).toBe('shielded:devnet');
    pool.spent = async () => {
      throw new TypeError('a bug');
    };
    expectFailure(await post(app, 'verify', requestOf(p)), 'verify', 'facilitator_error');
    expectFailure(await post(app, 'settle', requestOf(p)), 'settle', 'facilitator_error');
  });

  it('404 not_found for any other path or method, in the verify shape (settle shape under /settle)', async () => {
    const { app } = await open();
    const cases: [string, string, 'verify' | 'settle'][] = [
      ['GET', '/', 'verify'],
      ['GET', '/supported', 'verify'],
      ['POST', '/verify/', 'verify'],
      ['GET', '/verify', 'verify'],
      ['PUT', '/verify', 'verify'],
      ['HEAD', '/health', 'verify'],
      ['OPTIONS', '/verify', 'verify'],
      ['GET', '/settle', 'settle'],
      ['DELETE', '/settle', 'settle'],
      ['POST', '/settle/extra', 'settle'],
      ['GET', '/metrics', 'verify'],
      ['POST', '/discovery/resources', 'verify'],
    ];
    for (const [method, url, kind] of cases) {
      const response = await app.inject({ method: method as 'GET', url, headers: AUTH });
      if (method === 'HEAD') {
        expect(response.statusCode).toBe(404);
        continue;
      }
      expectFailure(response, kind, 'not_found');
    }
  });

  it('reached every reason of the registry', () => {
    expect([...reached].sort()).toEqual([...REASON_CODES].sort());
  });
});
