// Each fact of a payment is checked once per `/settle` (issue 22): over HTTP, through the
// facilitator and the ledger together, a settled payment — inline, and compact by a reference
// handed over before — asks the core to decode the recipient's address once, to parse each digest
// once before the store's lock, and to hash the payment context once; its expiry is checked once
// before the lock and once at commit. The derived values travel in the rules' CheckedPayment, which
// the ledger vouches for; the re-check at commit stays as the safety net. Must-fail twins: a refused
// /settle and a ledger without rules (the facilitator's own rules: the ledger checks again) count
// more, so the counters see a second check when there is one.

import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import type { PrivStarkCore } from '../../src/core/index.js';
import { Facilitator, type FacilitatorLedger } from '../../src/facilitator/index.js';
import { ApiKeys, build, hashKey } from '../../src/http/index.js';
import { Ledger } from '../../src/ledger/index.js';
import { NETWORKS } from '../../src/scheme/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { API_KEY, AUTH } from '../http/helpers/harness.js';
import { handedOverRequestOf, liveSpec, requestOf } from '../http/helpers/requests.js';
import { storeHarness } from '../ledger/helpers/stores.js';

// Expiry checks are counted where they are made: `expiryStatus` (the rules, before the lock) and
// `hasExpired` (the group commit), each a call from another module.
const expiryCalls = vi.hoisted(() => ({ status: 0, commit: 0 }));
vi.mock('../../src/scheme/encoding.js', async (original) => {
  const actual = await original<typeof import('../../src/scheme/encoding.js')>();
  return {
    ...actual,
    expiryStatus: (...args: Parameters<typeof actual.expiryStatus>) => {
      expiryCalls.status++;
      return actual.expiryStatus(...args);
    },
    hasExpired: (...args: Parameters<typeof actual.hasExpired>) => {
      expiryCalls.commit++;
      return actual.hasExpired(...args);
    },
  };
});

/** The core, counting the calls that check or derive a payment's facts. */
function countingCore(core: PrivStarkCore) {
  const calls = { parsed: new Map<string, number>(), decoded: 0, hashed: 0 };
  const counted: PrivStarkCore = {
    ...core,
    parseDigest: (text) => {
      calls.parsed.set(text, (calls.parsed.get(text) ?? 0) + 1);
      return core.parseDigest(text);
    },
    decodeAddress: (address) => {
      calls.decoded++;
      return core.decodeAddress(address);
    },
    contextDigest: (context) => {
      calls.hashed++;
      return core.contextDigest(context);
    },
  };
  const reset = () => {
    calls.parsed.clear();
    calls.decoded = 0;
    calls.hashed = 0;
    expiryCalls.status = 0;
    expiryCalls.commit = 0;
  };
  return { core: counted, calls, reset };
}

describe('one /settle checks each fact once', () => {
  const stores = storeHarness('sqlite');
  let fx: Fixtures;
  beforeAll(async () => {
    fx = await fixtures(stores.core(), liveSpec('facilitator', 4, 2));
  }, 300_000);
  const apps: Awaited<ReturnType<typeof build>>[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  /** The HTTP app over a funded ledger, facilitator and ledger on the counting core. */
  async function open(options: { ledgerRules?: boolean } = {}) {
    const counting = countingCore(stores.core());
    const { store } = await stores.fresh();
    const ledger = new Ledger({ core: counting.core, store });
    await fundPool(ledger, fx);
    // Without its rules the facilitator checks with rules of its own (the must-fail twin).
    const facing: FacilitatorLedger =
      options.ledgerRules === false
        ? {
            isCheckpoint: (root) => ledger.isCheckpoint(root),
            spent: (nullifier) => ledger.spent(nullifier),
            handedOverMatches: (reference, pi) => ledger.handedOverMatches(reference, pi),
            settle: (input) => ledger.settle(input),
            refuse: (nullifier, reason) => ledger.refuse(nullifier, reason),
          }
        : ledger;
    const facilitator = new Facilitator({ core: counting.core, ledger: facing });
    const app = await build({
      facilitator,
      auth: {
        mode: 'keys',
        keys: new ApiKeys([{ id: 'test', sha256: hashKey(API_KEY), policy: {} }]),
      },
      health: {
        version: 'test',
        backend: counting.core.backend,
        networks: NETWORKS,
        parameterSets: counting.core.acceptedParameterSets(),
        pool: { kind: store.kind, state: () => ledger.state() },
      },
      logger: false,
    });
    apps.push(app);
    return { app, ledger, ...counting };
  }

  const settle = (app: Awaited<ReturnType<typeof build>>, body: unknown) =>
    app.inject({ method: 'POST', url: '/settle', headers: AUTH, payload: body as object });

  /** What one settle of `p` asked, the digests by name. */
  function counts(
    p: Fixtures['payments'][number],
    calls: ReturnType<typeof countingCore>['calls'],
  ) {
    const { root, nullifier, change } = p.publicInputs;
    const named: string[] = [root, nullifier, change];
    return {
      root: calls.parsed.get(root) ?? 0,
      nullifier: calls.parsed.get(nullifier) ?? 0,
      change: calls.parsed.get(change) ?? 0,
      otherDigests: [...calls.parsed.keys()].filter((d) => !named.includes(d)).length,
      payToDecodes: calls.decoded,
      ctxHashes: calls.hashed,
      expiryBeforeLock: expiryCalls.status,
      expiryAtCommit: expiryCalls.commit,
    };
  }

  const ONCE = {
    root: 1,
    nullifier: 1,
    change: 1,
    otherDigests: 0,
    payToDecodes: 1,
    ctxHashes: 1,
    expiryBeforeLock: 1,
    expiryAtCommit: 1,
  };

  it('inline: one decode of payTo, one parse per digest, one ctx hash, expiry once before the lock and once at commit', async () => {
    const { app, calls, reset } = await open();
    const p = fx.payments[0]!;
    reset();
    const response = await settle(app, requestOf(p));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ success: true });
    expect(counts(p, calls)).toEqual(ONCE);
  });

  it('compact: the same, for a settle by the reference of a proof handed over before', async () => {
    const { app, ledger, calls, reset } = await open();
    const p = fx.payments[2]!;
    const { request } = await handedOverRequestOf(ledger, p);
    reset();
    const response = await settle(app, request);
    expect(response.statusCode, response.body).toBe(200);
    expect(counts(p, calls)).toEqual(ONCE);
  });

  it('must-fail twin: a ledger without the facilitator’s rules checks the payment again (twice each)', async () => {
    const { app, calls, reset } = await open({ ledgerRules: false });
    const p = fx.payments[4]!;
    reset();
    const response = await settle(app, requestOf(p));
    expect(response.statusCode, response.body).toBe(200);
    const twice = counts(p, calls);
    // The ledger parses the nullifier once more before it asks the store whether it is spent, and
    // the context digest the settlement claims.
    expect(twice).toEqual({
      ...ONCE,
      root: 2,
      nullifier: 3,
      change: 2,
      otherDigests: 1,
      payToDecodes: 2,
      ctxHashes: 2,
      expiryBeforeLock: 2,
    });
  });
});
