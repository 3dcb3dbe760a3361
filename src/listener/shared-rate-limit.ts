/**
 * @module A `@fastify/rate-limit` store whose counters live elsewhere — in the primary process of
 * `priv-stark start --workers N` — so that every worker counts against the same window: a client
 * sending limit + 1 requests in one window is refused whichever workers its requests reach. Each
 * route limited on its own (a route's `config.rateLimit`) gets a namespace of its own, as the
 * plugin's in-memory store gives it a map of its own.
 */

/** One count: the request number in the window and the ms left of it. */
export interface WindowCount {
  readonly current: number;
  readonly ttl: number;
}

/** Counts a request of `key` in `namespace`'s fixed window of `timeWindowMs`. */
export type CountRequest = (
  namespace: string,
  key: string,
  timeWindowMs: number,
) => Promise<WindowCount>;

/** The store interface `@fastify/rate-limit` calls. */
export interface RateLimitStore {
  incr(
    key: string,
    callback: (error: Error | null, result?: WindowCount) => void,
    timeWindow: number,
    max: number,
  ): void;
  child(routeOptions: unknown): RateLimitStore;
}

/** What the plugin constructs a store from. */
export type RateLimitStoreClass = new (options: unknown) => RateLimitStore;

/** The route a child store is for, as the plugin passes it (`routeInfo`), or its `groupId`. */
function routeNamespace(routeOptions: unknown): string {
  const options = (routeOptions ?? {}) as {
    groupId?: unknown;
    routeInfo?: { method?: unknown; url?: unknown };
  };
  if (typeof options.groupId === 'string') return `group:${options.groupId}`;
  const method = options.routeInfo?.method;
  const url = options.routeInfo?.url;
  return `${Array.isArray(method) ? method.join(',') : String(method ?? '')} ${String(url ?? '')}`;
}

/**
 * A store class counting through `count`, under `namespace` (one per listener and plugin
 * registration). A failed count fails the request with `count`'s error (the listener's error
 * replies map it): a limit that cannot be checked is not skipped.
 * @example
 * await app.register(rateLimit, { store: sharedRateLimitStore(count, 'facilitator') });
 */
export function sharedRateLimitStore(count: CountRequest, namespace: string): RateLimitStoreClass {
  class SharedRateLimitStore implements RateLimitStore {
    constructor(
      _options?: unknown,
      private readonly scope: string = namespace,
    ) {}

    incr(
      key: string,
      callback: (error: Error | null, result?: WindowCount) => void,
      timeWindow: number,
    ): void {
      count(this.scope, key, timeWindow).then(
        (result) => callback(null, result),
        (error: unknown) =>
          callback(error instanceof Error ? error : new Error('the rate-limit count failed')),
      );
    }

    child(routeOptions: unknown): RateLimitStore {
      return new SharedRateLimitStore(undefined, `${this.scope}|${routeNamespace(routeOptions)}`);
    }
  }
  return SharedRateLimitStore;
}
