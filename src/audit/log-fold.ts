/**
 * @module The audit's running state over the public log (docs/audit.md, "The audit"): which event
 * explains each leaf, the nullifiers spent, the refund notes exits promised, the totals and the
 * deposits and withdrawals the chain's half checks, and the log digest folded so far. It can be
 * taken as a snapshot and resumed from one: `priv-stark audit --state` continues where the last
 * complete audit stopped instead of reading the log from its start.
 */

import type { DigestHex } from '../core/digest.js';
import { commitmentOf, precommitmentOf, recipientRhoOf } from '../core/witness.js';
import type { PoolEvent } from '../ledger/index.js';
import type { AuditCore, LogFacts } from './audit-source.js';
import { Findings } from './findings.js';
import { digestHex, GENESIS_LOG_DIGEST } from './log-digest.js';

/** A withdrawal as the chain's half needs it. */
interface WithdrawalFact {
  event: number;
  amount: bigint;
  destination: string;
  refunded: boolean;
}

/** The fold at one position, as plain JSON (amounts as decimal strings). */
export interface FoldSnapshot {
  readonly position: number;
  readonly digest: DigestHex;
  readonly totals: {
    readonly deposited: string;
    readonly withdrawn: string;
    readonly refunded: string;
  };
  /** Leaves below this index were each explained once and equal the served leaf. */
  readonly explainedBelow: number;
  /** Leaf index, the event that appended it, the commitment it says: at or past `explainedBelow`. */
  readonly expected: readonly (readonly [number, number, string])[];
  /** Nullifier, the event that spent it. */
  readonly spent: readonly (readonly [string, number])[];
  /** Withdrawal id, the refund note its exit proved (not refunded yet). */
  readonly refunds: readonly (readonly [string, string])[];
  /** Commitment, event, amount. */
  readonly deposits: readonly (readonly [string, number, string])[];
  /** Id, event, amount, destination, refunded. */
  readonly withdrawals: readonly (readonly [string, number, string, string, boolean])[];
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
}

/** The audit's running state over the log. */
export class LogFold {
  readonly findings = new Findings();
  /** Leaf index → the event that appended it and the commitment it says. */
  readonly expected = new Map<number, { event: number; leaf: string }>();
  /** Leaves below it were checked by an earlier audit (a resumed fold). */
  explainedBelow = 0;
  private readonly spent = new Map<string, number>();
  private readonly refunds = new Map<string, string>();
  readonly facts: LogFacts & {
    deposits: Map<string, { event: number; amount: bigint }>;
    withdrawals: Map<string, WithdrawalFact>;
  } = { deposits: new Map(), withdrawals: new Map() };
  readonly totals = { deposited: 0n, withdrawn: 0n, refunded: 0n };
  digest = GENESIS_LOG_DIGEST;
  position = 0;

  constructor(private readonly core: AuditCore) {}

  /** The largest leaf index an event explained, plus one (0 for none). */
  get leafEnd(): number {
    let end = this.explainedBelow;
    for (const index of this.expected.keys()) if (index >= end) end = index + 1;
    return end;
  }

  private explain(index: number, leaf: string, event: number): void {
    const before = this.expected.get(index);
    if (index < this.explainedBelow)
      this.findings.add('leaf_unexplained', { index, event, explainedBefore: this.explainedBelow });
    else if (before !== undefined)
      this.findings.add('leaf_unexplained', { index, events: `${before.event},${event}` });
    else this.expected.set(index, { event, leaf });
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

  /** The fold now, as JSON. */
  snapshot(): FoldSnapshot {
    return {
      position: this.position,
      digest: digestHex(this.digest),
      totals: {
        deposited: this.totals.deposited.toString(),
        withdrawn: this.totals.withdrawn.toString(),
        refunded: this.totals.refunded.toString(),
      },
      explainedBelow: this.explainedBelow,
      expected: [...this.expected].map(([index, { event, leaf }]) => [index, event, leaf] as const),
      spent: [...this.spent],
      refunds: [...this.refunds],
      deposits: [...this.facts.deposits].map(
        ([c, d]) => [c, d.event, d.amount.toString()] as const,
      ),
      withdrawals: [...this.facts.withdrawals].map(
        ([id, w]) => [id, w.event, w.amount.toString(), w.destination, w.refunded] as const,
      ),
    };
  }

  /** A fold resumed from `snapshot` (checked by `parseAuditState` before it comes here). */
  static resume(core: AuditCore, snapshot: FoldSnapshot): LogFold {
    const fold = new LogFold(core);
    fold.position = snapshot.position;
    fold.digest = hexBytes(snapshot.digest);
    fold.totals.deposited = BigInt(snapshot.totals.deposited);
    fold.totals.withdrawn = BigInt(snapshot.totals.withdrawn);
    fold.totals.refunded = BigInt(snapshot.totals.refunded);
    fold.explainedBelow = snapshot.explainedBelow;
    for (const [index, event, leaf] of snapshot.expected) fold.expected.set(index, { event, leaf });
    for (const [nf, event] of snapshot.spent) fold.spent.set(nf, event);
    for (const [id, note] of snapshot.refunds) fold.refunds.set(id, note);
    for (const [c, event, amount] of snapshot.deposits)
      fold.facts.deposits.set(c, { event, amount: BigInt(amount) });
    for (const [id, event, amount, destination, refunded] of snapshot.withdrawals)
      fold.facts.withdrawals.set(id, { event, amount: BigInt(amount), destination, refunded });
    return fold;
  }
}

/** `snapshot` once its leaves below `size` were checked against the served ones: not kept. */
export function leavesCheckedTo(snapshot: FoldSnapshot, size: number): FoldSnapshot {
  return {
    ...snapshot,
    explainedBelow: size,
    expected: snapshot.expected.filter(([index]) => index >= size),
  };
}
