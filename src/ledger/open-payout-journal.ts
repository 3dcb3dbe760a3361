/**
 * @module Opens the payout journal where the store's configuration puts the ledger: the same
 * PostgreSQL database, or the same SQLite file. Open the store first: it applies the migrations.
 */

import type { StoreConfig } from './open.js';
import type { PayoutJournal } from './payout-journal.js';
import { openPostgresPayoutJournal } from './postgres-payout-journal.js';
import { openSqlitePayoutJournal } from './sqlite-payout-journal.js';
import { sqlitePath } from './sqlite-store.js';

/**
 * Opens the payout journal beside the ledger `config` names.
 * @throws PoolUnavailableError when the database cannot be opened or is not migrated
 * @example
 * const store = await openStore(core, { dataDir: './data' });
 * const journal = openPayoutJournal({ dataDir: './data' });
 */
export function openPayoutJournal(config: StoreConfig = {}): PayoutJournal {
  if (config.databaseUrl) return openPostgresPayoutJournal(config.databaseUrl, config.onIdleError);
  return openSqlitePayoutJournal(sqlitePath(config.dataDir ?? './data'), config.busyTimeoutMs);
}
