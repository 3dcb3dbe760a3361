/**
 * @module The audit of the pool's public log (docs/audit.md, "The audit"), trusting nothing the
 * pool node says: from its public pages alone — events by position, archived proofs, leaves,
 * checkpoints — it folds the log digest (`log-fold.ts`), rebuilds which event explains each leaf
 * and checks every retained proof (`proof-check.ts`), every nullifier spent once and every
 * recipient note; then it holds each attested claim (from the chain: `src/chain/`) to what the log
 * gives at that checkpoint — its log digest, its tree root (`leaf-check.ts`), its deposited,
 * withdrawn and refunded totals. The chain's side is the chain room's.
 *
 * What it needs from the pool node's records is only where each checkpoint's events end (the
 * node's recorded digests name the count): a count that lies gives a digest that does not match
 * the attested one, which is found as `log_rewritten`.
 *
 * Incremental: a complete audit hands back where it stopped (`resume`, the latest attestation it
 * checked) and the next one starts there. After the archive was pruned an audit with nothing to
 * resume from starts from the first attestation past the pruned proofs, takes that attestation's
 * log digest as given, and says so: it is never complete.
 */

import type { Frontier } from '../core/facade.js';
import type { ArchivedProof, Checkpoint, PoolEvent } from '../ledger/index.js';
import type { AttestedClaim, AuditCore, AuditLogSource, LogFacts } from './audit-source.js';
import type { Finding, FindingCode } from './findings.js';
import { checkLeaves } from './leaf-check.js';
import { digestHex, NO_PROOF_HASH, nextLogDigest, proofHashOf } from './log-digest.js';
import { type FoldSnapshot, LogFold, leavesCheckedTo } from './log-fold.js';
import { proofProblem, proofsOf } from './proof-check.js';

export type { AttestedClaim, AuditCore, AuditLogSource, LogFacts } from './audit-source.js';

/** Where a complete audit stopped: what the next one resumes from (`--state`). */
export interface AuditResume {
  /** The latest attested checkpoint checked. */
  readonly seq: number;
  /** The fold at that checkpoint's last event, its leaves checked below `frontier.size`. */
  readonly fold: FoldSnapshot;
  readonly frontier: Frontier;
  /** The log's findings so far (kept with evidence) and their counts. */
  readonly findings: readonly Finding[];
  readonly counts: Readonly<Partial<Record<FindingCode, number>>>;
}

/** The log digest recomputed at one recorded checkpoint. */
export interface CheckpointDigest {
  readonly seq: number;
  readonly eventId: number;
  readonly logDigest: string;
}

/** What the log audit found and how far it got. */
export interface LogAuditResult {
  readonly facts: LogFacts;
  readonly findings: readonly Finding[];
  readonly counts: Readonly<Record<string, number>>;
  /** The latest attested checkpoint checked, and the last position it covers. */
  readonly checkedUpTo: { readonly seq: number; readonly eventId: number } | null;
  /** Why the audit could not check everything up to the latest attestation, or `null`. */
  readonly incomplete: string | null;
  /** Positions read (the last one), and proofs verified by this run. */
  readonly events: number;
  readonly proofsVerified: number;
  /** The attested checkpoint this run resumed after, or `null` from the log's start. */
  readonly resumedAfter: number | null;
  /** What the next audit resumes from; `null` unless this one was complete. */
  readonly resume: AuditResume | null;
  /**
   * The digests recomputed at the latest checked attestation and every recorded checkpoint past
   * it (the unattested tail, the last thousand): two auditors compare them (`--compare`).
   */
  readonly tail: readonly CheckpointDigest[];
}

const PAGE = 1000;
const TAIL_KEPT = 1000;
const PROVEN = new Set<PoolEvent['kind']>(['settlement', 'transition', 'withdrawal']);

/** Everything of a paged read (`after` cursors, pages of `limit`). */
async function all<T>(read: (after: number, limit: number) => Promise<T[]>, key: (t: T) => number) {
  const out: T[] = [];
  for (;;) {
    const page = await read(out.length === 0 ? 0 : key(out.at(-1)!), PAGE);
    out.push(...page);
    if (page.length < PAGE) return out;
  }
}

/** Where each attested checkpoint's events end, by the node's recorded digests. */
interface Target {
  readonly claim: AttestedClaim;
  readonly events: number;
  readonly checkpoint: Checkpoint | undefined;
}

/** Options of {@link auditLog}. */
export interface LogAuditOptions {
  /** false to skip proof checks (the bench's log-only pass). */
  readonly verifyProofs?: boolean;
  /** Where an earlier complete audit of this pool stopped. */
  readonly resume?: AuditResume | null;
}

/**
 * Audits the public log against the attested claims.
 * @param claims the escrow's attestations, any order
 */
export async function auditLog(
  core: AuditCore,
  source: AuditLogSource,
  claims: readonly AttestedClaim[],
  options: LogAuditOptions = {},
): Promise<LogAuditResult> {
  const resume = options.resume ?? null;
  const fold = resume ? LogFold.resume(core, resume.fold) : new LogFold(core);
  if (resume) fold.findings.restore(resume.findings, resume.counts);
  const frontier = resume?.frontier ?? core.emptyFrontier();
  const checkpoints = await all(
    (a, l) => source.checkpoints(a, l),
    (c) => c.seq,
  );
  const recorded = await all(
    (a, l) => source.logDigests(a, l),
    (d) => d.seq,
  );
  const digests = new Map(recorded.map((d) => [d.seq, d.events]));
  const anchors = new Map<string, number>();
  for (const c of checkpoints) if (!anchors.has(c.root)) anchors.set(c.root, c.time);
  const bySeq = new Map(checkpoints.map((c) => [c.seq, c]));
  let incomplete: string | null = null;
  const targets: Target[] = [];
  for (const claim of [...claims].sort((a, b) => a.seq - b.seq)) {
    if (resume && claim.seq <= resume.seq) continue;
    const events = digests.get(claim.seq);
    if (events === undefined) {
      incomplete ??= `the pool node serves no log digest for attested checkpoint ${claim.seq}`;
      break;
    }
    targets.push({ claim, events, checkpoint: bySeq.get(claim.seq) });
  }
  const { prunedThrough, legacyThrough } = await source.archiveState();
  // Proofs at or below `prunedThrough` are gone: their hashes too, so the digest cannot be
  // recomputed through them; it is taken from the first attestation past them.
  let trustAt: Target | undefined;
  let digestKnown = prunedThrough <= fold.position;
  let unchecked: string | null = null;
  if (!digestKnown) {
    trustAt = targets.find((t) => t.events >= prunedThrough);
    unchecked = trustAt
      ? `the archive was pruned through position ${prunedThrough}: log digests and proofs before attestation ${trustAt.claim.seq} were not checked (an audit kept with --state from before the pruning checks them)`
      : `the archive was pruned through position ${prunedThrough}, past every attestation: log digests and proofs were not checked`;
  }
  const lastSeq = targets.at(-1)?.claim.seq ?? resume?.seq ?? 0;
  const tailMarks = recorded.filter((d) => d.seq >= lastSeq && d.events >= fold.position);
  const tail: CheckpointDigest[] = [];
  let mark = 0;
  const markTail = () => {
    while (mark < tailMarks.length && tailMarks[mark]!.events <= fold.position) {
      const { seq, events: at } = tailMarks[mark++]!;
      if (at === fold.position && digestKnown)
        tail.push({ seq, eventId: at, logDigest: digestHex(fold.digest) });
    }
  };
  const resumedAfter = resume?.seq ?? null;
  let proofsVerified = 0;
  let next = 0;
  markTail();
  let snapshot: { seq: number; fold: FoldSnapshot } | null = null;
  let checked: { seq: number; eventId: number } | null = resume
    ? { seq: resume.seq, eventId: resume.fold.position }
    : null;
  // The whole published log: the claims are checked where they fall, and the chain's half needs
  // every deposit and withdrawal published so far.
  /** A page of events after `after` and the archived proofs of its positions. */
  const readPage = async (after: number) => {
    const events = await source.publishedEvents(after, PAGE);
    const last = events.at(-1)?.id ?? after;
    const unpruned = Math.max(after, prunedThrough);
    const proofs: Map<number, ArchivedProof> =
      last > unpruned ? await proofsOf(source, unpruned, last - unpruned) : new Map();
    return { events, proofs };
  };
  let nextPage = readPage(fold.position);
  while (incomplete === null) {
    const { events, proofs } = await nextPage;
    if (events.length === 0) break;
    // The next page is read while this one is checked and folded: the pool node's work and the
    // auditor's overlap (a quarter of the audit bench's time was spent waiting on pages). A read
    // left behind by a stop is never awaited, so its failure is dropped.
    nextPage = readPage(events.at(-1)!.id);
    nextPage.catch(() => undefined);
    const verdicts = await Promise.all(
      events.map(async (e) => {
        const archived = proofs.get(e.id);
        if (!PROVEN.has(e.kind) || archived === undefined || options.verifyProofs === false)
          return null;
        proofsVerified++;
        return proofProblem(core, e, archived, anchors);
      }),
    );
    for (const [i, e] of events.entries()) {
      if (e.id !== fold.position + 1) {
        incomplete = `the public log skips from position ${fold.position} to ${e.id}`;
        break;
      }
      const archived = proofs.get(e.id);
      if (PROVEN.has(e.kind) && !archived && e.id > Math.max(legacyThrough, prunedThrough))
        fold.findings.add('proof_missing', { event: e.id, kind: e.kind });
      if (verdicts[i]) fold.findings.add('invalid_proof', { event: e.id, reason: verdicts[i]! });
      fold.apply(e);
      fold.digest = nextLogDigest(
        fold.digest,
        e,
        archived ? proofHashOf(archived.proof) : NO_PROOF_HASH,
      );
      fold.position = e.id;
      while (next < targets.length && targets[next]!.events === fold.position) {
        const target = targets[next]!;
        if (target === trustAt) {
          fold.digest = Uint8Array.from(Buffer.from(target.claim.logDigest.slice(2), 'hex'));
          digestKnown = true;
        }
        compareClaim(fold, target, !digestKnown);
        checked = { seq: target.claim.seq, eventId: fold.position };
        if (next === targets.length - 1)
          snapshot = { seq: target.claim.seq, fold: fold.snapshot() };
        next++;
      }
      markTail();
    }
  }
  if (incomplete === null && next < targets.length)
    incomplete = `the public log ends at position ${fold.position}, before attested checkpoint ${targets[next]!.claim.seq}`;
  const checkedTargets = targets.slice(0, next).map(({ claim, checkpoint }) => ({
    claim,
    checkpoint,
  }));
  const tree = await checkLeaves(core, source, fold, checkedTargets, frontier);
  incomplete ??= unchecked;
  const findings = fold.findings.list();
  const counts = fold.findings.countsByCode() as Record<string, number>;
  return {
    facts: fold.facts,
    findings,
    counts,
    checkedUpTo: incomplete === null ? checked : null,
    incomplete,
    events: fold.position,
    proofsVerified,
    resumedAfter,
    resume: nextResume(incomplete, snapshot, tree, fold, resume),
    tail: tail.slice(-TAIL_KEPT),
  };
}

/** What the next audit resumes from: the last checked attestation, once nothing stood in the way. */
function nextResume(
  incomplete: string | null,
  snapshot: { seq: number; fold: FoldSnapshot } | null,
  tree: Frontier,
  fold: LogFold,
  previous: AuditResume | null,
): AuditResume | null {
  if (incomplete !== null) return null;
  if (snapshot === null) return previous;
  // The findings of the log so far, less those of events past the snapshot: the next run reads
  // those events again and finds them again.
  const past = fold.findings.list().filter((f) => pastSnapshot(f, snapshot.fold.position));
  const counts: Partial<Record<FindingCode, number>> = { ...fold.findings.countsByCode() };
  for (const f of past) counts[f.code] = (counts[f.code] ?? 0) - 1;
  return {
    seq: snapshot.seq,
    fold: leavesCheckedTo(snapshot.fold, tree.size),
    frontier: tree,
    findings: fold.findings.list().filter((f) => !past.includes(f)),
    counts: Object.fromEntries(Object.entries(counts).filter(([, n]) => n! > 0)),
  };
}

/** Whether a finding is of an event past `position` (the next run reads those again). */
function pastSnapshot(f: Finding, position: number): boolean {
  const event = f.evidence.event ?? f.evidence.again;
  return typeof event === 'number' && event > position;
}

/**
 * One claim against the log at its checkpoint: digest (unless the digest is not known there, the
 * archive pruned) and totals; the roots come with the leaves.
 */
function compareClaim(fold: LogFold, target: Target, digestUnknown: boolean): void {
  const { claim } = target;
  const recomputed = digestHex(fold.digest);
  if (!digestUnknown && recomputed !== claim.logDigest.toLowerCase())
    fold.findings.add('log_rewritten', {
      seq: claim.seq,
      attestedLogDigest: claim.logDigest,
      recomputed,
    });
  const pairs = [
    ['deposited', 0, fold.totals.deposited],
    ['withdrawn', 1, fold.totals.withdrawn],
    ['refunded', 3, fold.totals.refunded],
  ] as const;
  for (const [name, i, total] of pairs)
    if (claim.totals[i] !== total)
      fold.findings.add('totals_mismatch', {
        seq: claim.seq,
        total: name,
        attested: claim.totals[i].toString(),
        log: total.toString(),
      });
}
