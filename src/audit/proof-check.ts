/**
 * @module The archive's half of the log audit (docs/audit.md, "The audit"): each retained proof
 * checked with the core's verifier against the public inputs its event and its archive entry give
 * (the parameter set read from the proof), anchored to a checkpoint published before it.
 */

import type { ArchivedProof, PoolEvent } from '../ledger/index.js';
import type { AuditCore, AuditLogSource } from './audit-source.js';

/** Archive pages are a hundred positions. */
const ARCHIVE_PAGE = 100;

/** Checks one proof against the public inputs its event and its archive entry give. */
export async function proofProblem(
  core: AuditCore,
  e: PoolEvent,
  archived: ArchivedProof,
  anchors: ReadonlyMap<string, number>,
): Promise<string | null> {
  const anchoredAt = anchors.get(archived.root);
  if (anchoredAt === undefined || anchoredAt > e.time) return 'anchor_not_published_before';
  const { root, ctx, proof } = archived;
  if (e.kind === 'settlement') {
    const { nullifier, change, amount } = e;
    const verdict = await core.verifySpend(proof, { root, nullifier, change, amount, ctx });
    return verdict.ok ? null : verdict.code;
  }
  if (e.kind !== 'transition' && e.kind !== 'withdrawal') return 'unexpected_proof';
  const refund = e.kind === 'withdrawal' ? e.refund : archived.refund;
  if (refund === null) return 'refund_not_archived';
  const exit = e.kind === 'withdrawal' ? e.amount : '0';
  const inputs = {
    root,
    nullifiers: e.nullifiers,
    outputs: e.outputs,
    exit,
    ctx,
    memo: e.memo,
    refund,
  };
  const verdict = await core.verifyTransition(proof, inputs);
  return verdict.ok ? null : verdict.code;
}

/** The archived proofs of positions `(after, after + count]`, by position. */
export async function proofsOf(source: AuditLogSource, after: number, count: number) {
  const out = new Map<number, ArchivedProof>();
  for (let at = after; at < after + count; at += ARCHIVE_PAGE)
    for (const p of await source.archivedProofs(at, Math.min(ARCHIVE_PAGE, after + count - at)))
      out.set(p.id, p);
  return out;
}
