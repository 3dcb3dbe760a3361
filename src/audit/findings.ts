/**
 * @module What `priv-stark audit` reports (docs/audit.md, "The audit"): each finding a stable code
 * with its evidence — positions, indexes, digests and amounts, all public — never a guess. Codes of
 * the log (this room) and of the chain (`src/chain/`) share the one list.
 */

/** Every finding code, stable. */
export const FINDING_CODES = [
  'unbacked_deposit',
  'deposit_mismatch',
  'unshielded_accepted_deposit',
  'shielded_reclaimed_deposit',
  'payout_without_withdrawal',
  'payout_mismatch',
  'paid_and_refunded',
  'log_rewritten',
  'leaf_unexplained',
  'nullifier_reused',
  'recipient_note_mismatch',
  'invalid_proof',
  'proof_missing',
  'totals_mismatch',
  'split_view',
] as const;

/** A finding's code. */
export type FindingCode = (typeof FINDING_CODES)[number];

/** One finding: what is wrong, and the public facts that show it. */
export interface Finding {
  readonly code: FindingCode;
  readonly evidence: Readonly<Record<string, string | number | null>>;
}

/** How many findings of one code are kept with their evidence; past it they are only counted. */
export const EVIDENCE_PER_CODE = 100;

/** Collects findings, keeping the first {@link EVIDENCE_PER_CODE} of each code. */
export class Findings {
  private readonly kept: Finding[] = [];
  private readonly counts = new Map<FindingCode, number>();

  add(code: FindingCode, evidence: Finding['evidence']): void {
    const count = (this.counts.get(code) ?? 0) + 1;
    this.counts.set(code, count);
    if (count <= EVIDENCE_PER_CODE) this.kept.push({ code, evidence });
  }

  /** Findings an earlier audit kept and counted (`priv-stark audit --state`), before any new. */
  restore(kept: readonly Finding[], counts: Readonly<Partial<Record<FindingCode, number>>>): void {
    this.kept.push(...kept);
    for (const [code, count] of Object.entries(counts))
      this.counts.set(code as FindingCode, (this.counts.get(code as FindingCode) ?? 0) + count!);
  }

  /** The findings kept, in the order found. */
  list(): readonly Finding[] {
    return this.kept;
  }

  /** How many of each code were found (kept or not). */
  countsByCode(): Readonly<Partial<Record<FindingCode, number>>> {
    return Object.fromEntries(this.counts);
  }

  get size(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
}
