/**
 * @module The operator's client of the devnet pool node: the calls that need the operator token —
 * deposits (shield funds to a wallet's precommitment), the payout process's feed and steps for
 * exits (docs/pool.md, "Exits and payouts") and an attestation on demand (docs/audit.md). The token travels as a bearer header, checked by the
 * node before it reads a body. The bodies and replies are the node's own types
 * (`operator-schemas.ts`).
 */

import type { PayoutStatus } from '../ledger/store.js';
import type { AttestReport } from './attest-route.js';
import { PoolNodeConnection, type PoolNodeConnectionOptions, pageQuery } from './node-request.js';
import type {
  DepositReceipt,
  DepositRequest,
  PayoutReply,
  WithdrawalsPage,
} from './operator-schemas.js';

/** Options of {@link PoolNodeOperatorClient}. */
export interface PoolNodeOperatorClientOptions extends PoolNodeConnectionOptions {
  /** The operator token, for deposits and payouts. */
  readonly token?: string | undefined;
}

/**
 * What the operator asks one pool node.
 * @example
 * const operator = new PoolNodeOperatorClient('http://127.0.0.1:4021', { token });
 * const { commitment, index } = await operator.deposit('1000000', ticket.pre);
 */
export class PoolNodeOperatorClient {
  private readonly connection: PoolNodeConnection;
  private readonly authorization: string;

  /** @param url the node's base URL, e.g. `http://127.0.0.1:4021` */
  constructor(url: string, options: PoolNodeOperatorClientOptions = {}) {
    this.connection = new PoolNodeConnection(url, options);
    this.authorization = `Bearer ${options.token ?? ''}`;
  }

  /** The node's base URL, without a trailing slash. */
  get url(): string {
    return this.connection.url;
  }

  /**
   * Withdrawals after the cursor (an event id), oldest first, with their payout status: what an
   * operator's payout process reads (operator token required).
   */
  withdrawals(after = 0, limit?: number): Promise<WithdrawalsPage> {
    return this.connection.request(`/withdrawals${pageQuery('after', after, limit)}`, {
      headers: { authorization: this.authorization },
    });
  }

  /**
   * Records a payout step of a withdrawal (operator token required): `paying` before paying,
   * then `paid` or `failed` (which refunds the owner with the exit's proven refund note).
   * @throws PoolNodeError `payout_conflict` (out of order), `unknown_withdrawal`, …
   */
  payout(withdrawalId: string, status: PayoutStatus): Promise<PayoutReply> {
    return this.connection.request(`/withdrawals/${withdrawalId}/${status}`, {
      method: 'POST',
      headers: { authorization: this.authorization },
    });
  }

  /**
   * Has the node post the attestation of its latest checkpoint now (operator token required).
   * @throws PoolNodeError `no_attester` (a devnet pool, or no attester key), `attestation_failed`
   */
  attest(): Promise<AttestReport> {
    return this.connection.request('/attest', {
      method: 'POST',
      headers: { authorization: this.authorization },
    });
  }

  /** Shields `amount` to the precommitment `pre` (operator token required). */
  deposit(amount: string, pre: string): Promise<DepositReceipt> {
    const body: DepositRequest = { amount, pre };
    return this.connection.request('/deposit', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: this.authorization },
      body: JSON.stringify(body),
    });
  }
}
