/**
 * @module Split views (docs/audit.md, "Comparing auditors"): a pool node could serve one history to
 * one auditor and another to the next, differing only in what no attestation covers yet. Each
 * audit reports the log digest it recomputed at the latest attestation and at every checkpoint
 * past it (`tail`); two auditors hold their reports side by side, and a checkpoint both saw with
 * two different digests (or ending at two different positions) is a `split_view` — evidence the
 * node served two logs, whoever it favoured.
 */

import type { Finding } from './findings.js';
import type { CheckpointDigest } from './log-audit.js';

/** What comparing two tails gave. */
export interface TailComparison {
  /** Checkpoints both reports recomputed. */
  readonly compared: number;
  readonly findings: readonly Finding[];
}

const HEX32 = /^0x[0-9a-f]{64}$/;

/** The other report's tail, or a reason it has none usable. */
export function tailOf(report: unknown): CheckpointDigest[] | string {
  const tail = (report as { tail?: unknown } | null)?.tail;
  if (!Array.isArray(tail)) return 'it is not a report of priv-stark audit --json (no "tail")';
  const out: CheckpointDigest[] = [];
  for (const entry of tail) {
    const { seq, eventId, logDigest } = (entry ?? {}) as Record<string, unknown>;
    if (
      !Number.isSafeInteger(seq) ||
      !Number.isSafeInteger(eventId) ||
      typeof logDigest !== 'string' ||
      !HEX32.test(logDigest)
    )
      return 'an entry of its "tail" is malformed';
    out.push({ seq: seq as number, eventId: eventId as number, logDigest });
  }
  return out;
}

/** Our tail against another auditor's: one `split_view` per checkpoint they disagree on. */
export function compareTails(
  ours: readonly CheckpointDigest[],
  theirs: readonly CheckpointDigest[],
): TailComparison {
  const mine = new Map(ours.map((d) => [d.seq, d]));
  const findings: Finding[] = [];
  let compared = 0;
  for (const other of theirs) {
    const own = mine.get(other.seq);
    if (own === undefined) continue;
    compared++;
    if (own.logDigest !== other.logDigest || own.eventId !== other.eventId)
      findings.push({
        code: 'split_view',
        evidence: {
          seq: other.seq,
          eventId: own.eventId,
          logDigest: own.logDigest,
          otherEventId: other.eventId,
          otherLogDigest: other.logDigest,
        },
      });
  }
  return { compared, findings };
}
