/**
 * @module In-flight deduplication of proof verification: identical payloads (same proof bytes,
 * same public inputs) verified at the same time share one verification. Nothing is kept once a
 * verification ends — this is not a result cache: a later request verifies again.
 */

import type { SpendPublicInputs, VerifyResult } from '../core/index.js';

interface Running {
  readonly proof: Uint8Array;
  readonly inputs: SpendPublicInputs;
  readonly verdict: Promise<VerifyResult>;
}

function samePublicInputs(a: SpendPublicInputs, b: SpendPublicInputs): boolean {
  return (
    a.root === b.root &&
    a.nullifier === b.nullifier &&
    a.change === b.change &&
    a.amount === b.amount &&
    a.ctx === b.ctx
  );
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.length === b.length &&
    Buffer.from(a.buffer, a.byteOffset, a.length).equals(
      Buffer.from(b.buffer, b.byteOffset, b.length),
    )
  );
}

/** Runs a verifier with in-flight deduplication, keyed by nullifier and compared in full. */
export class InFlightVerifier {
  private readonly running = new Map<string, Running[]>();
  /** Verifications started. */
  started = 0;
  /** Requests that joined a verification already running. */
  joined = 0;

  constructor(
    private readonly verify: (
      proof: Uint8Array,
      inputs: SpendPublicInputs,
    ) => Promise<VerifyResult>,
  ) {}

  /** The verdict for `proof` against `inputs`, shared with an identical verification in flight. */
  run(proof: Uint8Array, inputs: SpendPublicInputs): Promise<VerifyResult> {
    const key = inputs.nullifier;
    const list = this.running.get(key);
    const same = list?.find((r) => samePublicInputs(r.inputs, inputs) && sameBytes(r.proof, proof));
    if (same) {
      this.joined++;
      return same.verdict;
    }
    this.started++;
    const entry: Running = {
      proof,
      inputs,
      verdict: this.verify(proof, inputs).finally(() => {
        const current = this.running.get(key);
        if (!current) return;
        const rest = current.filter((r) => r !== entry);
        if (rest.length === 0) this.running.delete(key);
        else this.running.set(key, rest);
      }),
    };
    if (list) list.push(entry);
    else this.running.set(key, [entry]);
    return entry.verdict;
  }

  /** Verifications running now. */
  get size(): number {
    let n = 0;
    for (const list of this.running.values()) n += list.length;
    return n;
  }
}
