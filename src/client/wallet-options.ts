/**
 * @module What a wallet is made with: {@link WalletOptions} for `Wallet.create` and `Wallet.open`,
 * and what `Wallet.create` takes besides ({@link CreateWalletOptions}).
 */

import type { DigestHex } from '../core/digest.js';
import type { PrivStarkCore } from '../core/facade.js';
import type { NetworkProfile } from '../scheme/index.js';
import type { PoolNodeClient } from '../pool-node/client.js';
import type { TransportMode, TransportWarning } from './pool-transport.js';
import type { NoteAgeOptions } from './note-age.js';
import type { WalletStore } from './store.js';

/** Options shared by {@link Wallet.create} and {@link Wallet.open}. */
export interface WalletOptions {
  readonly core: PrivStarkCore;
  /** The pool node's base URL (or a client of it): where the wallet writes, and reads by default. */
  readonly pool: string | PoolNodeClient;
  /**
   * A mirror of the pool node's public log (or a client of it) — any HTTP cache in front of the
   * node, or a copy of its pages: the wallet reads the head and the fixed pages there, so the
   * node sees no sync, and writes to {@link pool} as before. The checkpoint it anchors to is
   * confirmed against the pool node's own checkpoints page, and its leaves against that root: a
   * stale mirror leaves the wallet behind, a forged page fails the sync with `PoolMismatchError`
   * (docs/client.md, "Mirrors").
   */
  readonly poolMirror?: string | PoolNodeClient | undefined;
  /**
   * Where the wallet keeps itself: a {@link WalletStore} (`IndexedDbWalletStore` in browsers,
   * `MemoryWalletStore`), or in Node a file path (mode 0600). With neither, it lives in memory and
   * nothing is written.
   */
  readonly store?: WalletStore | undefined;
  /** Node: the wallet file (a `FileWalletStore`); ignored when `store` is given. */
  readonly path?: string | undefined;
  /** The pool's network (default the devnet pool). */
  readonly network?: NetworkProfile | undefined;
  /** Unix ms (default `Date.now`). */
  readonly clock?: (() => number) | undefined;
  /**
   * How proofs are handed over to the pool node for compact payments: a `fetch` of their own —
   * through a proxy or Tor, say — so the hand-over never shares the sync's connection (default: in
   * Node a fresh connection per hand-over; in browsers the page's `fetch`).
   */
  readonly handOverFetch?: typeof fetch | undefined;
  /**
   * Which transport to use when the merchant offers several: `merchant` (its order, default) or
   * `inline` (browser wallets: a hand-over shows the payer's address to the operator; docs/
   * compact-payments.md).
   */
  readonly transportPreference?: 'merchant' | 'inline' | undefined;
  /**
   * How writes reach the pool node (docs/privacy.md, "Transports"): `private-first` (default) —
   * the merchant's relay, inline, a proxy, then directly with a warning — or `private-only`, which
   * refuses the direct path (`NoPrivateTransportError`, `no_private_transport`).
   */
  readonly transport?: TransportMode | undefined;
  /**
   * Node: the proxy of writes to the pool node (`http://`, `https://`, `socks5://` or `socks5h://`;
   * a SOCKS proxy gets fresh credentials per write, Tor's stream isolation). Without it the
   * environment's `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` (with `NO_PROXY`) apply.
   */
  readonly poolProxy?: string | undefined;
  /** Told once per merchant origin (or the pool's) when a write went directly to the pool node. */
  readonly onTransportWarning?: ((warning: TransportWarning) => void) | undefined;
  /**
   * The minimum age of a note before the wallet spends it (default: two of the pool's epochs plus
   * an exponential delay with mean one epoch; none while the pool publishes no epoch), or
   * `{ spendNow: true }` to spend younger notes, with a warning (docs/privacy.md, "Notes"), and
   * `{ spendShown: true }` to spend a note a payment that did not settle showed without
   * refreshing it first, with a warning (the leak its linkage twin measures; never a default).
   */
  readonly notes?: NoteAgeOptions | undefined;
  /**
   * The shortest epoch grid the wallet accepts from its pool node, ms (default 10 000; in Node
   * `PRIV_STARK_MIN_EPOCH_MS`): a pool advertising a finer one — 1 ms is no grid — is refused with
   * `pool_epoch_too_short`, as its anchors would single the wallet out. Set 1 for a test or devnet
   * pool run without a grid (docs/privacy.md, "Anchors and sync").
   */
  readonly minEpochMs?: number | undefined;
}

/** Options of {@link Wallet.create} besides {@link WalletOptions}. */
export interface CreateWalletOptions extends WalletOptions {
  /** The key to restore (default: a fresh one); the next {@link Wallet.sync} fills the wallet. */
  readonly sk?: DigestHex | undefined;
  /**
   * The recovery bound `N` (default {@link DEPOSIT_GAP}): at most `N` deposit tickets open at once,
   * and a restored key watches `N` counters past those found. Every wallet of one key must use the
   * same bound: a restore with a smaller one can miss notes (docs/client.md, "Recovery").
   */
  readonly recoveryBound?: number | undefined;
}
