/**
 * @module The audit of the pool's public log (docs/audit.md, "The audit"), trusting nothing the
 * pool node says: from its public pages alone — events by position, archived proofs, leaves,
 * checkpoints — it folds the log digest, rebuilds which event explains each leaf, and checks every
 * retained proof with the core's verifier, every nullifier spent once and every recipient note;
 * then it holds each attested claim (from the chain: `src/chain/`) to what the log gives at that
 * checkpoint — its log digest, its tree root, its deposited, withdrawn and refunded totals. The
 * chain's side (deposits, payouts, the paid-out total, the escrow's balance) is the chain room's.
 *
 * What it needs from the pool node's records is only where each checkpoint's events end (the
 * node's recorded digests name the count): a count that lies gives a digest that does not match
 * the attested one, which is found as `log_rewritten`.
 */

import type { DigestHex } from '../core/digest.js';
import type { PrivStarkCore } from '../core/facade.js';
import { commitmentOf, precommitmentOf, recipientRhoOf } from '../core/witness.js';
import type {
  ArchivedProof,
  ArchiveState,
  Checkpoint,
  LogDigestRecord,
  PoolEvent,
} from '../ledger/index.js';
import { type Finding, Findings } from './findings.js';
import {
  digestHex,
  GENESIS_LOG_DIGEST,
  NO_PROOF_HASH,
  nextLogDigest,
  proofHashOf,
} from './log-digest.js';

/** The public pages the audit reads (a pool node's routes, or a store's same reads in tests). */
export interface AuditLogSource {
  publishedEvents(after: number, limit: number): Promise<PoolEvent[]>;
  archivedProofs(after: number, limit: number): Promise<ArchivedProof[]>;
  archiveState(): Promise<ArchiveState>;
  leaves(from: number, limit: number): Promise<DigestHex[]>;
  checkpoints(after: number, limit: number): Promise<Checkpoint[]>;
  logDigests(after: number, limit: number): Promise<LogDigestRecord[]>;
}

/** An attestation as the chain holds it. */
export interface AttestedClaim {
  readonly seq: number;
  readonly root: string;
  readonly logDigest: string;
  /** Deposited, withdrawn, paid out, refunded. */
  readonly totals: readonly [bigint, bigint, bigint, bigint];
}

/** The core's parts the audit uses. */
export type AuditCore = Pick<
  PrivStarkCore,
  'hashElements' | 'decodeAddress' | 'treeRootAsync' | 'verifySpend' | 'verifyTransition'
>;

/** What the log says of money, for the chain's half of the audit (`src/chain/chain-audit.ts`). */
export interface LogFacts {
  /** Each deposit's commitment: its position and amount. */
  readonly deposits: ReadonlyMap<string, { readonly event: number; readonly amount: bigint }>;
  /** Each withdrawal by id: amount, destination (CAIP-10), and whether it was refunded. */
  readonly withdrawals: ReadonlyMap<
    string,
    {
      readonly event: number;
      readonly amount: bigint;
      readonly destination: string;
      refunded: boolean;
    }
  >;
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
  /** Positions read, and proofs verified. */
  readonly events: number;
  readonly proofsVerified: number;
}

const PAGE = 1000;
const ARCHIVE_PAGE = 100;
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

/** The audit's running state over the log. */
class LogFold {
  readonly findings = new Findings();
  /** Leaf index → the event that appended it and the commitment it says. */
  readonly expected: ({ event: number; leaf: string } | undefined)[] = [];
  private readonly spent = new Map<string, number>();
  private readonly refunds = new Map<string, string>();
  readonly facts = {
    deposits: new Map<string, { event: number; amount: bigint }>(),
    withdrawals: new Map<
      string,
      { event: number; amount: bigint; destination: string; refunded: boolean }
    >(),
  };
  readonly totals = { deposited: 0n, withdrawn: 0n, refunded: 0n };
  digest = GENESIS_LOG_DIGEST;
  position = 0;

  constructor(private readonly core: AuditCore) {}

  private explain(index: number, leaf: string, event: number): void {
    const before = this.expected[index];
    if (before !== undefined)
      this.findings.add('leaf_unexplained', { index, events: `${before.event},${event}` });
    else this.expected[index] = { event, leaf };
  }

  private spend(nullifier: string, event: number): void {
    const first = this.spent.get(nullifier);
    if (first !== undefined)
      this.findings.add('nullifier_reused', { nullifier, first, again: event });
    else this.spent.set(nullifier, event);
  }

  /** Applies one event's leaves, nullifiers, totals and recipient note. */
  apply(e: PoolEvent): void {
    switch (e.kind) {
      case 'deposit':
        this.explain(e.index, e.commitment, e.id);
        this.totals.deposited += BigInt(e.amount);
        this.facts.deposits.set(e.commitment, { event: e.id, amount: BigInt(e.amount) });
        return;
      case 'settlement':
        this.spend(e.nullifier, e.id);
        this.explain(e.changeIndex, e.change, e.id);
        this.explain(e.recipientIndex, e.recipientNote, e.id);
        if (this.recipientNote(e) !== e.recipientNote)
          this.findings.add('recipient_note_mismatch', {
            event: e.id,
            recipientNote: e.recipientNote,
          });
        return;
      case 'transition':
      case 'withdrawal':
        for (const nf of e.nullifiers) this.spend(nf, e.id);
        this.explain(e.outputIndexes[0], e.outputs[0], e.id);
        this.explain(e.outputIndexes[1], e.outputs[1], e.id);
        if (e.kind === 'withdrawal') {
          this.totals.withdrawn += BigInt(e.amount);
          this.refunds.set(e.withdrawalId, e.refund);
          this.facts.withdrawals.set(e.withdrawalId, {
            event: e.id,
            amount: BigInt(e.amount),
            destination: e.destination,
            refunded: false,
          });
        }
        return;
      case 'refund':
        this.explain(e.index, e.commitment, e.id);
        this.totals.refunded += BigInt(e.amount);
        {
          const withdrawal = this.facts.withdrawals.get(e.withdrawalId);
          if (withdrawal) withdrawal.refunded = true;
        }
        // A refund appends the exit's proven refund note, of its amount, once.
        if (this.refunds.get(e.withdrawalId) !== e.commitment)
          this.findings.add('leaf_unexplained', {
            index: e.index,
            event: e.id,
            refundOf: e.withdrawalId,
          });
        this.refunds.delete(e.withdrawalId);
        return;
    }
  }

  /** The recipient note a settlement must append, `null` for a recipient that is no address. */
  private recipientNote(e: Extract<PoolEvent, { kind: 'settlement' }>): string | null {
    try {
      const owner = this.core.decodeAddress(e.recipient);
      const pre = precommitmentOf(this.core, owner, recipientRhoOf(this.core, e.nullifier));
      return commitmentOf(this.core, e.amount, pre);
    } catch {
      return null;
    }
  }
}

/** Checks one proof against the public inputs its event and its archive entry give. */
async function proofProblem(
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
async function proofsOf(source: AuditLogSource, after: number, count: number) {
  const out = new Map<number, ArchivedProof>();
  for (let at = after; at < after + count; at += ARCHIVE_PAGE)
    for (const p of await source.archivedProofs(at, Math.min(ARCHIVE_PAGE, after + count - at)))
      out.set(p.id, p);
  return out;
}

/** Where each attested checkpoint's events end, by the node's recorded digests. */
interface Target {
  readonly claim: AttestedClaim;
  readonly events: number;
  readonly checkpoint: Checkpoint | undefined;
}

/**
 * Audits the public log against the attested claims.
 * @param claims the escrow's attestations, any order
 * @param options.verifyProofs false to skip proof checks (the bench's log-only pass)
 */
export async function auditLog(
  core: AuditCore,
  source: AuditLogSource,
  claims: readonly AttestedClaim[],
  options: { verifyProofs?: boolean } = {},
): Promise<LogAuditResult> {
  const fold = new LogFold(core);
  const checkpoints = await all(
    (a, l) => source.checkpoints(a, l),
    (c) => c.seq,
  );
  const digests = new Map(
    (
      await all(
        (a, l) => source.logDigests(a, l),
        (d) => d.seq,
      )
    ).map((d) => [d.seq, d.events]),
  );
  const anchors = new Map<string, number>();
  for (const c of checkpoints) if (!anchors.has(c.root)) anchors.set(c.root, c.time);
  const bySeq = new Map(checkpoints.map((c) => [c.seq, c]));
  let incomplete: string | null = null;
  const targets: Target[] = [];
  for (const claim of [...claims].sort((a, b) => a.seq - b.seq)) {
    const events = digests.get(claim.seq);
    if (events === undefined) {
      incomplete ??= `the pool node serves no log digest for attested checkpoint ${claim.seq}`;
      break;
    }
    targets.push({ claim, events, checkpoint: bySeq.get(claim.seq) });
  }
  const { prunedThrough, legacyThrough } = await source.archiveState();
  if (prunedThrough > 0)
    incomplete ??= `the archive was pruned through position ${prunedThrough}: digests from genesis cannot be recomputed`;
  let proofsVerified = 0;
  let next = 0;
  let checked: { seq: number; eventId: number } | null = null;
  // The whole published log: the claims are checked where they fall, and the chain's half needs
  // every deposit and withdrawal published so far.
  while (incomplete === null) {
    const events = await source.publishedEvents(fold.position, PAGE);
    if (events.length === 0) break;
    const proofs = await proofsOf(source, fold.position, events.length);
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
      if (PROVEN.has(e.kind) && archived === undefined && e.id > legacyThrough)
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
        compareClaim(fold, targets[next]!);
        checked = { seq: targets[next]!.claim.seq, eventId: fold.position };
        next++;
      }
    }
  }
  if (incomplete === null && next < targets.length)
    incomplete = `the public log ends at position ${fold.position}, before attested checkpoint ${targets[next]!.claim.seq}`;
  await checkLeaves(core, source, fold, targets.slice(0, next));
  return {
    facts: fold.facts,
    findings: fold.findings.list(),
    counts: fold.findings.countsByCode() as Record<string, number>,
    checkedUpTo: incomplete === null ? checked : null,
    incomplete,
    events: fold.position,
    proofsVerified,
  };
}

/** One claim against the log at its checkpoint: digest and totals (the roots come with the leaves). */
function compareClaim(fold: LogFold, target: Target): void {
  const { claim } = target;
  const recomputed = digestHex(fold.digest);
  if (recomputed !== claim.logDigest.toLowerCase())
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

/**
 * Every served leaf against the event that explains it, and each attested root against the root
 * of the served leaves at its checkpoint's size.
 */
async function checkLeaves(
  core: AuditCore,
  source: AuditLogSource,
  fold: LogFold,
  targets: readonly Target[],
): Promise<void> {
  const leaves: DigestHex[] = [];
  for (;;) {
    const page = await source.leaves(leaves.length, PAGE);
    leaves.push(...page);
    if (page.length < PAGE) break;
  }
  // Every leaf an event read explains; below the last attested size, every leaf must be explained
  // (leaves past both belong to events published after the log was read).
  const attested = targets.at(-1)?.checkpoint?.size ?? 0;
  for (let index = 0; index < Math.max(attested, fold.expected.length); index++) {
    const want = fold.expected[index];
    const leaf = index < leaves.length ? leaves[index]! : null;
    if (want === undefined) fold.findings.add('leaf_unexplained', { index, leaf });
    else if (leaf !== want.leaf)
      fold.findings.add('leaf_unexplained', { index, event: want.event, leaf });
  }
  for (const { claim, checkpoint } of targets) {
    const size = checkpoint?.size;
    const root =
      size === undefined || size > leaves.length
        ? null
        : await core.treeRootAsync(leaves.slice(0, size));
    if (checkpoint?.root !== claim.root || root !== claim.root)
      fold.findings.add('log_rewritten', {
        seq: claim.seq,
        attestedRoot: claim.root,
        checkpointRoot: checkpoint?.root ?? null,
        leavesRoot: root,
      });
  }
}
