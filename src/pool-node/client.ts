/**
 * @module The one client of the devnet pool node's HTTP API, for wallets (the head, checkpoints,
 * leaves and events, each by cursor — never one note's path) and for the operator (deposits). It
 * needs nothing but `fetch`, so it runs in Node and in browsers; the transport is replaceable (a
 * custom `fetch`, e.g. through a proxy). Every failure is a {@link PoolNodeError} carrying the
 * node's stable `error` code, or `pool_unreachable` when no reply came.
 */

import type { DigestHex } from '../core/digest.js';
import type { PayoutStatus } from '../ledger/store.js';
import type { HandOverReply, HandOverRequest } from './handover-schema.js';
import type { DepositReceipt, PayoutReply, WithdrawalsPage } from './operator-schemas.js';
import type { CheckpointsPage, EventsPage, LeavesPage, PoolNodeState } from './read-schemas.js';
import type { TransferReceipt, TransferRequest } from './transfer-schema.js';
import type { TransitionReceipt, TransitionRequest } from './transition-schema.js';

/** A refusal or failure reported by the pool node, or no reply from it. */
export class PoolNodeError extends Error {
  constructor(
    /** The node's `error` code (`unauthorized`, `duplicate_commitment`, `pool_unavailable`, …), or
     * `pool_unreachable` (no reply), `http_error` (a reply without a code). */
    readonly code: string,
    /** HTTP status; 0 when no reply came. */
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PoolNodeError';
  }
}

export type { Checkpoint, PoolEvent } from '../ledger/store.js';
export type { HandOverReply, HandOverRequest } from './handover-schema.js';
export type { PoolNodeState } from './read-schemas.js';
export type { TransferReceipt, TransferRequest } from './transfer-schema.js';
export type { TransitionReceipt, TransitionRequest } from './transition-schema.js';

/** Options of {@link PoolNodeClient}. */
export interface PoolNodeClientOptions {
  /** The operator token, for deposits. */
  readonly token?: string | undefined;
  /** The fetch to use (default `globalThis.fetch`). */
  readonly fetch?: typeof fetch | undefined;
  /** Per request, ms (default 15000). */
  readonly timeoutMs?: number | undefined;
}

/**
 * A client of one pool node.
 * @example
 * const node = new PoolNodeClient('http://127.0.0.1:4021');
 * const { leaves, next } = await node.leaves(0);
 */
export class PoolNodeClient {
  /** The node's base URL, without a trailing slash. */
  readonly url: string;

  /** @param url the node's base URL, e.g. `http://127.0.0.1:4021` */
  constructor(
    url: string,
    private readonly options: PoolNodeClientOptions = {},
  ) {
    this.url = url.replace(/\/+$/, '');
  }

  private async request<T>(path: string, init: RequestInit = {}): Promise<T> {
    const doFetch = this.options.fetch ?? globalThis.fetch;
    const route = path.split('?', 1)[0];
    let response: Response;
    try {
      response = await doFetch(`${this.url}${path}`, {
        ...init,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
    } catch (error) {
      throw new PoolNodeError(
        'pool_unreachable',
        0,
        `the pool node at ${this.url} is unreachable`,
        { cause: error },
      );
    }
    const body = (await response.json().catch(() => null)) as
      | (T & { error?: unknown; message?: unknown })
      | null;
    if (!response.ok || body === null) {
      const code = typeof body?.error === 'string' ? body.error : 'http_error';
      const message = typeof body?.message === 'string' ? body.message : `HTTP ${response.status}`;
      throw new PoolNodeError(code, response.status, `pool node ${route}: ${message}`);
    }
    return body;
  }

  /** The ledger's head. */
  state(): Promise<PoolNodeState> {
    return this.request('/state');
  }

  /** Checkpoints after a cursor (`limit` default: the node's). */
  checkpoints(after = 0, limit?: number): Promise<CheckpointsPage> {
    return this.request(`/checkpoints?after=${after}${limit ? `&limit=${limit}` : ''}`);
  }

  /** Leaves from an index (`limit` default: the node's). */
  leaves(from = 0, limit?: number): Promise<LeavesPage> {
    return this.request(`/leaves?from=${from}${limit ? `&limit=${limit}` : ''}`);
  }

  /** Events after a cursor (`limit` default: the node's). */
  events(after = 0, limit?: number): Promise<EventsPage> {
    return this.request(`/events?after=${after}${limit ? `&limit=${limit}` : ''}`);
  }

  /** Every leaf up to `size` (or to the end), page by page. */
  async allLeaves(size?: number): Promise<DigestHex[]> {
    const out: DigestHex[] = [];
    for (;;) {
      const page = await this.leaves(out.length);
      out.push(...page.leaves);
      if (page.leaves.length === 0 || (size !== undefined && out.length >= size))
        return size === undefined ? out : out.slice(0, size);
    }
  }

  /**
   * Hands a proof over before a compact payment (`POST /proofs`): the payment fields the proof is
   * bound to, its public inputs and the proof in canonical base64. Send it over a transport of its
   * own (a client built with its own `fetch`), not the one that syncs: the node sees the address
   * it comes from (docs/compact-payments.md, privacy).
   * @returns the reference and when the node drops it (unix seconds)
   * @throws PoolNodeError with the node's reason (`invalid_priv_stark_proof`, `unknown_root`,
   *   `rate_limited`, `proof_store_full`, …)
   */
  handOver(body: HandOverRequest): Promise<HandOverReply> {
    return this.request('/proofs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /**
   * Settles a transfer (`POST /transfers`): a payment statement bound to the pool's transfer
   * context, paying `recipient`. Like a hand-over, send it over a transport of its own.
   * @throws PoolNodeError with the node's reason (`duplicate_settlement`, `unknown_root`,
   *   `expiry_too_far`, `invalid_priv_stark_proof`, `rate_limited`, …)
   */
  transfer(body: TransferRequest): Promise<TransferReceipt> {
    return this.request('/transfers', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /**
   * Applies a merge or split (`POST /transitions`). Like a hand-over, send it over a transport of
   * its own.
   * @throws PoolNodeError with the node's reason (`duplicate_settlement`, `nullifier_already_spent`,
   *   `unknown_root`, `expiry_too_far`, `invalid_priv_stark_proof`, `rate_limited`, …)
   */
  transition(body: TransitionRequest): Promise<TransitionReceipt> {
    return this.request('/transitions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /**
   * Withdrawals after the cursor (an event id), oldest first, with their payout status: what an
   * operator's payout process reads (operator token required).
   */
  withdrawals(after = 0, limit?: number): Promise<WithdrawalsPage> {
    return this.request(`/withdrawals?after=${after}${limit ? `&limit=${limit}` : ''}`, {
      headers: { authorization: `Bearer ${this.options.token ?? ''}` },
    });
  }

  /**
   * Records a payout step of a withdrawal (operator token required): `paying` before paying,
   * then `paid` or `failed` (which refunds the owner with the exit's proven refund note).
   * @throws PoolNodeError `payout_conflict` (out of order), `unknown_withdrawal`, …
   */
  payout(withdrawalId: string, status: PayoutStatus): Promise<PayoutReply> {
    return this.request(`/withdrawals/${withdrawalId}/${status}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.options.token ?? ''}` },
    });
  }

  /** Shields `amount` to the precommitment `pre` (operator token required). */
  deposit(amount: string, pre: string): Promise<DepositReceipt> {
    return this.request('/deposit', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${this.options.token ?? ''}`,
      },
      body: JSON.stringify({ amount, pre }),
    });
  }
}
