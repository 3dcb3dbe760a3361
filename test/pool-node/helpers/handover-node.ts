// The pool node of the hand-over suites: a node over a funded SQLite ledger, driven by inject (no
// sockets), its log lines collected; and what a refusal of `POST /proofs` must look like.

import { Writable } from 'node:stream';

import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, beforeAll, expect } from 'vitest';

import type { PrivStarkCore } from '../../../src/core/index.js';
import { Ledger, type LedgerOptions } from '../../../src/ledger/index.js';
import { buildPoolNode, type PoolNodeOptions } from '../../../src/pool-node/index.js';
import { POOL_NODE_REASONS, REASON_CODES } from '../../../src/scheme/index.js';
import { type Fixtures, fixtures, fundPool } from '../../../testkit/fixtures.js';
import { storeHarness } from '../../ledger/helpers/stores.js';

export const TOKEN = 'operator-token-for-tests-0123456789';
const SPEC = { seed: 'pool-node-handover', notes: 4 };

/** The codes an error body of the pool node may carry. */
const KNOWN_CODES = new Set<string>([
  ...REASON_CODES,
  ...Object.keys(POOL_NODE_REASONS),
  'invalid_request',
  'payload_too_large',
  'unsupported_media_type',
  'not_found',
  'unauthorized',
]);

/** A stable 4xx error body: exactly { error, message }, a known code. */
export function expectRefusal(response: LightMyRequestResponse, what: string): void {
  expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBeGreaterThanOrEqual(
    400,
  );
  expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
  expect(response.headers['content-type'], what).toMatch(/^application\/json/);
  const body = response.json() as Record<string, unknown>;
  expect(Object.keys(body).sort(), what).toEqual(['error', 'message']);
  expect(typeof body.message, what).toBe('string');
  expect(KNOWN_CODES.has(String(body.error)), `${what}: ${String(body.error)}`).toBe(true);
}

/**
 * Registers the suite's hooks and answers its harness: the core, the funded fixtures (four
 * payments), and `node(…)`, a fresh pool node per call, closed after each test.
 */
export function handOverNodes() {
  const h = storeHarness('sqlite');
  const harness = {
    core: undefined as unknown as PrivStarkCore,
    fx: undefined as unknown as Fixtures,
  };
  const apps: FastifyInstance[] = [];
  beforeAll(async () => {
    harness.core = h.core();
    harness.fx = await fixtures(harness.core, SPEC);
  }, 300_000);
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  /** A node over a funded ledger; its log lines collected. */
  async function node(
    options: Partial<PoolNodeOptions> = {},
    ledgerOptions: Partial<LedgerOptions> = {},
  ) {
    const { store } = await h.fresh();
    const ledger = new Ledger({ core: harness.core, store, ...ledgerOptions });
    await fundPool(ledger, harness.fx);
    const lines: string[] = [];
    const app = await buildPoolNode({
      ledger,
      operatorToken: TOKEN,
      logger: {
        level: 'trace',
        stream: new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk));
            done();
          },
        }),
      },
      ...options,
    });
    apps.push(app);
    // Always JSON, whatever the value: a string or a number is a JSON body too.
    const post = (payload: unknown, extra: { remoteAddress?: string; origin?: string } = {}) =>
      app.inject({
        method: 'POST',
        url: '/proofs',
        payload: JSON.stringify(payload),
        headers: {
          'content-type': 'application/json',
          ...(extra.origin ? { origin: extra.origin } : {}),
        },
        ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}),
      });
    return { app, ledger, store, lines, post };
  }

  return Object.assign(harness, { node });
}
