/**
 * @module The deposit watcher's health, computed from what its last polls saw: `ok`; `lagging`
 * when the last poll failed (the RPC down or answering badly), when it has not caught up with the
 * chain's head for longer than allowed, or when the head the RPC serves is older than allowed (the
 * RPC itself behind); `reorg_beyond_depth` once a block it shielded from was replaced (for good:
 * shielding stays stopped until the operator restarts it). Payments never depend on it.
 */

import type {
  DepositSourceState,
  DepositSourceStatus,
  GasKeyStatus,
} from '../pool-node/deposit-source.js';

/** What the watcher knows after its polls. */
export interface WatcherObservations {
  readonly chainId: number;
  readonly escrow: string;
  readonly token: string;
  readonly finality: string;
  /** The head and its timestamp (unix seconds) as last read, the last final block. */
  readonly head: number | null;
  readonly headTimestamp: number | null;
  readonly final: number | null;
  /** The cursor: the last block read. */
  readonly scanned: number;
  /** Unix ms: when the watcher started, when it last read up to the head. */
  readonly startedAt: number;
  readonly caughtUpAt: number | null;
  /** Polls done, and the last one's failure code. */
  readonly polls: number;
  readonly error: string | null;
  readonly beyondDepth: boolean;
  readonly deposits: Readonly<Record<string, number>>;
  readonly reorgs: number;
  readonly active: boolean;
  readonly keys: readonly GasKeyStatus[];
}

/** How much lag is tolerated before `lagging`. */
export interface LagLimits {
  /** Not caught up with the head for longer than this (ms). */
  readonly maxLagMs: number;
  /** The head older than this (ms); `null`: not checked (a local node mines on demand). */
  readonly staleHeadMs: number | null;
}

/** The status the observations give at `now` (unix ms). */
export function watcherStatus(
  seen: WatcherObservations,
  limits: LagLimits,
  now: number,
): DepositSourceStatus {
  const sinceCaughtUp = Math.max(0, now - (seen.caughtUpAt ?? seen.startedAt));
  const headAge = seen.headTimestamp === null ? 0 : Math.max(0, now - seen.headTimestamp * 1000);
  const stale = limits.staleHeadMs !== null && headAge > limits.staleHeadMs;
  const lagMs = Math.max(sinceCaughtUp, stale ? headAge : 0);
  let status: DepositSourceState;
  if (seen.beyondDepth) status = 'reorg_beyond_depth';
  else if (seen.polls === 0 && seen.error === null) status = 'starting';
  else if (seen.error !== null || stale || sinceCaughtUp > limits.maxLagMs) status = 'lagging';
  else status = 'ok';
  return {
    status,
    chainId: seen.chainId,
    escrow: seen.escrow,
    token: seen.token,
    finality: seen.finality,
    head: seen.head,
    scanned: seen.scanned,
    final: seen.final,
    lagBlocks: seen.head === null ? 0 : Math.max(0, seen.head - seen.scanned),
    lagSeconds: Math.floor(lagMs / 1000),
    error: seen.error,
    deposits: seen.deposits,
    reorgs: seen.reorgs,
    active: seen.active,
    keys: seen.keys,
  };
}
