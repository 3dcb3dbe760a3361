/** SQL run on a store's database directly, bypassing the store: to break it on purpose in tests. */

import Database from 'better-sqlite3';
import pg from 'pg';

import { sqlitePath, type StoreConfig, type StoreKind } from '../../../src/ledger/index.js';

/** Runs SQL statements on the store's database directly, bypassing the store. */
export async function rawSql(kind: StoreKind, config: StoreConfig, sql: string): Promise<void> {
  if (kind === 'sqlite') {
    const db = new Database(sqlitePath(config.dataDir ?? './data'));
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A trigger that aborts any transaction inserting an event for `recipient`. */
export function failingTrigger(kind: StoreKind, recipient: string): string {
  if (kind === 'sqlite') {
    return `CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.recipient = '${recipient}'
            BEGIN SELECT RAISE(ABORT, 'boom'); END;`;
  }
  return `CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.recipient = '${recipient}' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$;
          CREATE TRIGGER boom BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION boom();`;
}
