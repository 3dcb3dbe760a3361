/**
 * @module The facilitator: `verify` and `settle` of `priv-stark/v1` payments, without any HTTP
 * framework. Both run the ordered checks (`checks.ts`), then ask the pool whether the anchor is a
 * checkpoint and whether the nullifier is spent. `verify` then verifies the proof off the event
 * loop (identical payloads in flight verified once) and changes nothing. `settle` hands the
 * transition to the pool, which verifies the proof itself and applies it atomically and durably;
 * a nullifier settles once, and every later settle naming it gets `duplicate_settlement` with the
 * original transaction, even one that fails another check.
 */

import { PoolUnavailableError, type SettleResult, type SpentNullifier } from '../ledger/index.js';
import { type FacilitatorRequest, isReason, NETWORKS, type NetworkProfile, type Reason } from '../scheme/index.js';
import { type CheckedPayment, checkRequest } from './checks.js';
import { ContextDigests } from './context-digests.js';
import { InFlightVerifier } from './inflight.js';
import type { CallerPolicy, FacilitatorCore, FacilitatorLedger, SettleOutcome, VerifyOutcome } from './types.js';

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
}

/** Ledger reasons that mean the pool cannot take the transition at all. */
const POOL_DOWN_REASONS = new Set(['tree_full']);

/**
 * Verifies and settles payments.
 * @example
 * const facilitator = new Facilitator({ core, pool });
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

  constructor(options: FacilitatorOptions) {
    this.core = options.core;
    this.ledger = options.ledger;
    this.networks = options.networks ?? NETWORKS;
    this.clock = options.clock ?? Date.now;
    this.contexts = new ContextDigests((payment) => this.core.contextDigest(payment));
    this.verifier = new InFlightVerifier(options.verify ?? ((proof, inputs) => this.core.verifySpend(proof, inputs)));
  }

  /**
   * Verifies a schema-valid request. Changes no state.
   * @throws only for faults of the facilitator itself (never for a bad payment or a pool outage)
   */
  async verify(request: FacilitatorRequest, policy?: CallerPolicy): Promise<VerifyOutcome> {
    const checked = this.check(request, policy);
    if (!checked.ok) return checked;
    try {
      const state = await this.poolChecks(checked);
      if (state === 'unknown_root') return { ok: false, reason: 'unknown_root' };
      if (state !== 'unspent') return { ok: false, reason: 'nullifier_already_spent' };
    } catch (error) {
      return { ok: false, reason: poolFault(error) };
    }
    const verdict = await this.verifier.run(checked.proof, checked.publicInputs);
    return verdict.ok ? { ok: true } : { ok: false, reason: 'invalid_priv_stark_proof' };
  }

  /**
   * Settles a schema-valid request: every verify check, then the pool's transition. Resolves
   * with success only once the settlement is durable.
   * @throws only for faults of the facilitator itself
   */
  async settle(request: FacilitatorRequest, policy?: CallerPolicy): Promise<SettleOutcome> {
    const network = request.paymentRequirements.network;
    const refuse = (reason: Reason, transaction = ''): SettleOutcome => ({ ok: false, reason, transaction, network });
    const checked = this.check(request, policy);
    if (!checked.ok) {
      try {
        const spent = await this.settledBefore(request.paymentPayload.payload.nullifier);
        return spent ? refuse('duplicate_settlement', spent.settlementId) : refuse(checked.reason);
      } catch (error) {
        // Which answer is right cannot be told while the store is down: retry later.
        return refuse(poolFault(error));
      }
    }
    let result: SettleResult;
    try {
      // The nullifier first: a settled one answers duplicate_settlement whatever else holds.
      const spent = await this.ledger.spent(checked.publicInputs.nullifier);
      if (spent) return refuse('duplicate_settlement', spent.settlementId);
      if (!(await this.ledger.isCheckpoint(checked.publicInputs.root))) return refuse('unknown_root');
      result = await this.ledger.settle({ proof: checked.proof, publicInputs: checked.publicInputs, payment: checked.payment });
    } catch (error) {
      return refuse(poolFault(error));
    }
    if (result.ok) return { ok: true, transaction: result.settlementId, network: checked.network };
    if (result.reason === 'duplicate_settlement') return refuse('duplicate_settlement', result.settlementId ?? '');
    if (POOL_DOWN_REASONS.has(result.reason)) return refuse('pool_unavailable');
    return refuse(isReason(result.reason) ? result.reason : 'facilitator_error');
  }

  /**
   * The settlement of the nullifier a settle that failed a check names, if it has settled: such a
   * settle is refused as `duplicate_settlement` with the original transaction (priv-stark-v1.md
   * §4: every later settle naming it gets that). A resource server retrying a settle whose reply
   * it lost must learn that the payment settled even if it has expired since, or its key's policy
   * changed; the answer tells nothing new: the settlement id is a hash of the nullifier.
   * @returns `null` for a nullifier that is not a canonical digest or has not settled
   */
  private async settledBefore(nullifier: string): Promise<SpentNullifier | null> {
    let digest: string;
    try {
      digest = this.core.parseDigest(nullifier);
    } catch {
      return null;
    }
    return this.ledger.spent(digest);
  }

  private check(request: FacilitatorRequest, policy: CallerPolicy | undefined) {
    return checkRequest(request, {
      core: this.core,
      networks: this.networks,
      now: Math.floor(this.clock() / 1000),
      policy,
      contextDigest: (payment) => this.contexts.of(payment),
    });
  }

  /** The anchor is a checkpoint, then the nullifier is unspent (or who spent it). */
  private async poolChecks(checked: CheckedPayment): Promise<'unknown_root' | 'unspent' | SpentNullifier> {
    if (!(await this.ledger.isCheckpoint(checked.publicInputs.root))) return 'unknown_root';
    return (await this.ledger.spent(checked.publicInputs.nullifier)) ?? 'unspent';
  }
}

/** A pool call that threw: the store is down (503), anything else is our fault (rethrown). */
function poolFault(error: unknown): Reason {
  if (error instanceof PoolUnavailableError) return 'pool_unavailable';
  throw error;
}
