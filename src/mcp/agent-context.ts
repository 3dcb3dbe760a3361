/**
 * @module What the parts of the payment agent share, built once by `PaymentAgent`: the wallet, the
 * policy evaluation, the bookkeeping around the spend ledger, the fetch to merchants and the clock.
 * Each tool is a function over it, in a module of its own.
 */

import type { Wallet } from '../client/index.js';
import type { PolicyEvaluation } from './policy-evaluation.js';
import type { SpendBookkeeping } from './spend-bookkeeping.js';

/** One agent's wallet, policy and spend ledger, and how it reaches merchants. */
export interface AgentContext {
  readonly wallet: Wallet;
  readonly policy: PolicyEvaluation;
  readonly bookkeeping: SpendBookkeeping;
  /** The fetch to merchants (called as a plain function). */
  readonly fetchImpl: typeof fetch;
  /** Unix ms. */
  readonly clock: () => number;
}
