/**
 * @module The pool node's payout sender (docs/chain.md, "Payouts"): pays the ledger's
 * withdrawals through a payout rail, under the payout contract of docs/pool.md — `paying` durable
 * before the rail is asked anything, then `paid` once the rail's payment is final, or `failed` (the
 * exit's refund note) only when the rail says the payout can never be made.
 *
 * With several pool-node instances on one database, one sender at a time works a rail: it holds
 * the rail's lease row (`payout-journal.ts`), renewed every third of its time to live; the others
 * stand by and take it over once it has expired (a holder killed with kill -9 is replaced within
 * the lease's time to live plus one poll). The rail's signing writes are fenced by the lease.
 *
 * Passes run on a poll timer in production; tests call {@link PayoutSender.pass} themselves and
 * give a clock, so nothing waits on a wall-clock schedule.
 */

import { randomUUID } from 'node:crypto';

import type { Ledger } from '../ledger/ledger.js';
import { type Lease, LeaseLostError, type PayoutJournal } from '../ledger/payout-journal.js';
import type { WithdrawalRecord } from '../ledger/store.js';
import type {
  PayoutFailure,
  PayoutProgress,
  PayoutRail,
  PayoutWait,
  RailPass,
  RailStatus,
} from './payout-rail.js';

/** How the sender runs. */
export interface PayoutSenderOptions {
  /** The ledger whose withdrawals it pays. */
  readonly ledger: Pick<Ledger, 'withdrawals' | 'payout'>;
  /** The lease and the cursor (the rail keeps its own records in the same journal). */
  readonly journal: PayoutJournal;
  readonly rail: PayoutRail;
  /** This instance's name in the lease (default: random per start). */
  readonly holder?: string;
  /** How long a lease lasts unless renewed, ms (default 15 000). */
  readonly leaseTtlMs?: number;
  /** Unix ms (default `Date.now`). */
  readonly clock?: () => number;
  /** Withdrawals read per page (default 100). */
  readonly pageSize?: number;
  /** What happened, for the log and the metrics (never a key, signature or raw transaction). */
  readonly onEvent?: (event: PayoutEvent) => void;
}

/** What the sender reports as it goes. */
export type PayoutEvent =
  | { readonly kind: 'lease'; readonly role: 'active' | 'standby'; readonly epoch: number | null }
  | {
      readonly kind: 'recorded';
      readonly withdrawalId: string;
      readonly status: 'paying' | 'paid' | 'failed';
      readonly reference?: string;
      readonly reason?: PayoutFailure;
    }
  /** A pass ran to its end: how many withdrawals wait, by why. */
  | { readonly kind: 'passed'; readonly waiting: Readonly<Partial<Record<PayoutWait, number>>> }
  | { readonly kind: 'pass_failed'; readonly message: string };

/** The sender's state, for `/health` and the metrics. */
export interface PayoutSenderStatus {
  /** `active`: holds the lease and pays; `standby`: another instance does; `stopped`. */
  readonly role: 'active' | 'standby' | 'stopped';
  /** The lease's epoch while active. */
  readonly epoch: number | null;
  readonly rail: RailStatus;
  /** Withdrawals of the last pass not decided yet, by why they wait. */
  readonly waiting: Readonly<Partial<Record<PayoutWait, number>>>;
  /** Unix ms of the last pass that ran to its end. */
  readonly lastPassAt: number | null;
  /** Recorded since start. */
  readonly paid: number;
  readonly failed: number;
}

/** What one pass did. */
export interface PassReport {
  readonly role: 'active' | 'standby';
  /** Withdrawals recorded paid or failed in this pass. */
  readonly decided: readonly { withdrawalId: string; status: 'paid' | 'failed' }[];
  /** Withdrawals left under way, with why. */
  readonly waiting: readonly { withdrawalId: string; wait: PayoutWait }[];
}

const DECIDED = new Set(['paid', 'failed']);

/** Pays withdrawals through one rail, one instance at a time. */
export class PayoutSender {
  private readonly holder: string;
  private readonly ttlMs: number;
  private readonly clock: () => number;
  private lease: Lease | null = null;
  private role: PayoutSenderStatus['role'] = 'standby';
  private running: Promise<PassReport> | null = null;
  private timers: NodeJS.Timeout[] = [];
  private waiting: Partial<Record<PayoutWait, number>> = {};
  private lastPassAt: number | null = null;
  private counts = { paid: 0, failed: 0 };

  constructor(private readonly options: PayoutSenderOptions) {
    this.holder = options.holder ?? randomUUID();
    this.ttlMs = options.leaseTtlMs ?? 15_000;
    this.clock = options.clock ?? Date.now;
  }

  /** The rail it pays through. */
  get rail(): PayoutRail {
    return this.options.rail;
  }

  /**
   * Runs a pass every `pollMs` and renews the lease every third of its time to live, until
   * {@link stop}. A pass that throws is reported (`pass_failed`) and the next one runs as usual.
   */
  start(pollMs: number): void {
    if (this.timers.length > 0) return;
    this.role = 'standby';
    // A failed pass is reported by pass() itself; a failed renewal here.
    const ignore = () => undefined;
    const report = (error: unknown) =>
      this.options.onEvent?.({ kind: 'pass_failed', message: messageOf(error) });
    const poll = setInterval(() => this.pass().catch(ignore), pollMs);
    const renew = setInterval(() => this.renew().catch(report), Math.max(1, this.ttlMs / 3));
    this.timers = [poll, renew];
    this.pass().catch(ignore);
  }

  /** Stops the timers, lets a running pass end, and gives the lease up so another takes over now. */
  async stop(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.role = 'stopped';
    await this.running?.catch(() => undefined);
    const lease = this.lease;
    this.lease = null;
    if (lease) await this.options.journal.releaseLease(lease).catch(() => undefined);
  }

  /** The sender's state now. */
  status(): PayoutSenderStatus {
    return {
      role: this.role,
      epoch: this.role === 'active' ? (this.lease?.epoch ?? null) : null,
      rail: this.options.rail.status(),
      waiting: { ...this.waiting },
      lastPassAt: this.lastPassAt,
      paid: this.counts.paid,
      failed: this.counts.failed,
    };
  }

  /**
   * One pass now (one at a time: a call during a pass gets that pass's report).
   * @throws what stopped the pass (the store, the rail's RPC, a lost lease), reported first as a
   *   `pass_failed` event
   */
  pass(): Promise<PassReport> {
    this.running ??= this.runPass()
      .catch((error: unknown) => {
        this.options.onEvent?.({ kind: 'pass_failed', message: messageOf(error) });
        throw error;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Renews the lease while this instance holds it (a standby takes it in {@link pass}). */
  private async renew(): Promise<void> {
    if (this.role !== 'active') return;
    await this.acquire();
  }

  private async acquire(): Promise<Lease | null> {
    const { journal, rail } = this.options;
    const lease = await journal.acquireLease(rail.name, this.holder, this.clock(), this.ttlMs);
    const role = lease ? 'active' : 'standby';
    if (this.role === 'stopped') return null;
    if (role !== this.role || lease?.epoch !== this.lease?.epoch)
      this.options.onEvent?.({ kind: 'lease', role, epoch: lease?.epoch ?? null });
    this.role = role;
    this.lease = lease;
    return lease;
  }

  private async runPass(): Promise<PassReport> {
    if (this.role === 'stopped') return { role: 'standby', decided: [], waiting: [] };
    const lease = await this.acquire();
    if (!lease) return { role: 'standby', decided: [], waiting: [] };
    const { journal, rail } = this.options;
    const cursor = await journal.cursor(rail.name);
    const withdrawals = await this.readFrom(cursor);
    const pass = await rail.beginPass(lease);
    const decided: PassReport['decided'][number][] = [];
    const waiting: PassReport['waiting'][number][] = [];
    // The cursor moves past the decided withdrawals that come before the first undecided one.
    let settledUpTo = cursor;
    let gap = false;
    for (const withdrawal of withdrawals) {
      const outcome = DECIDED.has(withdrawal.status ?? '')
        ? (withdrawal.status as 'paid' | 'failed')
        : await this.step(withdrawal, pass);
      if (outcome === 'paid' || outcome === 'failed') {
        if (!DECIDED.has(withdrawal.status ?? ''))
          decided.push({ withdrawalId: withdrawal.withdrawalId, status: outcome });
        if (!gap) settledUpTo = withdrawal.eventId;
      } else {
        gap = true;
        waiting.push({ withdrawalId: withdrawal.withdrawalId, wait: outcome });
      }
    }
    if (settledUpTo > cursor) await journal.setCursor(lease, settledUpTo, this.clock());
    this.waiting = {};
    for (const { wait } of waiting) this.waiting[wait] = (this.waiting[wait] ?? 0) + 1;
    this.lastPassAt = this.clock();
    this.options.onEvent?.({ kind: 'passed', waiting: { ...this.waiting } });
    return { role: 'active', decided, waiting };
  }

  /** The withdrawals after `cursor`, oldest first. */
  private async readFrom(cursor: number): Promise<WithdrawalRecord[]> {
    const pageSize = this.options.pageSize ?? 100;
    const out: WithdrawalRecord[] = [];
    let after = cursor;
    for (;;) {
      const page = await this.options.ledger.withdrawals(after, pageSize);
      out.push(...page);
      const last = page.at(-1);
      if (last === undefined || page.length < pageSize) return out;
      after = last.eventId;
    }
  }

  /**
   * One withdrawal: `paying` recorded (durable) before the rail is asked; then the rail's answer
   * recorded once final. A lost lease ends the pass; a rail that cannot be read leaves it waiting.
   */
  private async step(
    withdrawal: WithdrawalRecord,
    pass: RailPass,
  ): Promise<'paid' | 'failed' | PayoutWait> {
    const { rail } = this.options;
    const id = withdrawal.withdrawalId;
    if (withdrawal.status === null && !(await this.record(id, 'paying'))) return 'in_flight';
    const refusal = rail.refusal(withdrawal.destination);
    let progress: PayoutProgress;
    if (refusal !== null) {
      progress = { state: 'failed', reason: refusal };
    } else {
      try {
        progress = await rail.advance(
          { withdrawalId: id, destination: withdrawal.destination, amount: withdrawal.amount },
          pass,
        );
      } catch (error) {
        if (error instanceof LeaseLostError) throw error;
        return 'rail_unreachable';
      }
    }
    if (progress.state === 'pending') return progress.wait;
    if (progress.state === 'paid') {
      if (!(await this.record(id, 'paid', { reference: progress.reference }))) return 'in_flight';
      return 'paid';
    }
    if (!(await this.record(id, 'failed', { reason: progress.reason }))) return 'in_flight';
    return 'failed';
  }

  /** Records a payout step in the ledger; `false` when the ledger refused it (out of order). */
  private async record(
    withdrawalId: string,
    status: 'paying' | 'paid' | 'failed',
    detail: { reference?: string; reason?: PayoutFailure } = {},
  ): Promise<boolean> {
    const result = await this.options.ledger.payout(withdrawalId, status);
    if (!result.ok) return false;
    if (status !== 'paying') this.counts[status]++;
    this.options.onEvent?.({ kind: 'recorded', withdrawalId, status, ...detail });
    return true;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
