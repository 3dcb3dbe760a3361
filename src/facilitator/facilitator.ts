/**
 * @module The facilitator: `verify` and `settle` of `priv-stark/v1` payments, without any HTTP
 * framework. Both run the ordered checks that need no I/O (`checks.ts`). `verify` then asks the
 * ledger whether the anchor is a checkpoint and whether the nullifier is spent, verifies the proof
 * off the event loop (identical payloads in flight verified once) and changes nothing. `settle`
 * hands the settlement — the payment as the ledger's own rules passed it, which the ledger does not
 * check again — or, when a check failed, the refusal to the ledger, which owns the order of
 * `/settle`: a nullifier settles once, and every later settle naming it gets
 * `duplicate_settlement` with the original transaction, even one that fails another check; the
 * ledger verifies the proof itself and applies the settlement atomically and durably.
 */

import { PoolUnavailableError } from '../ledger/errors.js';
import type { SettleResult, SpentNullifier } from '../ledger/index.js';
import {
  ContextDigests,
  type FacilitatorRequest,
  isReason,
  NETWORKS,
  type NetworkProfile,
  type PaymentRules,
  type Reason,
} from '../scheme/index.js';
import { inSpan, inSpanSync } from '../tracing/spans.js';
import { type CheckedPayment, checkRequest } from './checks.js';
import { InFlightVerifier } from './inflight.js';
import type {
  CallerPolicy,
  FacilitatorCore,
  FacilitatorLedger,
  SettleOutcome,
  VerifyOutcome,
} from './types.js';

/** Options of {@link Facilitator}. */
export interface FacilitatorOptions {
  readonly core: FacilitatorCore;
  readonly ledger: FacilitatorLedger;
  /** Supported networks (default: the profile's, i.e. the devnet pool). */
  readonly networks?: readonly NetworkProfile[];
  /** Unix milliseconds (default `Date.now`). */
  readonly clock?: () => number;
  /** The proof verifier (default: the core's `verifySpend`; `VerifierThreads.verify` in a server). */
  readonly verify?: FacilitatorCore['verifySpend'];
  /**
   * `ctx` of recent payment contexts, for a ledger that brings no payment rules of its own
   * (default: a memo of the core's own). The ledger's rules hash with the ledger's core.
   */
  readonly contexts?: ContextDigests;
}

/** Ledger reasons that mean the pool cannot take the transition at all. */
const POOL_DOWN_REASONS = new Set(['tree_full']);

/**
 * Verifies and settles payments.
 * @example
 * const facilitator = new Facilitator({ core, ledger });
 * const verdict = await facilitator.verify(body, policy);
 * if (!verdict.ok) console.log(verdict.reason);
 */
export class Facilitator {
  readonly networks: readonly NetworkProfile[];
  private readonly core: FacilitatorCore;
  private readonly ledger: FacilitatorLedger;
  private readonly clock: () => number;
  /** Proof verification with in-flight deduplication (exposed for metrics and tests). */
  readonly verifier: InFlightVerifier;
  /** `ctx` of recent payment contexts (exposed for tests). */
  readonly contexts: ContextDigests;
  /** The ledger's payment rules: what they pass, the ledger takes without checking it again. */
  private readonly rules: PaymentRules | undefined;

  constructor(options: FacilitatorOptions) {
    this.core = options.core;
    this.ledger = options.ledger;
    this.networks = options.networks ?? NETWORKS;
    this.clock = options.clock ?? Date.now;
    this.contexts =
      options.contexts ?? new ContextDigests((payment) => this.core.contextDigest(payment));
    this.rules = options.ledger.paymentRules;
    this.verifier = new InFlightVerifier(
      options.verify ?? ((proof, inputs) => this.core.verifySpend(proof, inputs)),
    );
  }

  /**
   * Verifies a schema-valid request. Changes no state.
   * @throws only for faults of the facilitator itself (never for a bad payment or a pool outage)
   */
  async verify(request: FacilitatorRequest, policy?: CallerPolicy): Promise<VerifyOutcome> {
    const checked = this.check(request, policy);
    if (!checked.ok) return checked;
    try {
      const state = await this.poolChecks(checked, request.paymentRequirements.maxTimeoutSeconds);
      if (state === 'unknown_root' || state === 'root_too_old') return { ok: false, reason: state };
      if (state !== 'unspent') return { ok: false, reason: 'nullifier_already_spent' };
      // Compact: the verdict of the proof's hand-over, if its public inputs are exactly these.
      if (checked.reference !== null) {
        const matches = await this.ledger.handedOverMatches(
          checked.reference,
          checked.publicInputs,
        );
        return matches ? { ok: true } : { ok: false, reason: 'unknown_proof_reference' };
      }
    } catch (error) {
      return { ok: false, reason: poolFault(error) };
    }
    const verdict = await inSpan(
      'proof.verify',
      () => this.verifier.run(checked.proof!, checked.publicInputs),
      { leaf: true, reasonOf: (v) => (v.ok ? null : 'invalid_priv_stark_proof') },
    );
    return verdict.ok ? { ok: true } : { ok: false, reason: 'invalid_priv_stark_proof' };
  }

  /**
   * Settles a schema-valid request: every verify check, then the ledger's transition, which owns
   * the order of `/settle` (a settled nullifier is answered `duplicate_settlement` with the
   * original transaction before any other refusal, the facilitator's own included). Resolves with
   * success only once the settlement is durable.
   * @throws only for faults of the facilitator itself
   */
  async settle(request: FacilitatorRequest, policy?: CallerPolicy): Promise<SettleOutcome> {
    const network = request.paymentRequirements.network;
    const checked = this.check(request, policy);
    let result: SettleResult | { readonly ok: false; readonly reason: Reason };
    try {
      // An anchor too old is refused as the facilitator's own checks are: after a settled
      // nullifier, which the ledger answers first (a retry of a settled payment stays a duplicate).
      const stale = checked.ok
        ? await this.anchorTooOld(checked, request.paymentRequirements.maxTimeoutSeconds)
        : null;
      result =
        checked.ok && stale === null
          ? await this.ledger.settle(checked)
          : await this.ledger.refuse(
              request.paymentPayload.payload.nullifier,
              stale ?? (checked as { reason: Reason }).reason,
            );
    } catch (error) {
      return { ok: false, reason: poolFault(error), transaction: '', network };
    }
    if (result.ok)
      return {
        ok: true,
        transaction: result.settlementId,
        network: checked.ok ? checked.network : network,
      };
    if (result.reason === 'duplicate_settlement') {
      return {
        ok: false,
        reason: 'duplicate_settlement',
        transaction: 'settlementId' in result ? (result.settlementId ?? '') : '',
        network,
      };
    }
    const reason: Reason = POOL_DOWN_REASONS.has(result.reason)
      ? 'pool_unavailable'
      : isReason(result.reason)
        ? result.reason
        : 'facilitator_error';
    return { ok: false, reason, transaction: '', network };
  }

  private check(request: FacilitatorRequest, policy: CallerPolicy | undefined) {
    return inSpanSync(
      'facilitator.checks',
      () =>
        checkRequest(request, {
          core: this.core,
          networks: this.networks,
          now: Math.floor(this.clock() / 1000),
          policy,
          rules: this.rules,
          contextDigest: (payment) => this.contexts.of(payment),
        }),
      { leaf: true, reasonOf: (checked) => (checked.ok ? null : checked.reason) },
    );
  }

  /** The anchor is a checkpoint young enough, then the nullifier is unspent (or who spent it). */
  private async poolChecks(
    checked: CheckedPayment,
    maxTimeoutSeconds: number,
  ): Promise<'unknown_root' | 'root_too_old' | 'unspent' | SpentNullifier> {
    const { root } = checked.publicInputs;
    if (this.ledger.anchorRefusal) {
      const refused = await this.ledger.anchorRefusal(root, maxTimeoutSeconds);
      if (refused !== null) return refused;
    } else if (!(await this.ledger.isCheckpoint(root))) return 'unknown_root';
    return (await this.ledger.spent(checked.publicInputs.nullifier)) ?? 'unspent';
  }

  /** `root_too_old` when the anchor is a checkpoint older than the pool accepts, else `null`. */
  private async anchorTooOld(
    checked: CheckedPayment,
    maxTimeoutSeconds: number,
  ): Promise<'root_too_old' | null> {
    if (!this.ledger.anchorRefusal) return null;
    const refused = await this.ledger.anchorRefusal(checked.publicInputs.root, maxTimeoutSeconds);
    return refused === 'root_too_old' ? 'root_too_old' : null;
  }
}

/** A pool call that threw: the store is down (503), anything else is our fault (rethrown). */
function poolFault(error: unknown): Reason {
  if (error instanceof PoolUnavailableError) return 'pool_unavailable';
  throw error;
}
