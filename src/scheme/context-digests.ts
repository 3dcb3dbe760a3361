/**
 * @module The payment context digest `ctx` of recent requests, remembered. `ctx` is a pure function
 * of seven fields — scheme, network, asset, payTo, amount, resourceId (all from
 * `paymentRequirements`) and the payload's expiry — and costs about 45 µs of the event loop's time
 * (a few RPO permutations), a large share of a request's. A resource server's payments share those
 * fields (expiries are rounded to the minute), so most requests need a digest computed moments
 * before. Each entry is keyed by all seven fields, unambiguously: a request gets exactly the digest
 * the core computes for its own fields. This memoizes a hash; no verdict is kept, and every proof
 * is still verified against it.
 */

import type { DigestHex, PaymentContext } from '../core/index.js';

/** Contexts remembered (a few per route and minute are live at once). */
export const CONTEXT_DIGESTS_MAX = 1024;

/** The key of a context: every field, JSON-encoded so that no two contexts share one. */
function keyOf(context: PaymentContext): string {
  return JSON.stringify([
    context.scheme,
    context.network,
    context.asset,
    context.payTo,
    context.amount,
    context.resourceId,
    context.expiry,
  ]);
}

/**
 * `ctx` of a payment context, computed by `compute` unless one of the last
 * {@link CONTEXT_DIGESTS_MAX} distinct contexts had the same fields.
 * @example
 * const digests = new ContextDigests((c) => core.contextDigest(c));
 * digests.of(paymentContext(requirements, expiry));
 */
export class ContextDigests {
  private readonly known = new Map<string, DigestHex>();
  /** Digests computed (misses). */
  computed = 0;

  constructor(
    private readonly compute: (context: PaymentContext) => DigestHex,
    private readonly max = CONTEXT_DIGESTS_MAX,
  ) {}

  /**
   * The digest of `context`.
   * @throws whatever `compute` throws for fields the core refuses (nothing is remembered then)
   */
  of(context: PaymentContext): DigestHex {
    const key = keyOf(context);
    const known = this.known.get(key);
    if (known !== undefined) return known;
    const digest = this.compute(context);
    this.computed++;
    // Oldest first out: a Map iterates in insertion order.
    if (this.known.size >= this.max) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, digest);
    return digest;
  }

  /** Contexts remembered now. */
  get size(): number {
    return this.known.size;
  }
}
