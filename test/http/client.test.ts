// The official HTTPFacilitatorClient of @x402/core 2.27 against a real listener: verify and settle
// succeed for a real payment, and each failure reaches the client as its reason (a VerifyError or
// SettleError carrying the status, the reason and, for settle, the transaction and network).

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { SettleError, VerifyError } from '@x402/core/types';

import { settlementId } from '../../src/ledger/index.js';
import { encodeProof, type Reason } from '../../src/scheme/index.js';
import { API_KEY, facilitatorHarness } from './helpers/harness.js';
import { liveSpec, type RequestOverrides, requestOf } from './helpers/requests.js';

const SPEC = liveSpec('http-client', 6, 2);

describe('official HTTPFacilitatorClient against a real listener', () => {
  const h = facilitatorHarness('sqlite', SPEC);
  let app: FastifyInstance;
  let url: string;
  let pool: Awaited<ReturnType<typeof h.app>>['pool'];
  const limited = 'limited-client-key-0123';
  /** A key whose policy allows no recipient. */
  const bounded = 'bounded-client-key-0123';

  beforeAll(async () => {
    const built = await h.app({
      keys: {
        [limited]: { rateLimit: { max: 1, timeWindowMs: 60_000 } },
        [bounded]: { allowedRecipients: [] },
      },
    });
    ({ app, pool } = built);
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app.close();
  });

  const client = (key: string | null = API_KEY) =>
    new HTTPFacilitatorClient({
      url,
      timeoutMs: 10_000,
      ...(key
        ? {
            createAuthHeaders: async () => ({
              verify: { Authorization: `Bearer ${key}` },
              settle: { Authorization: `Bearer ${key}` },
            }),
          }
        : {}),
    });
  const pay = (note: number, variant = 0) =>
    h.fixtures().payments[note * SPEC.variants! + variant]!;
  const args = (note: number, overrides: RequestOverrides = {}, variant = 0) => {
    const body = requestOf(pay(note, variant), overrides);
    return [
      body.paymentPayload as unknown as PaymentPayload,
      body.paymentRequirements as unknown as PaymentRequirements,
    ] as const;
  };

  async function verifyFails(call: Promise<unknown>, status: number, reason: Reason) {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VerifyError);
    expect(error).toMatchObject({ statusCode: status, invalidReason: reason });
  }

  async function settleFails(
    call: Promise<unknown>,
    status: number,
    reason: Reason,
    transaction = '',
  ) {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SettleError);
    expect(error).toMatchObject({
      statusCode: status,
      errorReason: reason,
      transaction,
      network: expect.any(String),
    });
  }

  it('verifies and settles a real payment, then refuses its replay with the original transaction', async () => {
    const c = client();
    expect(await c.verify(...args(0))).toEqual({ isValid: true });
    const settled = await c.settle(...args(0));
    expect(settled).toEqual({
      success: true,
      transaction: settlementId(pay(0).publicInputs.nullifier),
      network: 'shielded:devnet',
    });
    await settleFails(c.settle(...args(0)), 409, 'duplicate_settlement', settled.transaction);
    await settleFails(
      c.settle(...args(0, {}, 1)),
      409,
      'duplicate_settlement',
      settled.transaction,
    );
    await verifyFails(c.verify(...args(0)), 409, 'nullifier_already_spent');
  });

  it('delivers each failure to the client as its reason', async () => {
    const c = client();
    const p = pay(1);
    const flipped = Buffer.from(p.proof);
    flipped[3000]! ^= 2;
    const cases: [RequestOverrides, number, Reason][] = [
      [{ payload: { proof: flipped.toString('base64') } }, 422, 'invalid_priv_stark_proof'],
      [{ payload: { root: p.publicInputs.change } }, 422, 'unknown_root'],
      [{ payload: { amount: '1' } }, 400, 'payment_requirements_mismatch'],
      [{ requirements: { maxTimeoutSeconds: 60 } }, 400, 'expiry_too_far'],
      [{ requirements: { network: 'shielded:other' } }, 400, 'unsupported_network'],
      [{ requirements: { asset: 'USDC' } }, 400, 'unsupported_asset'],
      [{ payload: { proof: encodeProof(new Uint8Array(140_000)) } }, 413, 'payload_too_large'],
      [{ payload: { proof: 'not base64!' } }, 400, 'invalid_payload'],
      [{ requirements: { scheme: 'exact' } }, 400, 'unsupported_scheme'],
      [{ payload: { expiry: Math.floor(Date.now() / 60_000) * 60 - 600 } }, 400, 'payment_expired'],
    ];
    for (const [overrides, status, reason] of cases) {
      await verifyFails(c.verify(...args(1, overrides)), status, reason);
      await settleFails(c.settle(...args(1, overrides)), status, reason);
    }
    await verifyFails(client(bounded).verify(...args(1)), 403, 'policy_violation');
    await settleFails(client(bounded).settle(...args(1)), 403, 'policy_violation');
    await verifyFails(client(null).verify(...args(1)), 401, 'unauthorized');
    await settleFails(client('wrong-key-0123456789').settle(...args(1)), 401, 'unauthorized');
    expect(await client(limited).verify(...args(1))).toEqual({ isValid: true });
    await verifyFails(client(limited).verify(...args(1)), 429, 'rate_limited');
    // nothing above was settled
    expect((await c.settle(...args(1))).success).toBe(true);
  });

  it('delivers a pool outage as pool_unavailable (503) with the network', async () => {
    const spent = pool.spent.bind(pool);
    pool.spent = async () => {
      const { PoolUnavailableError } = await import('../../src/ledger/index.js');
      throw new PoolUnavailableError('down');
    };
    try {
      await verifyFails(client().verify(...args(2)), 503, 'pool_unavailable');
      await settleFails(client().settle(...args(2)), 503, 'pool_unavailable');
    } finally {
      pool.spent = spent;
    }
  });

  it('delivers a fault of the facilitator as facilitator_error (500), with nothing of the fault in it', async () => {
    const spent = pool.spent.bind(pool);
    pool.spent = async () => {
      throw new TypeError('a bug with a secret inside');
    };
    try {
      await verifyFails(client().verify(...args(2)), 500, 'facilitator_error');
      await settleFails(client().settle(...args(2)), 500, 'facilitator_error');
      const error = await client()
        .verify(...args(2))
        .catch((e: unknown) => e);
      expect(`${JSON.stringify(error)} ${(error as Error).message}`).not.toMatch(
        /secret|TypeError/,
      );
    } finally {
      pool.spent = spent;
    }
    expect(await client().verify(...args(2))).toEqual({ isValid: true });
  });
});
