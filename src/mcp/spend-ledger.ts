/**
 * @module The spend ledger: what the agent has spent and reserved, against the policy's rolling
 * 24-hour limit. A payment's amount is reserved before the wallet builds anything — checked and
 * added in one synchronous step, so concurrent calls cannot together pass the limit — and then:
 * released if nothing left the wallet; counted while the payment is out (any age: it may still
 * settle); counted for 24 hours from its reservation once the pool's log shows it settled; no longer
 * counted once the wallet saw it expire unsettled (its note returned to the balance).
 *
 * Status moves only from what the wallet read in the pool's log, never from a merchant's claim.
 *
 * A transfer through the pool node (`resourceId` {@link TRANSFER_RESOURCE_ID}: a ready-notes split
 * to the wallet's own address) is not spending and is never linked to a reservation: no reservation
 * is made for it, and recovery skips its record. Nor are merges and splits by transition (the value
 * stays in the wallet).
 *
 * A withdrawal (an exit out of the pool to a CAIP-10 destination: `kind: 'withdrawal'`) is spending:
 * reserved like a payment, against the same limit. The pool applies it at once, so its receipt
 * settles it (`settlementId` the transition id). It has no payment record in the wallet: the entry
 * keeps the note it spends instead, and one whose outcome is unknown (no clear answer from the pool,
 * or a crash while it was under way) stays counted until the wallet's sync shows that note spent
 * (settled) or, the note still unspent, the withdrawal's latest possible expiry has passed (expired:
 * the pool refuses it after that).
 */

import { randomUUID } from 'node:crypto';

import type { StoredPending } from '../client/index.js';
import { expiryFor, TRANSFER_MAX_TIMEOUT_SECONDS, TRANSFER_RESOURCE_ID } from '../scheme/index.js';
import { PolicyRefusal } from './errors.js';

/** The rolling window of `maxPer24h`. */
export const WINDOW_MS = 24 * 60 * 60 * 1000;

/** Resolved entries are kept this long (for `list_payments`), then dropped. */
export const KEEP_MS = 7 * WINDOW_MS;

/**
 * A withdrawal's expiry bound, seconds after its reservation: the wallet sets its transition's
 * expiry (`TRANSFER_MAX_TIMEOUT_SECONDS / 2`, rounded up to the minute) when it proves, moments
 * after the reservation; this leaves a minute for that.
 */
const WITHDRAWAL_PROVE_SLACK_S = 60;

/** How long past a withdrawal's expiry bound the pool's clock may lag ours, ms. */
const WITHDRAWAL_CLOCK_SLACK_MS = 60_000;

/**
 * - `reserved`: counted, the wallet is building the payment (nothing has left yet);
 * - `left`: the payload was handed out; counted until the pool's log resolves it;
 * - `settled`: the pool's log shows the settlement; counted for 24 h from the reservation;
 * - `expired`: out but never settled, past its expiry: the note is back, not counted;
 * - `released`: refused or failed before anything left: not counted.
 */
export type SpendStatus = 'reserved' | 'left' | 'settled' | 'expired' | 'released';

/** One reservation and the payment (or withdrawal) it became. */
export interface SpendEntry {
  readonly id: string;
  /** `withdrawal`: an exit out of the pool to `payTo` (a CAIP-10 account id); absent: a payment. */
  readonly kind?: 'withdrawal';
  /** Atomic units. */
  readonly amount: string;
  readonly network: string;
  readonly asset: string;
  readonly payTo: string;
  /** `host[:port]` of the merchant. */
  readonly host: string;
  /** Origin and path (no query: it may carry secrets). */
  readonly url: string;
  /** Unix ms. */
  readonly reservedAt: number;
  status: SpendStatus;
  /** The payment's nullifier, its link to the wallet's pending record. */
  nullifier?: string;
  /** Unix seconds. */
  expiry?: number;
  /** The pool's settlement id, once its log shows it (a withdrawal's: its transition id). */
  settlementId?: string;
  /** Unix ms. */
  resolvedAt?: number;
  /** A withdrawal's note: the commitment it spends, its link to the wallet's notes. */
  note?: string;
}

/** What a reservation is for. */
export interface Reservation {
  /** `withdrawal` for an exit: `payTo` is its destination, `note` the note it spends. */
  readonly kind?: 'withdrawal' | undefined;
  readonly note?: string | undefined;
  readonly amount: bigint;
  readonly network: string;
  readonly asset: string;
  readonly payTo: string;
  readonly host: string;
  readonly url: string;
}

/** The spend ledger (in memory; {@link LedgerFile} keeps it on disk). */
export class SpendLedger {
  private readonly list: SpendEntry[];

  constructor(
    entries: readonly SpendEntry[] = [],
    private readonly clock: () => number = Date.now,
  ) {
    this.list = entries.map((e) => ({ ...e }));
  }

  /** Entries, oldest first (copies). */
  entries(): SpendEntry[] {
    return this.list.map((e) => ({ ...e }));
  }

  /** Whether an entry counts against the rolling 24-hour limit at `now`. */
  static counts(entry: SpendEntry, now: number): boolean {
    if (entry.status === 'reserved' || entry.status === 'left') return true;
    return entry.status === 'settled' && entry.reservedAt > now - WINDOW_MS;
  }

  /** Atomic units counted against the rolling 24-hour limit now. */
  counted(now = this.clock()): bigint {
    let sum = 0n;
    for (const entry of this.list) if (SpendLedger.counts(entry, now)) sum += BigInt(entry.amount);
    return sum;
  }

  /**
   * Reserves `what.amount` when the counted sum plus it stays within `limit`; synchronous, so two
   * calls can never both pass on the same headroom.
   * @throws PolicyRefusal `rolling_24h_limit`
   */
  reserve(what: Reservation, limit: bigint): SpendEntry {
    const now = this.clock();
    const counted = this.counted(now);
    if (counted + what.amount > limit) {
      throw new PolicyRefusal(
        'rolling_24h_limit',
        'maxPer24h',
        `the ${what.kind ?? 'payment'} of ${what.amount} atomic units would take the last 24 hours' spending to ${counted + what.amount}, above the policy's maxPer24h of ${limit} (${counted} counted: settled in the last 24 hours, or still pending)`,
      );
    }
    const entry: SpendEntry = {
      id: randomUUID(),
      ...(what.kind === 'withdrawal' ? { kind: 'withdrawal' as const } : {}),
      amount: what.amount.toString(),
      network: what.network,
      asset: what.asset,
      payTo: what.payTo,
      host: what.host,
      url: what.url,
      reservedAt: now,
      status: 'reserved',
    };
    if (what.kind === 'withdrawal') {
      if (what.note !== undefined) entry.note = what.note;
      entry.expiry = expiryFor(
        Math.floor(now / 1000) + WITHDRAWAL_PROVE_SLACK_S,
        TRANSFER_MAX_TIMEOUT_SECONDS / 2,
      );
    }
    this.list.push(entry);
    return { ...entry };
  }

  private find(id: string): SpendEntry {
    const entry = this.list.find((e) => e.id === id);
    if (!entry) throw new Error(`no spend entry ${id}`);
    return entry;
  }

  /** The wallet handed the payment out: it counts until the pool's log resolves it. */
  markLeft(id: string, nullifier: string, expiry: number): void {
    const entry = this.find(id);
    if (entry.status !== 'reserved') return;
    entry.status = 'left';
    entry.nullifier = nullifier;
    entry.expiry = expiry;
  }

  /** The pool applied the withdrawal (its receipt): counted for 24 hours from the reservation. */
  markApplied(id: string, transitionId: string): void {
    const entry = this.find(id);
    if (entry.status !== 'reserved') return;
    entry.status = 'settled';
    entry.settlementId = transitionId;
    entry.resolvedAt = this.clock();
  }

  /**
   * The withdrawal got no clear answer (it may have been applied): counted until
   * {@link reconcileWithdrawals} resolves it.
   */
  markWithdrawalUnknown(id: string): void {
    const entry = this.find(id);
    if (entry.status !== 'reserved') return;
    entry.status = 'left';
  }

  /**
   * Resolves withdrawals of unknown outcome from a fresh sync of the wallet: its note spent →
   * settled (the pool applied it — or the note went another way, which is counted the same, on the
   * safe side); still unspent once the expiry bound has passed → expired (the pool no longer takes it).
   * @param unspent the commitments of the wallet's unspent notes, just synced
   * @returns whether anything changed
   */
  reconcileWithdrawals(unspent: ReadonlySet<string>, now = this.clock()): boolean {
    let changed = false;
    for (const entry of this.list) {
      if (entry.kind !== 'withdrawal' || entry.status !== 'left') continue;
      if (entry.note === undefined || !unspent.has(entry.note)) {
        entry.status = 'settled';
      } else if (now > (entry.expiry ?? 0) * 1000 + WITHDRAWAL_CLOCK_SLACK_MS) {
        entry.status = 'expired';
      } else continue;
      entry.resolvedAt = now;
      changed = true;
    }
    return changed;
  }

  /** Nothing left the wallet: the reservation no longer counts. */
  release(id: string): void {
    const entry = this.find(id);
    if (entry.status !== 'reserved') return;
    entry.status = 'released';
    entry.resolvedAt = this.clock();
  }

  /**
   * Follows the wallet's payment records (resolved from the pool's log): settled or expired.
   * @returns whether anything changed
   */
  reconcile(payments: readonly StoredPending[]): boolean {
    let changed = false;
    const byNullifier = new Map(payments.map((p) => [p.nullifier as string, p]));
    for (const entry of this.list) {
      if (entry.status !== 'left' || entry.nullifier === undefined) continue;
      const payment = byNullifier.get(entry.nullifier);
      if (!payment || payment.status === 'pending') continue;
      entry.status = payment.status;
      if (payment.settlementId !== undefined) entry.settlementId = payment.settlementId;
      entry.resolvedAt = this.clock();
      changed = true;
    }
    return changed;
  }

  /**
   * After a restart: a reservation the previous run left without a nullifier either became a
   * wallet payment (the wallet writes its pending record before the payload exists: the first
   * unlinked record for the same amount and recipient made after the reservation, never a transfer
   * through the pool node) or nothing left. A withdrawal left reserved may have been applied: it
   * stays counted until {@link reconcileWithdrawals} resolves it from its note.
   * @returns whether anything changed
   */
  recover(payments: readonly StoredPending[]): boolean {
    let changed = false;
    const linked = new Set(this.list.map((e) => e.nullifier).filter((n) => n !== undefined));
    for (const entry of this.list) {
      if (entry.status !== 'reserved') continue;
      if (entry.kind === 'withdrawal') {
        if (entry.note !== undefined) entry.status = 'left';
        else {
          entry.status = 'released';
          entry.resolvedAt = this.clock();
        }
        changed = true;
        continue;
      }
      const payment = payments.find(
        (p) =>
          p.resourceId !== TRANSFER_RESOURCE_ID &&
          !linked.has(p.nullifier) &&
          p.amount === entry.amount &&
          p.payTo === entry.payTo &&
          p.createdAt >= entry.reservedAt,
      );
      if (payment) {
        linked.add(payment.nullifier);
        entry.status = 'left';
        entry.nullifier = payment.nullifier;
        entry.expiry = payment.expiry;
      } else {
        entry.status = 'released';
        entry.resolvedAt = this.clock();
      }
      changed = true;
    }
    return this.reconcile(payments) || changed;
  }

  /** Drops resolved entries older than {@link KEEP_MS}. */
  prune(now = this.clock()): boolean {
    const before = this.list.length;
    for (let i = this.list.length - 1; i >= 0; i--) {
      const entry = this.list[i]!;
      if (
        (entry.status === 'released' || entry.status === 'expired' || entry.status === 'settled') &&
        entry.reservedAt < now - KEEP_MS
      )
        this.list.splice(i, 1);
    }
    return this.list.length !== before;
  }
}
