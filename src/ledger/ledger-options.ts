/**
 * @module What a `Ledger` is built from (its options) and what its health report says: kept apart
 * from the ledger's operations, which are long enough on their own.
 */

import type { EpochGrid } from '../scheme/index.js';
import type { LedgerCore } from './context.js';
import type { PoolStore } from './store.js';

/** Options of `Ledger`. */
export interface LedgerOptions {
  readonly core: LedgerCore;
  readonly store: PoolStore;
  /** The scheme, network and asset this pool accepts (default: the profile's devnet pool). */
  readonly scheme?: string;
  readonly network?: string;
  readonly asset?: string;
  /** Checkpoint cadence, ms (default 2000, `CHECKPOINT_INTERVAL_MS`). */
  readonly checkpointIntervalMs?: number;
  /**
   * The epoch grid checkpoints are stamped on and anchors are aged by (the service's default is
   * `DEFAULT_EPOCH_GRID`: E = 60 s, D = 10 s). Default here: no grid (a checkpoint whenever one
   * is asked for, stamped with the time it was cut).
   */
  readonly epoch?: EpochGrid;
  /** The pool's clock, unix ms (default `Date.now`). */
  readonly clock?: () => number;
  /** Most ops in one group commit (default 512). */
  readonly maxGroup?: number;
  /**
   * The verifier of handed-over proofs (default `core.verifySpend`). Their verdict is kept as the
   * stored proof itself and never asked for again, so a server whose `core.verifySpend` keeps
   * verdicts for a second look (`VerdictCache`: an inline payment's /verify then /settle) passes
   * the verifier behind that cache here, and no hand-over pays for a key nobody reads.
   */
  readonly verifyHandOver?: LedgerCore['verifySpend'];
  /** Errors of the checkpoint timer (the store was unreachable); the timer keeps running. */
  readonly onTimerError?: (error: unknown) => void;
  /** Handed-over proofs the store may hold at once (default 10000, `PROOF_STORE_MAX`). */
  readonly proofStoreCapacity?: number;
  /**
   * How long the proof archive keeps a proof after its event was published, ms (default 30 days,
   * `--proof-retention-days`): whole pages past it are pruned.
   */
  readonly proofRetentionMs?: number;
  /**
   * Parameter sets whose handed-over verdicts still count; a stored proof of another set is an
   * unknown reference. Default: every set the verifier accepted at hand-over.
   */
  readonly acceptedParameterSets?: readonly number[] | undefined;
}

/** The ledger in a health report (priv-stark-v1 §4 `/health`). */
export interface LedgerHealth {
  readonly kind: 'sqlite' | 'postgres';
  readonly ok: boolean;
  /** Leaves in the tree, `null` when the store did not answer. */
  readonly leaves: number | null;
  /** Sequence number of the latest checkpoint. */
  readonly checkpoint: number | null;
}
