/**
 * A facilitator over a funded pool for the HTTP suites: the pool's store harness (SQLite or a
 * throwaway PostgreSQL), its fixture factory (use `liveSpec` payments: they are valid on the real
 * clock), a `Ledger` and a `Facilitator`, and `build()` with API keys. Each `app()` call gets a fresh
 * funded ledger unless given a store; its store handle closes with the app.
 */

import { beforeAll } from 'vitest';

import type { PrivStarkCore } from '../../../src/core/index.js';
import { Facilitator } from '../../../src/facilitator/index.js';
import {
  ApiKeys,
  type AuthMode,
  build,
  type BuildOptions,
  hashKey,
  type KeyPolicy,
} from '../../../src/http/index.js';
import {
  Ledger,
  type LedgerOptions,
  openStore,
  type PoolStore,
  type StoreKind,
} from '../../../src/ledger/index.js';
import { NETWORKS, type NetworkProfile } from '../../../src/scheme/index.js';
import { type FixtureSpec, type Fixtures, fixtures, fundPool } from '../../../testkit/fixtures.js';
import { storeHarness } from '../../ledger/helpers/stores.js';

/** The key every harness app accepts. */
export const API_KEY = 'test-key-0123456789abcdef';
/** The `Authorization` header of {@link API_KEY}. */
export const AUTH = { authorization: `Bearer ${API_KEY}` } as const;

/** Extra keys `{ token: policy }`. */
export type ExtraKeys = Record<string, KeyPolicy>;

/** What one app of the harness is made of. */
export interface HarnessApp {
  readonly app: Awaited<ReturnType<typeof build>>;
  readonly pool: Ledger;
  readonly store: PoolStore;
  readonly facilitator: Facilitator;
}

/** Options of one app. */
export interface AppOptions {
  readonly keys?: ExtraKeys;
  readonly fund?: boolean;
  readonly auth?: AuthMode;
  readonly build?: Partial<BuildOptions>;
  /** Another handle on an existing ledger instead of a fresh one. */
  readonly store?: PoolStore;
  /** The clock of the pool and the facilitator, unix ms (default `Date.now`). */
  readonly clock?: () => number;
  /** More options of the ledger (its network, accepted parameter sets, …). */
  readonly ledger?: Partial<LedgerOptions>;
  /** The facilitator's networks (default the profile's). */
  readonly networks?: readonly NetworkProfile[];
}

/** Registers the hooks of a facilitator harness on `kind` in the current `describe` block. */
export function facilitatorHarness(kind: StoreKind, spec: FixtureSpec) {
  const stores = storeHarness(kind);
  let fx: Fixtures | undefined;
  beforeAll(async () => {
    fx = await fixtures(stores.core(), spec);
  }, 600_000);

  const core = (): PrivStarkCore => stores.core();
  const theFixtures = (): Fixtures => {
    if (!fx) throw new Error('fixtures are not ready');
    return fx;
  };

  async function app(options: AppOptions = {}): Promise<HarnessApp> {
    const f = theFixtures();
    const clock = options.clock ?? Date.now;
    // A handle of our own (the store harness closes its handles after each test): closed with the app.
    const store = options.store ?? (await openStore(core(), (await stores.fresh()).config));
    const pool = new Ledger({ core: core(), store, clock, ...options.ledger });
    if (options.fund !== false && !options.store) await fundPool(pool, f);
    const facilitator = new Facilitator({
      core: core(),
      ledger: pool,
      clock,
      ...(options.networks ? { networks: options.networks } : {}),
    });
    const entries = [
      { id: 'test', sha256: hashKey(API_KEY), policy: {} },
      ...Object.entries(options.keys ?? {}).map(([token, policy], i) => ({
        id: `extra-${i}`,
        sha256: hashKey(token),
        policy,
      })),
    ];
    const built = await build({
      facilitator,
      auth: options.auth ?? { mode: 'keys', keys: new ApiKeys(entries) },
      health: {
        version: 'test',
        backend: core().backend,
        networks: options.networks ?? NETWORKS,
        parameterSets: core().acceptedParameterSets(),
        pool: { kind: store.kind, state: () => pool.state() },
      },
      logger: false,
      ...options.build,
    });
    if (!options.store) built.addHook('onClose', () => store.close());
    return { app: built, pool, store, facilitator };
  }

  return { core, fixtures: theFixtures, app, stores };
}
