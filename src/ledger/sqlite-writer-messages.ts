/**
 * @module What the SQLite store's main thread and its writer thread (`sqlite-writer.ts`) pass each
 * other. Kept apart so that the store names the messages without importing the worker's script,
 * which itself opens a store.
 */

import type { Backend } from '../core/index.js';
import type { CommitTiming } from './commit-stats.js';
import type { StoreOpResult } from './store.js';

/** What the main thread passes when it starts the writer. */
export interface WriterData {
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly backend: Backend | undefined;
}

/**
 * Where a store's writes run when not on a thread of its own: the primary process's writer, for a
 * worker of `priv-stark start --workers N` (`src/service/workers.ts`). `call` runs one write
 * (`apply`, `checkpoint`, …) and resolves with its result only after that write's commit returned;
 * it rejects with `PoolUnavailableError` when the write's outcome cannot be known.
 */
export interface SqliteWriteChannel {
  call<T>(method: Exclude<WriterJob['method'], 'close'>, args: readonly unknown[]): Promise<T>;
  close(): Promise<void>;
}

/** A call from the main thread (`close` is the farewell before the thread is stopped). */
export interface WriterJob {
  readonly method:
    | 'apply'
    | 'applyTimed'
    | 'checkpoint'
    | 'pruneProofs'
    | 'pruneArchive'
    | 'recordLogDigests'
    | 'close';
  readonly args: readonly unknown[];
}

/** What the writer thread answers an `applyTimed`: the results, and its commit's timing. */
export interface TimedApply {
  readonly results: StoreOpResult[];
  readonly timing: CommitTiming;
}
