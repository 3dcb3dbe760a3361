/**
 * @module The agent's policy evaluation: the policy in force (read from its source at each call,
 * so the operator's edits apply at once), how much of its rolling 24-hour limit the spend ledger
 * counts, and the refusals a tool shows or throws before anything is fetched or reserved. The rules
 * themselves are policy.ts's; the 24-hour limit is applied for good by the spend ledger's
 * reservation, which this only previews.
 */

import { PolicyRefusal } from './errors.js';
import {
  checkPayment,
  hostAllowed,
  hostOf,
  type PaymentIntent,
  type Policy,
  type PolicyTightening,
} from './policy.js';
import type { PolicySource } from './policy-file.js';
import type { SpendLedger } from './spend-ledger.js';
import type { PolicyView, UsageView } from './views.js';

/** The policy an agent pays within, against what its spend ledger counts. */
export class PolicyEvaluation {
  constructor(
    private readonly source: PolicySource,
    private readonly spendLedger: SpendLedger,
  ) {}

  /** The policy in force now. */
  current(): Promise<Policy> {
    return this.source.current();
  }

  /**
   * Narrows the policy (only ever narrower: policy.ts's `tightenPolicy`), persisted by its source.
   * @returns the narrower policy as the tools show it, and the rules it changed
   */
  async tighten(change: PolicyTightening): Promise<PolicyView & { changed: string[] }> {
    const { policy, changed } = await this.source.tighten(change);
    return { ...this.view(policy), changed };
  }

  /** The rolling 24-hour usage against `policy`'s limit. */
  usage(policy: Policy): UsageView {
    const counted = this.spendLedger.counted();
    const remaining = policy.maxPer24h > counted ? policy.maxPer24h - counted : 0n;
    const unresolved = this.spendLedger
      .entries()
      .filter((e) => e.status === 'reserved' || e.status === 'left').length;
    return {
      counted_24h: counted.toString(),
      remaining_24h: remaining.toString(),
      unresolved_payments: unresolved,
    };
  }

  /** `policy` and its usage, as the tools show them. */
  view(policy: Policy): PolicyView {
    return {
      policy: {
        max_per_payment: policy.maxPerPayment.toString(),
        max_per_24h: policy.maxPer24h.toString(),
        hosts: policy.hosts,
        recipients: policy.recipients,
        networks: policy.networks,
        assets: policy.assets,
        withdrawal_destinations: policy.withdrawalDestinations,
      },
      usage: this.usage(policy),
    };
  }

  /**
   * The refusal of a host the policy does not allow (not to be contacted at all), or `null`.
   * @param consequence appended to the message (what did not happen)
   */
  hostRefusal(policy: Policy, url: URL, consequence = ''): PolicyRefusal | null {
    if (hostAllowed(policy, url)) return null;
    return new PolicyRefusal(
      'host_not_allowed',
      'hosts',
      `the policy does not allow paying ${hostOf(url)}: it is not in the policy's hosts${consequence}`,
    );
  }

  /**
   * The first rule that would refuse the payment now, the rolling 24-hour limit included, or
   * `null`; nothing is reserved.
   */
  paymentRefusal(policy: Policy, intent: PaymentIntent): PolicyRefusal | null {
    const refusal = checkPayment(policy, intent);
    const counted = this.spendLedger.counted();
    if (refusal || counted + intent.amount <= policy.maxPer24h) return refusal;
    return new PolicyRefusal(
      'rolling_24h_limit',
      'maxPer24h',
      `paying ${intent.amount} would take the last 24 hours' spending to ${counted + intent.amount}, above the policy's maxPer24h of ${policy.maxPer24h}`,
    );
  }
}
