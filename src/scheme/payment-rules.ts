/**
 * @module The payment rules of this profile, written once for everyone who applies them: the
 * facilitator's `/verify` and `/settle`, and the ledger's settlement, hand-over and transfer. In the
 * profile's order, first failure wins: encodings (the carried proof or its reference, canonical
 * digests, amounts, the recipient's address), this pool's scheme, network and asset, the proof's
 * amount and context digest against the payment, expiry by the caller's clock. A caller adds its
 * own facts at each step (the facilitator: the x402 envelope and the API key's policy).
 *
 * Each fact is checked once per request. What passes comes out as a {@link CheckedPayment} — the
 * recipient's owner, the amount and the context digest derived on the way travel forward in it —
 * which only {@link PaymentRules.check} makes: the ledger takes one its own rules vouch for without
 * checking it again, and checks anything else as raw input. No I/O.
 */

// The core's leaf modules, never its index: the merchant's entry (`priv-stark/server`) reaches
// these rules through the scheme, and bundlers must not follow the index to the worker threads.
import type { DigestHex } from '../core/digest.js';
import { CoreError } from '../core/errors.js';
import type { PaymentContext, PrivStarkCore, ProofReference } from '../core/facade.js';
import type { SpendPublicInputs } from '../core/spend.js';
import { expiryStatus, isProofReference, parseAmount } from './encoding.js';
import { MAX_PROOF_BYTES } from './profile.js';

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

/**
 * A payment as it arrives: exactly one of the proof and its reference, the public inputs it claims
 * (with the context digest the proof claims, when it carries one) and the payment it pays.
 */
export interface PaymentClaim {
  readonly proof?: Uint8Array | null | undefined;
  readonly reference?: string | null | undefined;
  readonly publicInputs: ClaimedInputs & { readonly ctx?: string | undefined };
  readonly payment: PaymentContext;
}

/** Reasons the rules refuse with (each in the profile's registry). */
export type RuleReason =
  | 'invalid_payload'
  | 'unsupported_scheme'
  | 'unsupported_network'
  | 'unsupported_asset'
  | 'payment_requirements_mismatch'
  | 'payment_expired'
  | 'expiry_too_far';

/** The steps of the profile's order at which a caller adds facts of its own. */
export type RuleStep = 'encodings' | 'scheme' | 'network' | 'binding' | 'last';

/** A refusal: the first fact that failed. */
export interface RuleFailure<R extends string = RuleReason> {
  readonly ok: false;
  readonly reason: R;
}

/** How one payment is checked. */
export interface CheckOptions<R extends string> {
  /** The checker's clock, unix seconds. */
  readonly now: number;
  /** An expiry later than `now + maxTimeoutSeconds` and the slack is `expiry_too_far` (default: none). */
  readonly maxTimeoutSeconds?: number | undefined;
  /**
   * The caller's own facts at `step`, run after the rules' own of that step (`last`: after
   * expiry): a reason to refuse with, or `null`.
   */
  readonly also?: ((step: RuleStep) => R | null) | undefined;
}

/**
 * A payment that passed every rule: the proof or its reference, the public inputs with the context
 * digest recomputed from the payment, the payment, and what was derived on the way — the
 * recipient's owner and the amount. Only {@link PaymentRules.check} makes one (frozen); there is
 * no other constructor, and {@link PaymentRules.vouchesFor} tells one it made from a look-alike.
 * Its fields are {@link VouchedPayment}'s (its private field makes the type nominal).
 */
export type CheckedPayment = VouchedPayment;

/**
 * Whether `text` is a digest with canonical elements. The core's `parseDigest` checks the format
 * too (`0x` and 64 lowercase hex digits: its contract, and `Digest::from_hex` in crates/core), so no
 * pattern test runs before it — one per digest cost about 0.5 µs of every /verify and /settle.
 */
export function isCanonicalDigest(
  core: Pick<RulesCore, 'parseDigest'>,
  text: unknown,
): text is DigestHex {
  if (typeof text !== 'string') return false;
  try {
    core.parseDigest(text);
    return true;
  } catch {
    return false;
  }
}

/** What the encodings step derives. */
interface Encoded {
  readonly amount: bigint;
  readonly owner: DigestHex;
}

/**
 * The rules of one pool. One per ledger (the facilitator uses its ledger's, so a payment the
 * facilitator checked is one the ledger vouches for).
 * @example
 * const rules = new PaymentRules(core, { scheme, network, asset });
 * const checked = rules.check(claim, { now: Math.floor(Date.now() / 1000) });
 * if (!checked.ok) console.log(checked.reason);
 */
export class PaymentRules {
  /**
   * @param core parses digests, decodes addresses and hashes the payment context
   * @param pool the scheme, network and asset of the pool
   * @param contextDigest how `ctx` is hashed (default the core's; the service passes a memo)
   */
  constructor(
    private readonly core: RulesCore,
    readonly pool: PoolIdentity,
    private readonly contextDigest: (payment: PaymentContext) => DigestHex = (payment) =>
      core.contextDigest(payment),
  ) {}

  /** Whether `value` is a payment these rules passed (made by {@link check}, unchanged). */
  vouchesFor(value: unknown): value is CheckedPayment {
    return VouchedPayment.madeBy(value) === this;
  }

  /**
   * Checks a payment in the profile's order, first failure wins: encodings (`invalid_payload`),
   * scheme, network and asset, the claimed amount and — when the proof claims one — the context
   * digest against the payment (`payment_requirements_mismatch`), expiry; the caller's facts at
   * each step ({@link CheckOptions.also}).
   */
  check<R extends string = never>(
    claim: PaymentClaim,
    options: CheckOptions<R>,
  ): CheckedPayment | RuleFailure<RuleReason | R> {
    const also = options.also ?? (() => null);
    // 1. Encodings.
    const encoded = typeof claim === 'object' && claim !== null ? this.encodings(claim) : null;
    if (encoded === null) return fail('invalid_payload');
    const { payment } = claim;
    const own = also('encodings');
    if (own !== null) return fail(own);
    // 2. This pool's scheme, network and asset.
    const pool = this.poolOf(payment, also);
    if (pool !== null) return fail(pool);
    // 3. The proof pays this payment: same amount, same context digest.
    const ctx = this.binding(claim);
    if (typeof ctx !== 'string') return ctx;
    const bound = also('binding');
    if (bound !== null) return fail(bound);
    // 4. Expiry by the caller's clock.
    const expiry = expiryStatus(payment.expiry, options.now, options.maxTimeoutSeconds ?? Infinity);
    if (expiry !== 'ok') return fail(expiry);
    const last = also('last');
    if (last !== null) return fail(last);
    return this.vouch(claim, ctx, encoded);
  }

  /** The encodings of a claim, and what they decode to; `null` when one is malformed. */
  private encodings(claim: PaymentClaim): Encoded | null {
    const { proof, reference, publicInputs: inputs, payment } = claim;
    // Exactly one of the proof (1 to MAX_PROOF_BYTES bytes) and a well-formed reference.
    const inline = proof !== undefined && proof !== null;
    if (inline === (reference !== undefined && reference !== null)) return null;
    if (inline && (!(proof instanceof Uint8Array) || proof.length === 0)) return null;
    if (inline && proof.length > MAX_PROOF_BYTES) return null;
    if (!inline && !isProofReference(reference)) return null;
    if (typeof inputs !== 'object' || inputs === null) return null;
    if (typeof payment !== 'object' || payment === null) return null;
    for (const digest of [inputs.root, inputs.nullifier, inputs.change])
      if (!isCanonicalDigest(this.core, digest)) return null;
    if (inputs.ctx !== undefined && !isCanonicalDigest(this.core, inputs.ctx)) return null;
    const amount = parseAmount(payment.amount);
    if (amount === null || parseAmount(inputs.amount) === null) return null;
    if (!Number.isSafeInteger(payment.expiry)) return null;
    try {
      return { amount, owner: this.core.decodeAddress(payment.payTo) };
    } catch (error) {
      if (refusedInput(error)) return null;
      throw error;
    }
  }

  /** Scheme, then network, then asset, each with the caller's facts of that kind. */
  private poolOf<R extends string>(
    payment: PaymentContext,
    also: (step: RuleStep) => R | null,
  ): RuleReason | R | null {
    if (payment.scheme !== this.pool.scheme) return 'unsupported_scheme';
    const scheme = also('scheme');
    if (scheme !== null) return scheme;
    if (payment.network !== this.pool.network) return 'unsupported_network';
    const network = also('network');
    if (network !== null) return network;
    if (payment.asset !== this.pool.asset) return 'unsupported_asset';
    return null;
  }

  /** The recomputed context digest, or why the proof does not pay this payment. */
  private binding(claim: PaymentClaim): DigestHex | RuleFailure {
    if (claim.publicInputs.amount !== claim.payment.amount)
      return fail('payment_requirements_mismatch');
    let ctx: DigestHex;
    try {
      ctx = this.contextDigest(claim.payment);
    } catch (error) {
      if (refusedInput(error)) return fail('invalid_payload');
      throw error;
    }
    const claimed = claim.publicInputs.ctx;
    if (claimed !== undefined && claimed !== ctx) return fail('payment_requirements_mismatch');
    return ctx;
  }

  /** The checked payment, frozen, made by these rules. */
  private vouch(claim: PaymentClaim, ctx: DigestHex, encoded: Encoded): CheckedPayment {
    return new VouchedPayment(this, claim, ctx, encoded);
  }
}

/**
 * A checked payment as {@link PaymentRules.check} makes it: own, enumerable, frozen fields (a copy
 * spreads like a plain object, and is not one of these), and the rules that made it in a private
 * field no other code can write — asked by `vouchesFor` with a brand check, in place of a set of
 * every payment checked (a `WeakSet`: an insertion per payment and work at every collection; with
 * its three freezes, marking took about 5 µs of a compact /verify's 210 µs in a profile).
 */
class VouchedPayment {
  readonly #madeBy: PaymentRules;
  readonly ok = true;
  readonly proof: Uint8Array | null;
  readonly reference: ProofReference | null;
  readonly publicInputs: SpendPublicInputs;
  readonly payment: PaymentContext;
  /** The network the payment is for (`payment.network`). */
  readonly network: string;
  /** The recipient's owner, decoded from `payment.payTo`. */
  readonly owner: DigestHex;
  readonly amount: bigint;

  constructor(madeBy: PaymentRules, claim: PaymentClaim, ctx: DigestHex, encoded: Encoded) {
    this.#madeBy = madeBy;
    const { publicInputs: inputs, payment } = claim;
    const inline = claim.proof !== undefined && claim.proof !== null;
    this.proof = inline ? (claim.proof as Uint8Array) : null;
    this.reference = inline ? null : (claim.reference as ProofReference);
    this.publicInputs = Object.freeze({
      root: inputs.root as DigestHex,
      nullifier: inputs.nullifier as DigestHex,
      change: inputs.change as DigestHex,
      amount: inputs.amount,
      ctx,
    });
    this.payment = Object.freeze({ ...payment });
    this.network = payment.network;
    this.owner = encoded.owner;
    this.amount = encoded.amount;
    Object.freeze(this);
  }

  /** The rules that made `value`, if it is one of these. */
  static madeBy(value: unknown): PaymentRules | undefined {
    return typeof value === 'object' && value !== null && #madeBy in value
      ? value.#madeBy
      : undefined;
  }
}

function fail<R extends string>(reason: R): RuleFailure<R> {
  return { ok: false, reason };
}

/** Whether the core refused an input (a malformed address or field), not failed itself. */
function refusedInput(error: unknown): boolean {
  return error instanceof CoreError || error instanceof TypeError || error instanceof RangeError;
}
