/**
 * @module What the SQLite store's main thread and its writer thread (`sqlite-writer.ts`) pass each
 * other. Kept apart so that the store names the messages without importing the worker's script,
 * which itself opens a store.
 */

import type { Backend } from '../core/index.js';

/** What the main thread passes when it starts the writer. */
export interface WriterData {
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly backend: Backend | undefined;
}

/** A call from the main thread (`close` is the farewell before the thread is stopped). */
export interface WriterJob {
  readonly method:
    | 'apply'
    | 'checkpoint'
    | 'pruneProofs'
    | 'pruneArchive'
    | 'recordLogDigests'
    | 'close';
  readonly args: readonly unknown[];
}
