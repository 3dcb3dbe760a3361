/**
 * @module Opens the configured store: PostgreSQL when a `DATABASE_URL` is given, otherwise the
 * embedded SQLite file in the data directory (`./data` by default). Switch to PostgreSQL when
 * more than one machine (or container) must share the pool; several processes on one machine can
 * share the SQLite file.
 */

import { openPostgresStore } from './postgres-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { SqliteWriteChannel } from './sqlite-writer-messages.js';
import type { PoolStore, TreeHasher } from './store.js';

/** Where the ledger lives. */
export interface StoreConfig {
  /** PostgreSQL connection string; wins over `dataDir`. */
  readonly databaseUrl?: string | undefined;
  /** Directory of the SQLite file (default `./data`). */
  readonly dataDir?: string | undefined;
  /** SQLite: how long a writer waits for another process's lock, ms. */
  readonly busyTimeoutMs?: number | undefined;
  /**
   * SQLite: writes go to another process's writer instead of a thread of this one (a worker of
   * `priv-stark start --workers N`).
   */
  readonly sqliteWriter?: SqliteWriteChannel | undefined;
  /** PostgreSQL: connections in the pool. */
  readonly maxConnections?: number | undefined;
  /** PostgreSQL: idle connection errors (server restarts), which never crash the process. */
  readonly onIdleError?: ((error: Error) => void) | undefined;
}

/** The store a configuration names, from the environment's conventions (`DATABASE_URL`, `DATA_DIR`). */
export function storeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  return { databaseUrl: env.DATABASE_URL || undefined, dataDir: env.DATA_DIR || undefined };
}

/**
 * Opens and migrates the configured store.
 * @throws PoolUnavailableError when it cannot be opened
 * @example
 * const store = await openStore(core, { dataDir: './data' });
 */
export async function openStore(tree: TreeHasher, config: StoreConfig = {}): Promise<PoolStore> {
  if (config.databaseUrl) {
    return openPostgresStore({
      tree,
      connectionString: config.databaseUrl,
      ...(config.maxConnections === undefined ? {} : { maxConnections: config.maxConnections }),
      ...(config.onIdleError === undefined ? {} : { onIdleError: config.onIdleError }),
    });
  }
  return openSqliteStore({
    tree,
    dataDir: config.dataDir ?? './data',
    ...(config.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: config.busyTimeoutMs }),
    ...(config.sqliteWriter === undefined ? {} : { writer: config.sqliteWriter, migrate: false }),
  });
}
