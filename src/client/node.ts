/**
 * @module What a wallet reads from the devnet pool node: the head, leaves, events and checkpoints,
 * each by cursor (never one note's path). The wallet keeps its own reader so that it depends only
 * on the node's public HTTP API, not on the pool's code.
 */

import type { DigestHex } from '../core/index.js';

/** A published anchor. */
export interface NodeCheckpoint {
  readonly seq: number;
  readonly root: DigestHex;
  readonly size: number;
  /** Unix ms, the pool's clock. */
  readonly time: number;
}

/** One entry of the public log. */
export type NodeEvent =
  | { readonly id: number; readonly kind: 'deposit'; readonly time: number; readonly amount: string; readonly commitment: DigestHex; readonly index: number }
  | {
      readonly id: number;
      readonly kind: 'settlement';
      readonly time: number;
      readonly amount: string;
      readonly settlementId: string;
      readonly nullifier: DigestHex;
      readonly change: DigestHex;
      readonly changeIndex: number;
      readonly recipient: string;
      readonly recipientNote: DigestHex;
      readonly recipientIndex: number;
    };

/** `GET /state`. */
export interface NodeState {
  readonly network: string;
  readonly asset: string;
  readonly size: number;
  readonly root: DigestHex;
  readonly events: number;
  readonly checkpoint: NodeCheckpoint | null;
}

/** A failed read from the pool node. */
export class PoolNodeReadError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PoolNodeReadError';
  }
}

/** Reads the pool node's public routes. */
export class PoolNodeReader {
  readonly url: string;

  /**
   * @param url the node's base URL, e.g. `http://127.0.0.1:4021`
   * @param options.fetch the fetch to use (default `globalThis.fetch`)
   */
  constructor(
    url: string,
    private readonly options: { fetch?: typeof fetch; timeoutMs?: number } = {},
  ) {
    this.url = url.replace(/\/+$/, '');
  }

  private async get<T>(path: string): Promise<T> {
    const doFetch = this.options.fetch ?? globalThis.fetch;
    let response: Response;
    try {
      response = await doFetch(`${this.url}${path}`, { signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000) });
    } catch (error) {
      throw new PoolNodeReadError(0, 'pool_unreachable', `the pool node at ${this.url} is unreachable`, { cause: error });
    }
    const body = (await response.json().catch(() => null)) as (T & { error?: string; message?: string }) | null;
    if (!response.ok || body === null) {
      throw new PoolNodeReadError(response.status, body?.error ?? 'http_error', `pool node ${path.split('?')[0]}: ${body?.message ?? `HTTP ${response.status}`}`);
    }
    return body;
  }

  state(): Promise<NodeState> {
    return this.get('/state');
  }

  leaves(from: number, limit = 4096): Promise<{ leaves: DigestHex[]; next: number }> {
    return this.get(`/leaves?from=${from}&limit=${limit}`);
  }

  events(after: number, limit = 1000): Promise<{ events: NodeEvent[]; next: number }> {
    return this.get(`/events?after=${after}&limit=${limit}`);
  }

  checkpoints(after: number, limit = 1000): Promise<{ checkpoints: NodeCheckpoint[]; next: number }> {
    return this.get(`/checkpoints?after=${after}&limit=${limit}`);
  }
}
