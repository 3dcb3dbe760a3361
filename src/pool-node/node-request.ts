/**
 * @module One request to the devnet pool node, as both of its clients make it (the wallet's and
 * the operator's): `fetch` only, so it runs in Node and in browsers; the transport is replaceable
 * (a custom `fetch`, e.g. through a proxy). Every failure is a {@link PoolNodeError} carrying the
 * node's stable `error` code, or `pool_unreachable` when no reply came.
 */

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

/** How a client reaches the node. */
export interface PoolNodeConnectionOptions {
  /** The fetch to use (default `globalThis.fetch`). */
  readonly fetch?: typeof fetch | undefined;
  /** Per request, ms (default 15000). */
  readonly timeoutMs?: number | undefined;
}

/** The node at one base URL, asked one JSON request at a time. */
export class PoolNodeConnection {
  /** The node's base URL, without a trailing slash. */
  readonly url: string;

  /** @param url the node's base URL, e.g. `http://127.0.0.1:4021` */
  constructor(
    url: string,
    private readonly options: PoolNodeConnectionOptions = {},
  ) {
    this.url = url.replace(/\/+$/, '');
  }

  /**
   * The JSON reply to `path` (with its query) under `init`.
   * @throws PoolNodeError for a refusal, a reply that is not JSON, or no reply
   */
  async request<T>(path: string, init: RequestInit = {}): Promise<T> {
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
}

/** The query of a page: its cursor, and its `limit` when one is asked (default: the node's). */
export function pageQuery(cursor: 'after' | 'from', at: number, limit?: number): string {
  return `?${cursor}=${at}${limit ? `&limit=${limit}` : ''}`;
}
