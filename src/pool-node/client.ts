/**
 * @module A small client of the devnet pool node's HTTP API (wallets' sync and the operator's
 * deposits). Errors carry the node's stable `error` code.
 */

import type { Checkpoint, PoolEvent } from '../ledger/store.js';
import type { DigestHex } from '../core/index.js';

/** A refusal or failure reported by the pool node. */
export class PoolNodeError extends Error {
  constructor(
    /** The node's `error` code (`unauthorized`, `duplicate_commitment`, `pool_unavailable`, …). */
    readonly code: string,
    /** HTTP status. */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PoolNodeError';
  }
}

/** What `GET /state` returns. */
export interface PoolNodeState {
  readonly network: string;
  readonly asset: string;
  readonly size: number;
  readonly root: DigestHex;
  readonly events: number;
  readonly depositTotal: string;
  readonly checkpoint: Checkpoint | null;
}

/** A client of one pool node. */
export class PoolNodeClient {
  private readonly base: string;

  /**
   * @param url the node's base URL, e.g. `http://127.0.0.1:4021`
   * @param options.token the operator token, for deposits
   * @param options.timeoutMs per request (default 10000)
   */
  constructor(
    url: string,
    private readonly options: { token?: string; timeoutMs?: number } = {},
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  private async request<T>(path: string, init: RequestInit = {}): Promise<T> {
    const response = await fetch(`${this.base}${path}`, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000) });
    const body = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
    if (!response.ok) {
      throw new PoolNodeError(body.error ?? 'http_error', response.status, body.message ?? `HTTP ${response.status}`);
    }
    return body as T;
  }

  /** The ledger head. */
  state(): Promise<PoolNodeState> {
    return this.request('/state');
  }

  /** Checkpoints after a cursor. */
  checkpoints(after = 0, limit?: number): Promise<{ checkpoints: Checkpoint[]; next: number }> {
    return this.request(`/checkpoints?after=${after}${limit ? `&limit=${limit}` : ''}`);
  }

  /** Leaves from an index. */
  leaves(from = 0, limit?: number): Promise<{ from: number; leaves: DigestHex[]; next: number }> {
    return this.request(`/leaves?from=${from}${limit ? `&limit=${limit}` : ''}`);
  }

  /** Events after a cursor. */
  events(after = 0, limit?: number): Promise<{ events: PoolEvent[]; next: number }> {
    return this.request(`/events?after=${after}${limit ? `&limit=${limit}` : ''}`);
  }

  /** Every leaf up to `size` (or to the end), page by page. */
  async allLeaves(size?: number): Promise<DigestHex[]> {
    const out: DigestHex[] = [];
    for (;;) {
      const page = await this.leaves(out.length);
      out.push(...page.leaves);
      if (page.leaves.length === 0 || (size !== undefined && out.length >= size)) return size === undefined ? out : out.slice(0, size);
    }
  }

  /** Shields `amount` to the precommitment `pre` (operator token required). */
  deposit(amount: string, pre: string): Promise<{ commitment: DigestHex; index: number; eventId: number }> {
    return this.request('/deposit', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.token ?? ''}` },
      body: JSON.stringify({ amount, pre }),
    });
  }
}
