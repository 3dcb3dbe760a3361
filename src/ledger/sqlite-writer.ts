/**
 * @module The writer thread of the SQLite store: a worker that owns a connection of its own and
 * runs the store's writes (`apply`, `checkpoint`, the prunes, the log digests) for the main
 * thread. better-sqlite3 is synchronous, so a commit — its fsync included — would otherwise stop
 * the main thread's event loop; here it stops only this thread, and the main thread keeps
 * verifying and queueing the next group meanwhile. Durability is unchanged: a write resolves on
 * the main thread only after this thread's commit returned.
 */

import { parentPort, workerData } from 'node:worker_threads';

import { loadBackend, loadCore } from '../core/index.js';
import { serveJobs } from '../core/worker-threads.js';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';
import type { WriterData, WriterJob } from './sqlite-writer-messages.js';
import type { PoolStore } from './store.js';

const data = workerData as WriterData;

let store: PoolStore | null = null;
let failure: Error | null = null;
try {
  const core = data.backend ? await loadBackend(data.backend) : await loadCore();
  store = await openSqliteStore({
    tree: core,
    path: data.path,
    busyTimeoutMs: data.busyTimeoutMs,
    writer: 'inline',
    migrate: false,
  });
} catch (error) {
  failure = error instanceof Error ? error : new Error(String(error));
}

serveJobs<WriterJob>(async ({ method, args }) => {
  if (method === 'close') {
    await store?.close();
    return null;
  }
  if (!store) {
    // Could not open: report it and stop, so the next write starts a fresh thread.
    setImmediate(() => parentPort?.close());
    throw new Error('the pool store failed during open', { cause: failure });
  }
  switch (method) {
    case 'applyTimed':
      return (store as SqliteStore).applyTimed(
        args[0] as Parameters<PoolStore['apply']>[0],
        args[1] as number,
      );
    case 'apply':
      return store.apply(args[0] as Parameters<PoolStore['apply']>[0], args[1] as number);
    case 'checkpoint':
      return store.checkpoint(args[0] as number, args[1] as number, args[2] as number | undefined);
    case 'pruneProofs':
      return store.pruneProofs(args[0] as number);
    case 'pruneArchive':
      return store.pruneArchive(args[0] as number, args[1] as number);
    case 'recordLogDigests':
      return store.recordLogDigests(args[0] as Parameters<PoolStore['recordLogDigests']>[0]);
  }
});
