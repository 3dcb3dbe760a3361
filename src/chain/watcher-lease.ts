/**
 * @module One deposit watcher at a time over one store: several pool-node instances may share a
 * PostgreSQL database (or a SQLite file), and each runs a watcher, but only the holder of the
 * watcher's lease — a row of the journal's `leases` named `watcher:<source>` — reads, accepts and
 * shields; the others stand by and take it over, with the next epoch, once it expires. So the
 * acceptor key's nonces are used by one instance, and a holder killed with kill -9 is replaced within
 * the lease's time to live plus a poll. The lease is renewed at every poll.
 */

import { randomUUID } from 'node:crypto';

import type { Lease, PayoutJournal } from '../ledger/payout-journal.js';

/** The default time to live: 15 s, renewed at every poll (2 s by default). */
export const WATCHER_LEASE_TTL_MS = 15_000;

/** Whether this instance may act now. */
export interface WatcherLease {
  /** Takes or renews the lease at `now` (unix ms); false while another instance holds it. */
  holds(now: number): Promise<boolean>;
  /** Gives it up at once (a graceful stop). */
  release(): Promise<void>;
}

/** The lease of the watcher of `source`, kept in `journal` (the payout journal's `leases`). */
export function journalLease(
  journal: Pick<PayoutJournal, 'acquireLease' | 'releaseLease'>,
  source: string,
  ttlMs: number = WATCHER_LEASE_TTL_MS,
): WatcherLease {
  const holder = randomUUID();
  let held: Lease | null = null;
  return {
    async holds(now) {
      held = await journal.acquireLease(`watcher:${source}`, holder, now, ttlMs);
      return held !== null;
    },
    async release() {
      if (held) await journal.releaseLease(held).catch(() => undefined);
      held = null;
    },
  };
}
