/**
 * @module Opens the attested unpaid sets where the store's configuration puts the ledger: the same
 * PostgreSQL database, or the same SQLite file. Open the store first: it applies the migrations.
 */

import type { AttestedSets } from './attested-sets.js';
import type { StoreConfig } from './open.js';
import { openPostgresAttestedSets } from './postgres-attested-sets.js';
import { openSqliteAttestedSets } from './sqlite-attested-sets.js';
import { sqlitePath } from './sqlite-store.js';

/**
 * Opens the attested sets beside the ledger `config` names.
 * @throws PoolUnavailableError when the database cannot be opened or is not migrated
 */
export function openAttestedSets(config: StoreConfig = {}): AttestedSets {
  if (config.databaseUrl) return openPostgresAttestedSets(config.databaseUrl, config.onIdleError);
  return openSqliteAttestedSets(sqlitePath(config.dataDir ?? './data'), config.busyTimeoutMs);
}
