/**
 * @module What the facilitator needs from the core and the pool, what a caller's policy says, and
 * what verify and settle return. Rejections are data (a reason of the registry), never exceptions;
 * only a fault of the facilitator itself throws.
 */

import type { PrivStarkCore, SpendPublicInputs } from '../core/index.js';
import type {
  LedgerRejection,
  SettleResult,
  SettlementInput,
  SpentNullifier,
} from '../ledger/index.js';
import type { PaymentRules, Reason } from '../scheme/index.js';

/** The core calls the facilitator makes. */
export type FacilitatorCore = Pick<
  PrivStarkCore,
  'parseDigest' | 'decodeAddress' | 'contextDigest' | 'verifySpend'
>;

/** The ledger calls the facilitator makes (`Ledger` of `src/ledger` has them). */
export interface FacilitatorLedger {
  /** Whether `root` is a published checkpoint. */
  isCheckpoint(root: string): Promise<boolean>;
  /**
   * Whether `root` may anchor a payment allowed `maxTimeoutSeconds` (`Ledger.anchorRefusal`):
   * `unknown_root`, `root_too_old`, or `null`. Without it only {@link isCheckpoint} is asked.
   */
  anchorRefusal?(
    root: string,
    maxTimeoutSeconds: number,
  ): Promise<'unknown_root' | 'root_too_old' | null>;
  /** The settlement that spent `nullifier`, `null` while unspent. */
  spent(nullifier: string): Promise<SpentNullifier | null>;
  /**
   * Whether `reference` names a handed-over proof, still kept and of an accepted parameter set,
   * whose public inputs are exactly `publicInputs` (compact payments: its verdict holds).
   */
  handedOverMatches(reference: string, publicInputs: SpendPublicInputs): Promise<boolean>;
  /**
   * The ledger's payment rules (`Ledger.paymentRules`): the facilitator checks with them, and the
   * ledger takes a payment they passed without checking it again. Without them the facilitator
   * checks with rules of its own, and the ledger checks what it gets as raw input.
   */
  readonly paymentRules?: PaymentRules | undefined;
  /**
   * The pool's settlement: a settled nullifier answered first, then its own checks (none for a
   * payment its rules passed), the proof verified, the settlement applied atomically and durably.
   */
  settle(input: SettlementInput): Promise<SettleResult>;
  /** A settle the facilitator's checks refused: `duplicate_settlement` if its nullifier settled, else `reason`. */
  refuse<R extends string>(
    nullifier: unknown,
    reason: R,
  ): Promise<LedgerRejection | { readonly ok: false; readonly reason: R }>;
}

/** What one API key may do (priv-stark-v1.md §5). Absent fields do not restrict. */
export interface CallerPolicy {
  /** Shielded addresses the key may have paid (`paymentRequirements.payTo`). */
  readonly allowedRecipients?: readonly string[] | undefined;
  /** The largest amount, in atomic units. */
  readonly maxAmount?: bigint | undefined;
}

/** A verify verdict. */
export type VerifyOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: Reason };

/** A settle verdict; `transaction` is `''` unless something was (or had been) settled. */
export type SettleOutcome =
  | { readonly ok: true; readonly transaction: string; readonly network: string }
  | {
      readonly ok: false;
      readonly reason: Reason;
      readonly transaction: string;
      readonly network: string;
    };
