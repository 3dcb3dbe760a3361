// The statement of a request: ctx recomputed from paymentRequirements (never accepted) and the
// payload's expiry, against the shared context vectors; the public-input mapping.

import { beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import {
  type PaymentRequirements,
  paymentContext,
  publicInputs,
  resourceIdOf,
} from '../../src/scheme/index.js';
import { readVectors } from '../helpers/backends.js';

interface ContextVector {
  scheme: string;
  network: string;
  asset: string;
  payTo: string;
  amount: string;
  resourceId: string;
  expiry: number;
  ctx: string;
}

const { contexts } = readVectors<{ contexts: ContextVector[] }>('context.json');

function requirementsOf(v: ContextVector, extra?: Record<string, unknown>): PaymentRequirements {
  return {
    scheme: v.scheme,
    network: v.network,
    asset: v.asset,
    amount: v.amount,
    payTo: v.payTo,
    maxTimeoutSeconds: 300,
    ...(extra ? { extra } : {}),
  };
}

describe('payment context', () => {
  let core: PrivStarkCore;
  beforeAll(async () => {
    core = await loadCore();
  });

  it("gives the vectors' ctx from requirements + extra.resourceId + the payload expiry", () => {
    for (const v of contexts) {
      const requirements = requirementsOf(
        v,
        v.resourceId === '' ? undefined : { resourceId: v.resourceId, paymentFlow: 'upfront' },
      );
      expect(core.contextDigest(paymentContext(requirements, v.expiry))).toBe(v.ctx);
    }
  });

  it('reads resourceId as "" when extra or the field is absent or not a string', () => {
    const v = contexts[0]!;
    expect(resourceIdOf(requirementsOf(v))).toBe('');
    expect(resourceIdOf(requirementsOf(v, {}))).toBe('');
    expect(resourceIdOf(requirementsOf(v, { resourceId: 7 }))).toBe('');
    expect(resourceIdOf(requirementsOf(v, { resourceId: 'GET /x' }))).toBe('GET /x');
    const empty = contexts.find((c) => c.resourceId === '')!;
    expect(core.contextDigest(paymentContext(requirementsOf(empty), empty.expiry))).toBe(empty.ctx);
  });

  it('maps the payload to the public inputs with commitment as the change', () => {
    const payload = {
      scheme: 'priv-stark/v1',
      network: 'shielded:devnet',
      root: `0x${'11'.repeat(32)}`,
      nullifier: `0x${'22'.repeat(32)}`,
      commitment: `0x${'33'.repeat(32)}`,
      proof: 'AAAA',
      amount: '10000',
      recipient: 'pstark1…',
      expiry: 60,
    };
    expect(publicInputs(payload, `0x${'44'.repeat(32)}`)).toEqual({
      root: payload.root,
      nullifier: payload.nullifier,
      change: payload.commitment,
      amount: '10000',
      ctx: `0x${'44'.repeat(32)}`,
    });
  });
});
