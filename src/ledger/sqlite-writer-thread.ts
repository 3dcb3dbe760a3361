/**
 * @module The SQLite store's writer thread as the main thread holds it (`sqlite-writer.ts` is the
 * thread's side).
 */

import { WorkerDiedError, WorkerThreads, workerScript } from '../core/worker-threads.js';
import { PoolUnavailableError, unavailable } from './errors.js';
import type { SqliteWriteChannel, WriterData, WriterJob } from './sqlite-writer-messages.js';

/**
 * The main thread's side of `sqlite-writer.ts`: one thread at normal priority, started on the
 * first write, referenced only while a write is pending (an idle store never keeps the process
 * alive). A write whose thread died is answered `PoolUnavailableError` and never sent again (it may
 * have committed: a retried settlement then reports `duplicate_settlement`); the next write starts
 * a fresh thread.
 */
export class WriterThread implements SqliteWriteChannel {
  private readonly thread: WorkerThreads<WriterJob, unknown>;

  constructor(workerData: WriterData) {
    this.thread = new WorkerThreads({
      script: workerScript(import.meta.url, 'sqlite-writer'),
      workerData,
      size: 1,
    });
  }

  async call<T>(method: WriterJob['method'], args: readonly unknown[]): Promise<T> {
    try {
      return (await this.thread.run({ method, args })) as T;
    } catch (error) {
      if (error instanceof WorkerDiedError)
        throw unavailable(error, 'a write (the writer thread stopped)');
      const message = error instanceof Error ? error.message : 'the pool store failed';
      throw new PoolUnavailableError(message, {
        cause:
          error instanceof Error && error.cause instanceof Error
            ? error.cause
            : new Error('writer thread'),
      });
    }
  }

  close(): Promise<void> {
    return this.thread.close({ farewell: { method: 'close', args: [] } });
  }
}
