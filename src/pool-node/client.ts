/**
 * @module The one client of the devnet pool node's HTTP API, for wallets (the head, checkpoints,
 * leaves and events, each by cursor — never one note's path) and for the operator (deposits). It
 * needs nothing but `fetch`, so it runs in Node and in browsers; the transport is replaceable (a
 * custom `fetch`, e.g. through a proxy). Every failure is a {@link PoolNodeError} carrying the
 * node's stable `error` code, or `pool_unreachable` when no reply came.
 */

import type { DigestHex } from '../core/digest.js';
import type { ProofReference } from '../core/facade.js';
import type {
  Checkpoint,
  PayoutStatus,
  PoolEvent,
  StoreState,
  WithdrawalRecord,
} from '../ledger/store.js';

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

/** What `GET /state` returns: the ledger's head and the pool's network and asset. */
export interface PoolNodeState extends StoreState {
  readonly network: string;
  readonly asset: string;
}

/** What `POST /proofs` takes: the payment fields the proof is bound to, its inputs, the proof. */
export interface HandOverRequest {
  readonly scheme: string;
  readonly network: string;
  readonly asset: string;
  readonly payTo: string;
  readonly amount: string;
  /** `""` when the route has none. */
  readonly resourceId: string;
  readonly expiry: number;
  readonly root: string;
  readonly nullifier: string;
  /** The change note. */
  readonly commitment: string;
  /** Canonical standard base64 of the proof bytes. */
  readonly proof: string;
}

/** What `POST /transfers` takes: a `priv-stark/v1` payload's fields with the proof inline. */
export interface TransferRequest {
  readonly scheme: string;
  readonly network: string;
  readonly root: string;
  readonly nullifier: string;
  /** The change note. */
  readonly commitment: string;
  /** Canonical standard base64 of the proof bytes. */
  readonly proof: string;
  readonly amount: string;
  /** The recipient's shielded address. */
  readonly recipient: string;
  readonly expiry: number;
}

/** What `POST /transfers` answers: the settlement id and the leaves of its two notes. */
export interface TransferReceipt {
  readonly transaction: string;
  readonly changeIndex: number;
  readonly recipientIndex: number;
}

/**
 * What `POST /transitions` takes: a merge, split or exit's public inputs (with `exit` and
 * `destination` for an exit only), its expiry and the proof inline.
 */
export interface TransitionRequest {
  readonly scheme: string;
  readonly network: string;
  readonly root: string;
  readonly nullifiers: readonly [string, string];
  readonly outputs: readonly [string, string];
  /** The masked output values, two field elements in decimal. */
  readonly memo: readonly [string, string];
  /** The exit's refund note (a note of 0 for a merge or split). */
  readonly refund: string;
  /** Decimal amount leaving the pool; absent or `"0"` for a merge or split. */
  readonly exit?: string;
  /** An exit's destination (CAIP-10); only with `exit`. */
  readonly destination?: string;
  readonly expiry: number;
  /** Canonical standard base64 of the proof bytes. */
  readonly proof: string;
}

/** What `POST /transitions` answers: the transition id and the leaves of its two outputs. */
export interface TransitionReceipt {
  readonly transaction: string;
  readonly outputIndexes: readonly [number, number];
}

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
  checkpoints(after = 0, limit?: number): Promise<{ checkpoints: Checkpoint[]; next: number }> {
    return this.request(`/checkpoints?after=${after}${limit ? `&limit=${limit}` : ''}`);
  }

  /** Leaves from an index (`limit` default: the node's). */
  leaves(from = 0, limit?: number): Promise<{ from: number; leaves: DigestHex[]; next: number }> {
    return this.request(`/leaves?from=${from}${limit ? `&limit=${limit}` : ''}`);
  }

  /** Events after a cursor (`limit` default: the node's). */
  events(after = 0, limit?: number): Promise<{ events: PoolEvent[]; next: number }> {
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
  handOver(body: HandOverRequest): Promise<{ reference: ProofReference; expires: number }> {
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
  withdrawals(
    after = 0,
    limit?: number,
  ): Promise<{ withdrawals: WithdrawalRecord[]; next: number }> {
    return this.request(`/withdrawals?after=${after}${limit ? `&limit=${limit}` : ''}`, {
      headers: { authorization: `Bearer ${this.options.token ?? ''}` },
    });
  }

  /**
   * Records a payout step of a withdrawal (operator token required): `paying` before paying,
   * then `paid` or `failed` (which refunds the owner with the exit's proven refund note).
   * @throws PoolNodeError `payout_conflict` (out of order), `unknown_withdrawal`, …
   */
  payout(
    withdrawalId: string,
    status: PayoutStatus,
  ): Promise<{ withdrawalId: string; status: PayoutStatus; refundIndex?: number }> {
    return this.request(`/withdrawals/${withdrawalId}/${status}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.options.token ?? ''}` },
    });
  }

  /** Shields `amount` to the precommitment `pre` (operator token required). */
  deposit(
    amount: string,
    pre: string,
  ): Promise<{ commitment: DigestHex; index: number; eventId: number }> {
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
