// The reason registry is the profile's table (priv-stark-v1.md §4) character for character, with
// one status per reason; messages are generic; the pool's overlapping codes are identical.

import { describe, expect, it } from 'vitest';

import { LEDGER_REASONS } from '../../src/ledger/index.js';
import {
  isReason,
  messageOf,
  POOL_NODE_REASONS,
  REASON_CODES,
  REASONS,
  statusOf,
} from '../../src/scheme/index.js';

/** priv-stark-v1.md §4, transcribed row by row, with the compact-payments revision's row. */
const PROFILE_TABLE: Record<string, number> = {
  unauthorized: 401,
  payload_too_large: 413,
  rate_limited: 429,
  invalid_payload: 400,
  unsupported_scheme: 400,
  unsupported_network: 400,
  unsupported_asset: 400,
  payment_requirements_mismatch: 400,
  payment_expired: 400,
  expiry_too_far: 400,
  policy_violation: 403,
  unknown_root: 422,
  root_too_old: 422,
  nullifier_already_spent: 409,
  duplicate_settlement: 409,
  unknown_proof_reference: 422,
  invalid_priv_stark_proof: 422,
  pool_unavailable: 503,
  facilitator_error: 500,
  not_found: 404,
};

describe('reason registry', () => {
  it('is exactly the profile table, in its order, with one status each', () => {
    expect(REASON_CODES).toEqual(Object.keys(PROFILE_TABLE));
    for (const [reason, status] of Object.entries(PROFILE_TABLE)) {
      expect(isReason(reason)).toBe(true);
      if (isReason(reason)) expect(statusOf(reason)).toBe(status);
    }
  });

  it("uses snake_case codes and the seed document's status classes (4xx client or policy, 5xx facilitator or dependency)", () => {
    for (const reason of REASON_CODES) {
      expect(reason).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
      const status = statusOf(reason);
      const dependency = reason === 'pool_unavailable' || reason === 'facilitator_error';
      expect(dependency ? status >= 500 && status < 600 : status >= 400 && status < 500).toBe(true);
    }
  });

  it('has short generic messages that name no keys, digests, addresses or internals', () => {
    for (const reason of REASON_CODES) {
      const message = messageOf(reason);
      expect(message.length).toBeGreaterThan(5);
      expect(message.length).toBeLessThan(80);
      expect(message).not.toMatch(/0x[0-9a-f]|pstark1|sqlite|postgres|stack|error:|Bearer/i);
    }
    expect(new Set(REASON_CODES.map(messageOf)).size).toBe(REASON_CODES.length);
  });

  it('refuses anything else as a reason', () => {
    for (const other of [
      '',
      'ok',
      'Invalid_Payload',
      'toString',
      '__proto__',
      'tree_full',
      42,
      null,
    ])
      expect(isReason(other)).toBe(false);
  });

  it("shares the pool's transition codes character for character", () => {
    const transition = LEDGER_REASONS.filter((r) => !Object.hasOwn(POOL_NODE_REASONS, r));
    for (const reason of transition) expect(Object.hasOwn(REASONS, reason)).toBe(true);
    // The pool node's own reasons are the deposit, hand-over, exit, relay and attestation ones, none of them
    // the facilitator's.
    expect(Object.keys(POOL_NODE_REASONS).sort()).toEqual([
      'amount_out_of_range',
      'attestation_failed',
      'authorization_expired',
      'authorization_invalid',
      'chain_deposits_only',
      'chain_payouts_only',
      'deposit_exists',
      'deposit_refused',
      'duplicate_commitment',
      'invalid_destination',
      'merchant_relay_foreign',
      'merchant_relay_handovers_only',
      'no_attester',
      'payout_conflict',
      'proof_store_full',
      'reclaim_refused',
      'relay_fee_too_low',
      'relay_unavailable',
      'too_many_proofs',
      'tree_full',
      'unknown_withdrawal',
      'unpayable_destination',
    ]);
    for (const reason of Object.keys(POOL_NODE_REASONS)) expect(isReason(reason)).toBe(false);
  });
});
