/**
 * @module The payout rail: what the pool node's payout sender (`payout-sender.ts`) needs from
 * whatever moves an exit's funds — a chain today (`src/chain/payout-rail.ts`), another rail later.
 * The sender owns the ledger's side (the withdrawals, `paying` durable first, then `paid` or
 * `failed`) and the lease; the rail owns its own durability (for a chain: every signed transaction
 * stored before it is broadcast) and tells, per withdrawal, whether the payout is still under way,
 * final, or can never be made.
 */

import type { Lease } from '../ledger/payout-journal.js';

/** A withdrawal to pay, as the ledger recorded it. */
export interface PayoutOrder {
  /** `0x` + 64 hex: the idempotency key the rail's payout carries. */
  readonly withdrawalId: string;
  /** The CAIP-10 account id the exit named. */
  readonly destination: string;
  /** Decimal atomic units. */
  readonly amount: string;
}

/** Why a payout can never be made (the exit's refund note goes back to its owner). */
export type PayoutFailure =
  /** The destination is not an account this rail pays (another chain, the escrow, the token). */
  | 'unpayable_destination'
  /** The rail refuses this destination while it pays others (a token's blacklist). */
  | 'destination_refused'
  /** The payout's deadline passed in a final block with no payment made. */
  | 'deadline_passed'
  /**
   * Each of the rail's attempts reverted in a final block (the last of them while a simulation
   * passed), none of them can pay any more, and nothing paid it: the refund note, never a payment.
   */
  | 'every_attempt_reverted';

/** Why a payout waits (nothing is recorded; the next pass looks again). */
export type PayoutWait =
  /** Sent; not final yet. */
  | 'in_flight'
  /** Paid on the rail; waiting for the payment to be final. */
  | 'awaiting_finality'
  /** The rail pays nobody now (a pause, the cap, the custody, the payout role): it is retried. */
  | 'rail_refusing'
  /** The sending key's gas balance is below the configured minimum: nothing new is signed. */
  | 'gas_low'
  /** Fees are above the configured ceiling: nothing new is signed. */
  | 'gas_above_ceiling'
  /** The rail could not be read (its RPC down or failing): retried. */
  | 'rail_unreachable'
  /** Two-key payouts: not in the latest attestation's unpaid set yet; paid after the next one. */
  | 'awaiting_attestation';

/** Where a withdrawal's payout stands after {@link PayoutRail.advance}. */
export type PayoutProgress =
  | { readonly state: 'pending'; readonly wait: PayoutWait }
  /** `reference`: the rail's proof of payment (a transaction hash). */
  | { readonly state: 'paid'; readonly reference: string }
  | { readonly state: 'failed'; readonly reason: PayoutFailure };

/** What a rail reports about itself (for `/health` and the metrics). */
export interface RailStatus {
  /** The rail's name (also its lease's). */
  readonly name: string;
  /** Its sending key's gas balance, decimal, `null` before the first pass. */
  readonly gasBalance: string | null;
  /** The minimum below which nothing new is signed, decimal. */
  readonly minGasBalance: string;
  /** True while the gas balance is below the minimum. */
  readonly gasLow: boolean;
}

/** A rail's view of one pass: read once, used for every withdrawal of the pass. */
export interface RailPass {
  /** The lease the pass holds: every signing write is fenced by it. */
  readonly lease: Lease;
}

/** The payout rail. */
export interface PayoutRail {
  /** The rail's name: the key of its lease and its journal (e.g. `eip155:8453:<payout address>`). */
  readonly name: string;
  /**
   * Why this rail could never pay `destination` (`unpayable_destination`), or `null` when it can;
   * checked before anything is proven or signed.
   */
  refusal(destination: string): PayoutFailure | null;
  /**
   * Starts a pass under `lease`: reads what every withdrawal's step needs once, and keeps the
   * transactions of earlier passes going (broadcast again, replaced when stuck).
   * @throws when the rail cannot be read: the pass is skipped, nothing is recorded
   */
  beginPass(lease: Lease): Promise<RailPass>;
  /**
   * Moves one withdrawal's payout forward (for a chain: signs, stores, sends; reads the outcome).
   * Called only after `paying` is durable. Never answers `failed` while a payment it started
   * could still be made.
   */
  advance(order: PayoutOrder, pass: RailPass): Promise<PayoutProgress>;
  /** The rail's own status. */
  status(): RailStatus;
}
