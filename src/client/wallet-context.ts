/**
 * @module What every part of a wallet works on: its configuration, its state (the wallet file's
 * contents, changed in place), the local tree, its deposit tickets, the notes a payment being built
 * has chosen, and the write of the state. `Wallet` makes one and hands it to each part — sync
 * (`wallet-sync.ts`), payments (`wallet-payments.ts`), note transitions (`wallet-transitions.ts`) —
 * which are functions or small classes over it, each of one concern.
 */

import type { DigestHex } from '../core/digest.js';
import type { PrivStarkCore } from '../core/facade.js';
import { ownerOf } from '../core/witness.js';
import { PoolNodeClient } from '../pool-node/client.js';
import { DEVNET_NETWORK, type NetworkProfile } from '../scheme/index.js';
import { DepositTickets } from './deposit-tickets.js';
import { minEpochMsOf } from './epoch-minimum.js';
import { handOverFetch } from './handover-fetch.js';
import { PoolTransport } from './pool-transport.js';
import type { WalletState, WalletStore } from './store.js';
import { NoteAges } from './note-age.js';
import { poolEpochMs } from './pool-epoch.js';
import { withoutTraceHeaders } from './trace-headers.js';
import { NoteReservations } from './note-reservations.js';
import { LocalTree } from './tree.js';
import type { WalletOptions } from './wallet-options.js';
import { StateWriter } from './wallet-persistence.js';

/** One wallet's configuration and state, shared by its parts. */
export interface WalletContext {
  readonly core: PrivStarkCore;
  /** The client of the pool node the wallet writes to. */
  readonly poolNode: PoolNodeClient;
  /**
   * Where the wallet reads the public log: the mirror (`WalletOptions.poolMirror`), or the pool
   * node itself.
   */
  readonly pages: PoolNodeClient;
  /** Whether {@link pages} is a mirror (its checkpoints are then confirmed by the pool node). */
  readonly mirrored: boolean;
  /**
   * The pool node's client for hand-overs (and a mirror's checkpoint confirmed): its own transport
   * (see `WalletOptions.handOverFetch`).
   */
  readonly handOverNode: PoolNodeClient;
  /** How writes reach the pool node: relay, proxy or direct (`pool-transport.ts`). */
  readonly poolTransport: PoolTransport;
  readonly network: NetworkProfile;
  readonly owner: DigestHex;
  readonly address: string;
  /** Unix ms. */
  readonly clock: () => number;
  readonly transportPreference: 'merchant' | 'inline';
  readonly store: WalletStore | null;
  /** What the store keeps (the wallet file's contents), changed in place by the parts. */
  readonly state: WalletState;
  /** The wallet's copy of the pool tree, from the public leaves. */
  readonly tree: LocalTree;
  /** Deposit tickets: issuing within the recovery bound, the counters watched in the log. */
  readonly tickets: DepositTickets;
  /**
   * Notes chosen by a payment being built (before its pending record exists), and those a note
   * transition spent until the log shows them spent: the one reservation point (note-reservations.ts).
   */
  readonly reserved: NoteReservations;
  /** The minimum age of notes before they are spent (`WalletOptions.notes`). */
  readonly noteAges: NoteAges;
  /** The shortest epoch grid accepted from the pool node, ms (`WalletOptions.minEpochMs`). */
  readonly minEpochMs: number;
  /** Writes the state to the store (serialised, in call order; a no-op without a store). */
  save(): Promise<void>;
}

/** The context of the wallet `state` (and the leaves it has read) under `options`. */
export function walletContext(
  options: WalletOptions,
  store: WalletStore | null,
  state: WalletState,
  leaves: readonly DigestHex[],
): WalletContext {
  const core = options.core;
  // Reads carry no tracing context either (trace-headers.ts).
  const reads = { fetch: withoutTraceHeaders((input, init) => globalThis.fetch(input, init)) };
  const poolNode =
    typeof options.pool === 'string' ? new PoolNodeClient(options.pool, reads) : options.pool;
  const handOverNode = new PoolNodeClient(poolNode.url, {
    fetch: options.handOverFetch ?? handOverFetch(),
  });
  const mirror =
    typeof options.poolMirror === 'string'
      ? new PoolNodeClient(options.poolMirror, reads)
      : options.poolMirror;
  const owner = ownerOf(core, state.sk);
  const tree = new LocalTree(core);
  tree.append(leaves);
  const writer = new StateWriter(store, state);
  const clock = options.clock ?? Date.now;
  return {
    core,
    poolNode,
    pages: mirror ?? poolNode,
    mirrored: mirror !== undefined,
    handOverNode,
    poolTransport: new PoolTransport({
      poolUrl: poolNode.url,
      mode: options.transport,
      proxy: options.poolProxy,
      fetch: options.handOverFetch,
      onWarning: options.onTransportWarning,
    }),
    network: options.network ?? DEVNET_NETWORK,
    owner,
    address: core.encodeAddress(owner),
    clock,
    transportPreference: options.transportPreference ?? 'merchant',
    store,
    state,
    tree,
    tickets: new DepositTickets(core, owner, state),
    reserved: new NoteReservations(clock),
    noteAges: new NoteAges(options.notes ?? {}, () => poolEpochMs(state), clock),
    minEpochMs: minEpochMsOf(options.minEpochMs),
    save: () => writer.save(),
  };
}
