/**
 * @module The `priv-stark/v1` scheme client with the policy around it, as `pay_and_fetch` hands it
 * to x402's client: the rules are checked and the amount reserved in the spend ledger (written to
 * disk) before the wallet builds anything; a refusal or a failure before the payload exists
 * releases the reservation and leaves the wallet untouched. Once the payload is out the entry is
 * linked to the wallet's pending record (its nullifier), and counts until the pool's log resolves
 * it.
 */

import type {
  PaymentPayloadContext,
  PaymentPayloadResult,
  PaymentRequirements,
  SchemeNetworkClient,
} from '@x402/core/types';

import type { PrivStarkSchemeClient, StoredPending } from '../client/index.js';
import {
  type PaymentRequirements as ProfileRequirements,
  resourceIdOf,
  SCHEME,
} from '../scheme/index.js';
import { ToolError } from './errors.js';
import { checkPayment, hostOf, type Policy } from './policy.js';
import type { PolicyEvaluation } from './policy-evaluation.js';
import { recordedUrl } from './request.js';
import type { SpendBookkeeping } from './spend-bookkeeping.js';
import type { SpendEntry } from './spend-ledger.js';

/**
 * The scheme client with the policy around it, for one tool call: one payment at most, checked and
 * reserved before the wallet builds it.
 */
export class PolicedScheme implements SchemeNetworkClient {
  readonly scheme = SCHEME;
  /** Why creating the payment failed (x402 rewraps the error; this keeps the original). */
  failure: unknown = null;
  entry: SpendEntry | null = null;
  readonly findDefaultAsset: PrivStarkSchemeClient['findDefaultAsset'];

  constructor(
    private readonly inner: PrivStarkSchemeClient,
    private readonly policy: PolicyEvaluation,
    private readonly bookkeeping: SpendBookkeeping,
    private readonly url: URL,
  ) {
    this.findDefaultAsset = inner.findDefaultAsset;
  }

  async createPaymentPayload(
    x402Version: number,
    requirements: PaymentRequirements,
    context?: PaymentPayloadContext,
  ): Promise<PaymentPayloadResult> {
    try {
      if (this.entry !== null)
        throw new ToolError(
          'payment_repeated',
          'the merchant asked for a second payment in one call; nothing more was paid',
        );
      const policy = await this.policy.current();
      const entry = this.reserve(policy, requirements);
      this.entry = entry;
      await this.bookkeeping.keepReservation(entry, 'paid');
      return await this.build(entry, policy, x402Version, requirements, context);
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  /**
   * Checks the payment against the policy and reserves its amount: one synchronous step (nothing
   * awaits from the check to the reservation), so concurrent payments cannot pass a limit together.
   * @throws PolicyRefusal naming the rule; ToolError `unpayable_requirements`
   */
  private reserve(policy: Policy, requirements: PaymentRequirements): SpendEntry {
    const amount = /^[0-9]{1,19}$/.test(requirements.amount) ? BigInt(requirements.amount) : -1n;
    if (amount < 0n)
      throw new ToolError('unpayable_requirements', "the merchant's amount is not atomic units");
    const refusal = checkPayment(policy, {
      url: this.url,
      network: requirements.network,
      asset: requirements.asset,
      payTo: requirements.payTo,
      amount,
    });
    if (refusal) throw refusal;
    return this.bookkeeping.spendLedger.reserve(
      {
        amount,
        network: requirements.network,
        asset: requirements.asset,
        payTo: requirements.payTo,
        host: hostOf(this.url),
        url: recordedUrl(this.url),
      },
      policy.maxPer24h,
    );
  }

  /** Has the wallet build the reserved payment, and links the entry to it (or releases it). */
  private async build(
    entry: SpendEntry,
    policy: Policy,
    x402Version: number,
    requirements: PaymentRequirements,
    context: PaymentPayloadContext | undefined,
  ): Promise<PaymentPayloadResult> {
    const spendLedger = this.bookkeeping.spendLedger;
    let result: PaymentPayloadResult;
    const known = new Set(this.inner.wallet.payments().map((p) => p.nullifier as string));
    try {
      // The wallet enforces the policy's per-payment maximum as its spend cap too.
      result = await this.inner.createPaymentPayload(x402Version, requirements, {
        ...context,
        maxAmountPerPayment: policy.maxPerPayment.toString(),
      });
    } catch (error) {
      // Nothing left the wallet (it removes its record when proving fails or the pool node
      // refuses the hand-over) — unless a hand-over failed without a clear answer: the node may
      // hold the proof, the wallet keeps the payment pending, and so does the spend ledger.
      const kept = this.keptRecord(known, requirements);
      if (kept) spendLedger.markLeft(entry.id, kept.nullifier, kept.expiry);
      else spendLedger.release(entry.id);
      await this.bookkeeping.saveIfPossible();
      throw error;
    }
    const payload = result.payload as { nullifier: string; expiry: number };
    spendLedger.markLeft(entry.id, payload.nullifier, payload.expiry);
    // Should this save fail, the next start links the reservation to the wallet's record.
    await this.bookkeeping.saveIfPossible();
    return result;
  }

  /**
   * The pending record a failed payment left in the wallet: new since `known`, for these
   * requirements, linked to no entry of the spend ledger.
   */
  private keptRecord(
    known: ReadonlySet<string>,
    requirements: PaymentRequirements,
  ): StoredPending | undefined {
    const linked = new Set(this.bookkeeping.spendLedger.entries().map((e) => e.nullifier));
    const resourceId = resourceIdOf(requirements as unknown as ProfileRequirements);
    return this.inner.wallet
      .payments()
      .find(
        (p) =>
          p.status === 'pending' &&
          !known.has(p.nullifier) &&
          !linked.has(p.nullifier) &&
          p.amount === requirements.amount &&
          p.payTo === requirements.payTo &&
          p.resourceId === resourceId,
      );
  }
}
