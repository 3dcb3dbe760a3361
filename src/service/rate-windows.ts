/**
 * @module The rate-limit counters of `priv-stark start --workers N`, kept in the primary process
 * for every worker (`src/listener/shared-rate-limit.ts` is the workers' side): fixed windows, as
 * `@fastify/rate-limit`'s in-memory store counts them, by one clock. Bounded: past `maxKeys`
 * the expired windows are dropped, then the oldest — as the plugin's own store drops its least
 * recently used.
 */

import type { WindowCount } from '../listener/shared-rate-limit.js';

interface Window {
  count: number;
  endsAt: number;
}

/** Counters of fixed windows per namespace and key. */
export class RateWindows {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `key` in `namespace` and returns its number in the window. */
  count(namespace: string, key: string, timeWindowMs: number): WindowCount {
    const at = this.now();
    const id = `${namespace}\u0000${key}`;
    let window = this.windows.get(id);
    if (!window || window.endsAt <= at) {
      window = { count: 0, endsAt: at + timeWindowMs };
      this.windows.delete(id);
      if (this.windows.size >= this.maxKeys) this.shrink(at);
      this.windows.set(id, window);
    }
    window.count += 1;
    return { current: window.count, ttl: Math.max(0, window.endsAt - at) };
  }

  /** Keys counted now. */
  get size(): number {
    return this.windows.size;
  }

  private shrink(at: number): void {
    for (const [id, window] of this.windows) if (window.endsAt <= at) this.windows.delete(id);
    // Still full: the oldest windows go first (a window is inserted when it starts).
    for (const id of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(id);
    }
  }
}
