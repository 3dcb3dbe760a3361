/**
 * Fresh stores of either kind for the pool suites: `storeHarness(kind)` registers the set-up and
 * tear-down hooks of a `describe` block (a throwaway PostgreSQL for the `postgres` kind) and hands
 * each test an empty store plus the configuration to open more handles on the same ledger — in
 * this process, or in child processes.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../../src/core/index.js';
import {
  openStore,
  type PoolStore,
  type StoreConfig,
  type StoreKind,
} from '../../../src/ledger/index.js';
import { startTestPostgres, type TestPostgres } from '../../../testkit/postgres.js';

/** Both store kinds, for `describe.each`. */
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

/** An empty ledger of one kind. */
export interface FreshStore {
  /** An open handle, closed after the test. */
  readonly store: PoolStore;
  /** Opens it again (closed after the test). */
  open(overrides?: Partial<StoreConfig>): Promise<PoolStore>;
  /** What a child process needs to open it. */
  readonly config: StoreConfig;
}

/** Hooks and factories for one store kind. */
export interface StoreHarness {
  /** The core (native backend unless `PRIV_STARK_BACKEND` says otherwise). */
  core(): PrivStarkCore;
  /** A new, empty ledger. */
  fresh(): Promise<FreshStore>;
  /** The throwaway server (postgres kind only). */
  postgres(): TestPostgres;
}

/** Registers the hooks of one kind in the current `describe` block. */
export function storeHarness(kind: StoreKind): StoreHarness {
  let core: PrivStarkCore | undefined;
  let server: TestPostgres | undefined;
  const dirs: string[] = [];
  let open: PoolStore[] = [];

  beforeAll(async () => {
    core = await loadCore();
    if (kind === 'postgres') server = await startTestPostgres();
  });
  afterEach(async () => {
    await Promise.all(open.map((store) => store.close()));
    open = [];
  });
  afterAll(async () => {
    await server?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const theCore = () => {
    if (!core) throw new Error('the core is not loaded yet');
    return core;
  };
  return {
    core: theCore,
    postgres: () => {
      if (!server) throw new Error('no PostgreSQL in this harness');
      return server;
    },
    async fresh() {
      let config: StoreConfig;
      if (kind === 'postgres') {
        if (!server) throw new Error('PostgreSQL is not started');
        config = { databaseUrl: await server.newDatabase() };
      } else {
        const dir = mkdtempSync(join(tmpdir(), 'priv-stark-pool-'));
        dirs.push(dir);
        config = { dataDir: dir };
      }
      const openOne = async (overrides: Partial<StoreConfig> = {}) => {
        const store = await openStore(theCore(), { ...config, ...overrides });
        open.push(store);
        return store;
      };
      return { store: await openOne(), open: openOne, config };
    },
  };
}
