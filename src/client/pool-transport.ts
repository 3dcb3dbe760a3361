/**
 * @module How the wallet's writes reach the pool node without showing it the payer's network
 * address (docs/privacy.md, "Transports"). A hand-over goes, in order: to the merchant's relay
 * (only one on the origin being paid: `merchant-relay.ts`), inline in the payment when the merchant
 * takes it (no hand-over at all), through a configured proxy (`poolProxy`, the standard
 * `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` with `NO_PROXY`, or the caller's own
 * `handOverFetch`), and last directly, with a warning once per merchant origin
 * (`onTransportWarning`). Transfers and transitions (exits included) go through the proxy or
 * directly with the same warning, and so do a chain pool's relayed deposits and reclaims. In
 * `private-only` mode the direct path is refused instead
 * ({@link NoPrivateTransportError}). Proxies are Node's: their module loads only when a write runs
 * in Node, so nothing here reaches a page.
 */

import { PoolNodeClient } from '../pool-node/client.js';
import { WalletError } from './errors.js';

/** `private-first` (default): the private transports first, then directly with a warning. */
export type TransportMode = 'private-first' | 'private-only';

/**
 * The writes to the pool node that can show the payer's address: a deposit or a reclaim through
 * the pool's relayer (and the chain facts read before it) name the depositing account beside it.
 */
export type PoolWrite = 'hand-over' | 'transfer' | 'transition' | 'deposit' | 'reclaim';

/** Said once per origin when a write goes directly to the pool node. */
export interface TransportWarning {
  readonly code: 'direct_to_pool';
  readonly write: PoolWrite;
  /** The merchant's origin for a hand-over; the pool node's for a transfer or a transition. */
  readonly origin: string;
  readonly message: string;
}

/** The remedies named when no private transport is at hand. */
const REMEDIES =
  "pay a merchant that mounts the relay or takes inline payments, or set a proxy (--pool-proxy / poolProxy, HTTPS_PROXY or ALL_PROXY, e.g. Tor's socks5h://127.0.0.1:9050), or use --transport private-first to accept the direct path";

/**
 * `private-only` and no private transport for this write: nothing went to the pool node from here
 * (only a relay that gave no clear answer may have passed it on: `relayMayHoldIt`).
 */
export class NoPrivateTransportError extends WalletError {
  constructor(
    readonly write: PoolWrite,
    /** A merchant's relay gave no clear answer first: the pool node may hold the proof. */
    readonly relayMayHoldIt = false,
  ) {
    super(
      'no_private_transport',
      `no private transport for this ${write}: it would show the pool operator this machine's address; ${REMEDIES}`,
    );
    this.name = 'NoPrivateTransportError';
  }
}

/** What {@link PoolTransport} is made with (from `WalletOptions`). */
export interface PoolTransportOptions {
  /** The pool node's base URL. */
  readonly poolUrl: string;
  readonly mode?: TransportMode | undefined;
  /** A proxy URL for writes (`http://`, `https://`, `socks5://`, `socks5h://`); Node only. */
  readonly proxy?: string | undefined;
  /** The caller's own transport for writes (a proxy or Tor it set up): private by its word. */
  readonly fetch?: typeof fetch | undefined;
  readonly onWarning?: ((warning: TransportWarning) => void) | undefined;
}

/** Whether this runs in Node (where proxies are at hand). */
function inNode(): boolean {
  return (
    (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node !==
    undefined
  );
}

/** Whether the process installed a global dispatcher of its own for `fetch` (undici's symbol). */
function globalDispatcherSet(): boolean {
  return Symbol.for('undici.globalDispatcher.1') in globalThis;
}

/** The wallet's way to the pool node for writes. */
export class PoolTransport {
  readonly mode: TransportMode;
  private readonly warned = new Set<string>();

  constructor(private readonly options: PoolTransportOptions) {
    this.mode = options.mode ?? 'private-first';
  }

  /**
   * A private way to `url` (default: the pool node's) — a proxy, or for the pool node the caller's
   * own fetch — or `null`.
   */
  async privateFetch(url: string = this.options.poolUrl): Promise<typeof fetch | null> {
    if (this.options.fetch && url === this.options.poolUrl) return this.options.fetch;
    if (!inNode()) return null;
    const { connectionFetch, proxyFor } = await import('./node-connection.js');
    const proxy = proxyFor(new URL(url), this.options.proxy);
    return proxy === null ? null : connectionFetch(proxy);
  }

  /**
   * The `fetch` of one write: the private one, else — unless `private-only` — the direct one, with
   * the warning said once for `origin` (default: the pool node's).
   * @throws NoPrivateTransportError in `private-only` mode without a private transport
   */
  async writeFetch(write: PoolWrite, origin?: string): Promise<typeof fetch> {
    const found = await this.privateFetch();
    if (found !== null) return found;
    if (this.mode === 'private-only') throw new NoPrivateTransportError(write);
    this.warnOnce(write, origin ?? new URL(this.options.poolUrl).origin);
    return this.directFetch();
  }

  /** A client of the pool node for one write, over {@link writeFetch}'s transport. */
  async node(write: PoolWrite, origin?: string): Promise<PoolNodeClient> {
    return new PoolNodeClient(this.options.poolUrl, {
      fetch: await this.writeFetch(write, origin),
    });
  }

  /**
   * Directly: in Node a connection of its own (the sync's keep-alive connection is never shared),
   * unless the process set a global dispatcher (a proxy of its own), which `fetch` honours; in
   * browsers the page's `fetch`.
   */
  private async directFetch(): Promise<typeof fetch> {
    if (!inNode() || globalDispatcherSet()) return (input, init) => globalThis.fetch(input, init);
    const { connectionFetch } = await import('./node-connection.js');
    return connectionFetch(null);
  }

  private warnOnce(write: PoolWrite, origin: string): void {
    if (this.warned.has(origin)) return;
    this.warned.add(origin);
    this.options.onWarning?.({
      code: 'direct_to_pool',
      write,
      origin,
      message: `a ${write} for ${origin} went directly to the pool node: its operator sees this machine's network address beside it; ${REMEDIES}`,
    });
  }
}
