/**
 * @module Opens the deposit watcher's state where the store's configuration puts the ledger: the
 * same PostgreSQL database, or the same SQLite file. Open the store first: it applies the migrations.
 */

import type { DepositWatchStore } from './deposit-watch.js';
import type { StoreConfig } from './open.js';
import { openPostgresDepositWatch } from './postgres-deposit-watch.js';
import { openSqliteDepositWatch } from './sqlite-deposit-watch.js';
import { sqlitePath } from './sqlite-store.js';

/**
 * Opens the deposit watcher's state beside the ledger `config` names.
 * @throws PoolUnavailableError when the database cannot be opened or is not migrated
 * @example
 * const store = await openStore(core, { dataDir: './data' });
 * const watch = openDepositWatch({ dataDir: './data' });
 */
export function openDepositWatch(config: StoreConfig = {}): DepositWatchStore {
  if (config.databaseUrl) return openPostgresDepositWatch(config.databaseUrl, config.onIdleError);
  return openSqliteDepositWatch(sqlitePath(config.dataDir ?? './data'), config.busyTimeoutMs);
}
