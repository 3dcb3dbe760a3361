/**
 * @module Verdicts kept for a short while (docs/facilitator.md, "Work done once"): an inline
 * payment's proof is verified at `/verify` and, seconds later, again at `/settle` — same bytes,
 * same public inputs, the same answer, about a millisecond of CPU each time. The cache keeps the
 * valid verdicts, keyed by the SHA-256 of the proof bytes (which carry their parameter set) and of
 * every public input, so the second check is a hash and a lookup. Soundness is unchanged: a
 * verdict is only reused for exactly the bytes and inputs that earned it, and the verifier is a
 * pure function of those. Refusals are not kept (a refusal is never asked twice by an honest
 * caller, and keeping them would let anyone fill the cache with junk). Bounded by entries and by
 * age; nothing of it is persisted, logged or shared across processes.
 */

import { createHash } from 'node:crypto';

import type { SpendPublicInputs, VerifyResult } from '../core/index.js';

/** A spend proof verifier (the core's `verifySpend`, or the verification threads'). */
export type SpendVerifier = (proof: Uint8Array, inputs: SpendPublicInputs) => Promise<VerifyResult>;

/** Options of {@link VerdictCache}. */
export interface VerdictCacheOptions {
  /** Valid verdicts kept at most (default 4,096: about 200 KB). */
  readonly capacity?: number;
  /** How long one is kept, ms (default 120,000: a payment's `/verify` to `/settle`). */
  readonly ttlMs?: number;
  /** Unix ms (default `Date.now`). For tests. */
  readonly clock?: () => number;
}

const VALID: VerifyResult = { ok: true };

/** The key of one verification: the proof's bytes and every public input, hashed. */
export function verdictKey(proof: Uint8Array, inputs: SpendPublicInputs): string {
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(proof.length));
  // The proof's length first: where its bytes end is never in doubt.
  const hash = createHash('sha256').update(length).update(proof);
  // Fixed order, each field ended by a separator no field contains: no two inputs share a key.
  for (const field of [inputs.root, inputs.nullifier, inputs.change, inputs.amount, inputs.ctx])
    hash.update(`\n${field}`);
  return hash.digest('base64');
}

/** A verifier that answers a valid proof's repeat from its kept verdict. */
export class VerdictCache {
  private readonly kept = new Map<string, number>();
  private readonly capacity: number;
  private readonly ttlMs: number;
  private readonly clock: () => number;
  /** Answers from a kept verdict. */
  hits = 0;
  /** Verifications run. */
  misses = 0;

  constructor(
    private readonly verifier: SpendVerifier,
    options: VerdictCacheOptions = {},
  ) {
    this.capacity = options.capacity ?? 4096;
    this.ttlMs = options.ttlMs ?? 120_000;
    this.clock = options.clock ?? Date.now;
    if (!(Number.isSafeInteger(this.capacity) && this.capacity > 0))
      throw new RangeError('the verdict cache holds a positive whole number of verdicts');
  }

  /** The verdict for `proof` against `inputs`: kept, or verified (and kept when valid). */
  readonly verify: SpendVerifier = async (proof, inputs) => {
    const key = verdictKey(proof, inputs);
    const keptAt = this.kept.get(key);
    const now = this.clock();
    if (keptAt !== undefined && now - keptAt < this.ttlMs) {
      this.hits++;
      return VALID;
    }
    this.misses++;
    const verdict = await this.verifier(proof, inputs);
    if (verdict.ok) this.keep(key, this.clock());
    return verdict;
  };

  /** Verdicts kept now. */
  get size(): number {
    return this.kept.size;
  }

  private keep(key: string, at: number): void {
    this.kept.delete(key);
    this.kept.set(key, at);
    // A Map iterates in insertion order: the first entries are the oldest.
    for (const [oldest, keptAt] of this.kept) {
      if (this.kept.size <= this.capacity && at - keptAt < this.ttlMs) break;
      this.kept.delete(oldest);
    }
  }
}
