/**
 * @module The payout sender's metrics (docs/operations.md): whether this instance holds the
 * sender's lease, the withdrawals under way by why they wait, the payout key's gas against its
 * minimum, the age of the last pass, and — counted as they happen — payouts recorded paid or
 * failed and transactions signed, replaced or broadcast again. No withdrawal id, address, amount or
 * transaction appears in a label.
 */

import { Counter, Gauge, type Registry } from 'prom-client';

/** What the gauges read at each scrape. */
export interface PayoutGaugeStatus {
  /** `active` (holds the lease), `standby` or `stopped`. */
  readonly role: string;
  /** Withdrawals under way, by why they wait. */
  readonly waiting: Readonly<Record<string, number>>;
  /** The payout key's balance (wei, decimal), `null` before it was read. */
  readonly gasBalance: string | null;
  /** True while the balance is below the minimum (nothing new is signed). */
  readonly gasLow: boolean;
  /** Unix ms of the last pass that ran to its end. */
  readonly lastPassAt: number | null;
}

/** The reasons a payout waits, each a label value of `priv_stark_payouts_waiting`. */
const WAITS = [
  'in_flight',
  'awaiting_finality',
  'rail_refusing',
  'gas_low',
  'gas_above_ceiling',
  'rail_unreachable',
  'awaiting_attestation',
] as const;

/** The payout sender's metrics in a registry. */
export class PayoutMetrics {
  private readonly recordedTotal: Counter<'status'>;
  private readonly transactionsTotal: Counter<'kind'>;

  constructor(registry: Registry, status: () => PayoutGaugeStatus, clock: () => number = Date.now) {
    const registers = [registry];
    this.recordedTotal = new Counter({
      name: 'priv_stark_payouts_total',
      help: 'Payouts recorded by this instance since it started, by status (paid, failed)',
      labelNames: ['status'],
      registers,
    });
    this.transactionsTotal = new Counter({
      name: 'priv_stark_payout_transactions_total',
      help: 'Payout transactions signed, replaced (fees bumped) or broadcast again since start',
      labelNames: ['kind'],
      registers,
    });
    new Gauge({
      name: 'priv_stark_payout_sender_active',
      help: 'Whether this instance holds the payout sender’s lease (one instance pays at a time)',
      registers,
      collect() {
        this.set(status().role === 'active' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'priv_stark_payouts_waiting',
      help: 'Withdrawals whose payout is under way, by why they wait (as of the last pass)',
      labelNames: ['wait'],
      registers,
      collect() {
        const waiting = status().waiting;
        for (const wait of WAITS) this.set({ wait }, waiting[wait] ?? 0);
      },
    });
    new Gauge({
      name: 'priv_stark_payout_gas_low',
      help: 'Whether the payout key’s gas is below the minimum (the sender signs nothing new)',
      registers,
      collect() {
        this.set(status().gasLow ? 1 : 0);
      },
    });
    new Gauge({
      name: 'priv_stark_payout_last_pass_age_seconds',
      help: 'Seconds since the payout sender’s last complete pass (absent before the first)',
      registers,
      collect() {
        const at = status().lastPassAt;
        this.reset();
        if (at !== null) this.set(Math.max(0, (clock() - at) / 1000));
      },
    });
  }

  /** A payout recorded `paid` or `failed`. */
  recorded(status: 'paid' | 'failed'): void {
    this.recordedTotal.inc({ status });
  }

  /** A payout transaction signed, replaced or broadcast again. */
  transaction(kind: 'signed' | 'replaced' | 'rebroadcast'): void {
    this.transactionsTotal.inc({ kind });
  }
}
