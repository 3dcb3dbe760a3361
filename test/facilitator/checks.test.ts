// The ordered checks without I/O: each reason from a request that should produce it, and the
// order — when two checks would fail, the earlier one answers.

import { beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { type CallerPolicy, checkRequest } from '../../src/facilitator/index.js';
import {
  encodeProof,
  type FacilitatorRequest,
  MAX_PROOF_BYTES,
  NETWORKS,
} from '../../src/scheme/index.js';
import { type Fixtures, fixtures } from '../../testkit/fixtures.js';
import { liveSpec, type RequestOverrides, requestOf } from '../http/helpers/requests.js';

describe('ordered checks', () => {
  let core: PrivStarkCore;
  let fx: Fixtures;
  beforeAll(async () => {
    core = await loadCore();
    fx = await fixtures(core, liveSpec('facilitator-checks', 2, 1));
  }, 300_000);

  const now = () => Math.floor(Date.now() / 1000);
  const run = (request: FacilitatorRequest, policy?: CallerPolicy, at = now()) =>
    checkRequest(request, { core, networks: NETWORKS, now: at, policy });
  const reasonOf = (overrides: RequestOverrides, policy?: CallerPolicy, at?: number) => {
    const result = run(requestOf(fx.payments[0]!, overrides), policy, at);
    return result.ok ? 'ok' : result.reason;
  };

  it('passes a valid request and recomputes ctx from the requirements', () => {
    const p = fx.payments[0]!;
    const result = run(requestOf(p));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.publicInputs).toEqual(p.publicInputs);
    expect(result.payment).toEqual(p.payment);
    expect(Buffer.from(result.proof!).equals(Buffer.from(p.proof))).toBe(true);
    expect(result.reference).toBeNull();
    expect(result.network).toBe('shielded:devnet');
  });

  it('refuses encodings: proof size and base64, amounts, expiry granularity, digests, address, resource id', () => {
    const p = fx.payments[0]!;
    const pi = p.publicInputs;
    expect(reasonOf({ payload: { proof: encodeProof(new Uint8Array(MAX_PROOF_BYTES + 1)) } })).toBe(
      'payload_too_large',
    );
    expect(reasonOf({ payload: { proof: `${encodeProof(p.proof)}\n` } })).toBe('invalid_payload');
    expect(reasonOf({ payload: { proof: encodeProof(p.proof).replace(/\+/g, '-') } })).toBe(
      'invalid_payload',
    );
    expect(reasonOf({ payload: { amount: '010000' } })).toBe('invalid_payload');
    expect(reasonOf({ requirements: { amount: '0' } })).toBe('invalid_payload');
    expect(reasonOf({ payload: { expiry: p.payment.expiry - 1 } })).toBe('invalid_payload');
    // an element ≥ p: the digest format is right but the encoding is not canonical
    const nonCanonical = `0x${'ff'.repeat(8)}${pi.root.slice(18)}`;
    expect(reasonOf({ payload: { root: nonCanonical } })).toBe('invalid_payload');
    expect(reasonOf({ payload: { nullifier: nonCanonical } })).toBe('invalid_payload');
    expect(reasonOf({ payload: { commitment: nonCanonical } })).toBe('invalid_payload');
    const typo = `${p.payment.payTo.slice(0, -1)}${p.payment.payTo.endsWith('q') ? 'p' : 'q'}`;
    expect(
      reasonOf({
        payload: { recipient: typo },
        requirements: { payTo: typo },
        accepted: { payTo: typo },
      }),
    ).toBe('invalid_payload');
    expect(reasonOf({ requirements: { extra: { resourceId: 'é'.repeat(129) } } })).toBe(
      'invalid_payload',
    );
  });

  it('refuses unsupported scheme, network and asset wherever they appear', () => {
    expect(reasonOf({ requirements: { scheme: 'exact' } })).toBe('unsupported_scheme');
    expect(reasonOf({ accepted: { scheme: 'exact' } })).toBe('unsupported_scheme');
    expect(reasonOf({ payload: { scheme: 'priv-stark/v2' } })).toBe('unsupported_scheme');
    expect(reasonOf({ requirements: { network: 'shielded:mainnet' } })).toBe('unsupported_network');
    expect(reasonOf({ accepted: { network: 'eip155:8453' } })).toBe('unsupported_network');
    expect(reasonOf({ payload: { network: 'shielded:other' } })).toBe('unsupported_network');
    expect(reasonOf({ requirements: { asset: 'USDC' } })).toBe('unsupported_asset');
  });

  it('refuses accepted or payload fields that differ from the requirements', () => {
    const other = core.encodeAddress(fx.notes[1]!.owner);
    expect(reasonOf({ accepted: { amount: '20000' } })).toBe('payment_requirements_mismatch');
    expect(reasonOf({ accepted: { payTo: other } })).toBe('payment_requirements_mismatch');
    expect(reasonOf({ accepted: { asset: 'USDC' } })).toBe('payment_requirements_mismatch');
    expect(reasonOf({ requirements: { amount: '20000' } })).toBe('payment_requirements_mismatch');
    expect(reasonOf({ payload: { amount: '20000' } })).toBe('payment_requirements_mismatch');
    expect(reasonOf({ payload: { recipient: other } })).toBe('payment_requirements_mismatch');
    expect(reasonOf({ requirements: { payTo: other } })).toBe('payment_requirements_mismatch');
  });

  it('ignores accepted.maxTimeoutSeconds and extra: ctx and the window come from the requirements', () => {
    expect(
      reasonOf({ accepted: { maxTimeoutSeconds: 1, extra: { resourceId: 'GET /elsewhere' } } }),
    ).toBe('ok');
  });

  it('refuses an expiry that has passed or is too far ahead', () => {
    const expiry = fx.payments[0]!.payment.expiry;
    expect(reasonOf({}, undefined, expiry)).toBe('payment_expired');
    expect(reasonOf({}, undefined, expiry + 3600)).toBe('payment_expired');
    expect(reasonOf({ requirements: { maxTimeoutSeconds: 300 } }, undefined, expiry - 360)).toBe(
      'ok',
    );
    expect(reasonOf({ requirements: { maxTimeoutSeconds: 300 } }, undefined, expiry - 361)).toBe(
      'expiry_too_far',
    );
  });

  it("applies the caller's policy: allowed recipients and maximum amount", () => {
    const payTo = fx.payments[0]!.payment.payTo;
    expect(reasonOf({}, { allowedRecipients: [payTo] })).toBe('ok');
    expect(reasonOf({}, { allowedRecipients: [] })).toBe('policy_violation');
    expect(reasonOf({}, { allowedRecipients: [core.encodeAddress(fx.notes[1]!.owner)] })).toBe(
      'policy_violation',
    );
    expect(reasonOf({}, { maxAmount: 10_000n })).toBe('ok');
    expect(reasonOf({}, { maxAmount: 9_999n })).toBe('policy_violation');
  });

  it("stops at the first failure in the profile's order", () => {
    const expired = fx.payments[0]!.payment.expiry;
    // encoding before scheme, scheme before network before asset, then mismatch, expiry, policy
    expect(reasonOf({ payload: { amount: 'x' }, requirements: { scheme: 'exact' } })).toBe(
      'invalid_payload',
    );
    expect(reasonOf({ requirements: { scheme: 'exact', network: 'x:y', asset: 'USDC' } })).toBe(
      'unsupported_scheme',
    );
    expect(reasonOf({ requirements: { network: 'x:y', asset: 'USDC' } })).toBe(
      'unsupported_network',
    );
    expect(reasonOf({ requirements: { asset: 'USDC', amount: '20000' } })).toBe(
      'unsupported_asset',
    );
    expect(reasonOf({ requirements: { amount: '20000' } }, { maxAmount: 1n }, expired)).toBe(
      'payment_requirements_mismatch',
    );
    expect(reasonOf({}, { maxAmount: 1n }, expired)).toBe('payment_expired');
    expect(reasonOf({}, { maxAmount: 1n })).toBe('policy_violation');
  });
});
