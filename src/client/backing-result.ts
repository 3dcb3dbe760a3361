/**
 * @module What one background backing check (`backing-schedule.ts`) ends with: a report or a
 * failure with a stable code. Apart from the schedule, so that `Wallet` reads it without importing
 * the schedule (which imports the follower, which names the wallet).
 */

import type { BackingReport } from './chain-backing.js';

/** Why a check did not complete: the RPC's read failed, or the pool node's (or its mirror's). */
export type BackingCheckFailure = 'backing_rpc_failed' | 'backing_pool_failed';

/** One background check's outcome. */
export type BackingCheckResult =
  | {
      readonly kind: 'report';
      /** Unix ms when it ended. */
      readonly at: number;
      /** The report's `ok`: the wallet's tree gives the attested root. */
      readonly ok: boolean;
      readonly report: BackingReport;
    }
  | {
      readonly kind: 'failed';
      readonly at: number;
      readonly ok: false;
      readonly code: BackingCheckFailure;
      /** The failure's first line (the next slot retries). */
      readonly message: string;
    };
