/**
 * @module The checks a payment's public inputs and fields pass before the ledger looks anything up,
 * written once for the settlement and the proof hand-over: canonical digests and
 * amounts, this pool's scheme, network and asset, the proof's amount and context digest against the
 * payment (ctx recomputed here from the payment the recipient is derived from), and expiry by the
 * pool's clock. No I/O.
 */

import {
  CoreError,
  type DigestHex,
  isDigestFormat,
  type PaymentContext,
  type PrivStarkCore,
} from '../core/index.js';
import { parseAmount } from '../scheme/index.js';
import { type LedgerRejection, reject } from './errors.js';

/** What the rules need from the core. */
export type RulesCore = Pick<PrivStarkCore, 'parseDigest' | 'decodeAddress' | 'contextDigest'>;

/** The pool a payment must be for. */
export interface PoolIdentity {
  readonly scheme: string;
  readonly network: string;
  readonly asset: string;
}

/** The public inputs a payment claims, its context digest aside. */
export interface ClaimedInputs {
  readonly root: string;
  readonly nullifier: string;
  readonly change: string;
  readonly amount: string;
}

/** A payment that passed: the recipient's owner, the amount, the recomputed context digest. */
export interface CheckedFields {
  readonly ok: true;
  readonly owner: DigestHex;
  readonly amount: bigint;
  readonly ctx: DigestHex;
}

/** Whether `text` is a digest with canonical elements. */
export function isCanonicalDigest(core: RulesCore, text: unknown): text is DigestHex {
  if (!isDigestFormat(text)) return false;
  try {
    core.parseDigest(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a payment in the ledger's order, first failure wins: shapes and encodings
 * (`invalid_payload`), scheme / network / asset, the claimed amount and — when `claimedCtx` is
 * given — the context digest against the payment (`payment_requirements_mismatch`), expiry by the
 * pool's clock (`payment_expired`).
 * @param nowSeconds the pool's clock
 */
export function checkPayment(
  core: RulesCore,
  pool: PoolIdentity,
  inputs: ClaimedInputs,
  claimedCtx: string | null,
  payment: PaymentContext,
  nowSeconds: number,
): CheckedFields | LedgerRejection {
  // 1. Shapes and encodings.
  if (typeof payment !== 'object' || payment === null) return reject('invalid_payload');
  for (const digest of [inputs.root, inputs.nullifier, inputs.change]) {
    if (!isCanonicalDigest(core, digest)) return reject('invalid_payload');
  }
  if (claimedCtx !== null && !isCanonicalDigest(core, claimedCtx)) return reject('invalid_payload');
  const amount = parseAmount(payment.amount);
  if (amount === null || typeof inputs.amount !== 'string') return reject('invalid_payload');
  if (!Number.isSafeInteger(payment.expiry)) return reject('invalid_payload');
  // 2. This pool's scheme, network and asset.
  if (payment.scheme !== pool.scheme) return reject('unsupported_scheme');
  if (payment.network !== pool.network) return reject('unsupported_network');
  if (payment.asset !== pool.asset) return reject('unsupported_asset');
  // 3. The proof pays this payment: same amount, same context digest.
  if (inputs.amount !== payment.amount) return reject('payment_requirements_mismatch');
  let owner: DigestHex;
  let ctx: DigestHex;
  try {
    owner = core.decodeAddress(payment.payTo);
    ctx = core.contextDigest(payment);
  } catch (error) {
    if (error instanceof CoreError || error instanceof TypeError || error instanceof RangeError)
      return reject('invalid_payload');
    throw error;
  }
  if (claimedCtx !== null && ctx !== claimedCtx) return reject('payment_requirements_mismatch');
  // 4. Expiry by the pool's own clock.
  if (nowSeconds >= payment.expiry) return reject('payment_expired');
  return { ok: true, owner, amount, ctx };
}
