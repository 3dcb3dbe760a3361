// A nullifier settles once: 100 concurrent /settle calls of one payment, and of different payments
// sharing a nullifier — on one instance, and on two instances (separate processes) sharing
// PostgreSQL — give exactly one success; every other reply is 409 duplicate_settlement carrying
// the winner's transaction. Rate limits are shared by instances on one PostgreSQL.

import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { hashKey } from '../../src/http/index.js';
import { openStore, Ledger, settlementId } from '../../src/ledger/index.js';
import type { FacilitatorRequest } from '../../src/scheme/index.js';
import { fundPool } from '../../testkit/fixtures.js';
import { ledgerProblems } from '../ledger/helpers/invariants.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { API_KEY, facilitatorHarness } from './helpers/harness.js';
import { type FacilitatorProcess, postJson, startFacilitatorProcess } from './helpers/process.js';
import { liveSpec, requestOf } from './helpers/requests.js';

const SPEC = liveSpec('http-once', 4, 5);
const CALLS = 100;

type Reply = { status: number; body: Record<string, unknown> } | null;

/** Exactly one 200; every other reply 409 duplicate_settlement with the winner's transaction. */
function expectOneWinner(replies: Reply[], nullifier: string) {
  expect(replies.every((r) => r !== null)).toBe(true);
  const winners = replies.filter((r) => r!.status === 200);
  expect(winners).toHaveLength(1);
  const transaction = settlementId(nullifier);
  expect(winners[0]!.body).toEqual({ success: true, transaction, network: 'shielded:devnet' });
  for (const r of replies.filter((x) => x!.status !== 200)) {
    expect(r!.status).toBe(409);
    expect(r!.body).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
      transaction,
      network: 'shielded:devnet',
    });
  }
}

describe('settle once on one instance (SQLite)', () => {
  const h = facilitatorHarness('sqlite', SPEC);

  it(`${CALLS} concurrent settles of one payment, then of ${SPEC.variants} payments sharing a nullifier: one success each`, async () => {
    const { app, store } = await h.app();
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/settle`;
      const pay = (note: number, variant: number) =>
        h.fixtures().payments[note * SPEC.variants! + variant]!;

      const one = requestOf(pay(0, 0));
      expectOneWinner(
        await Promise.all(Array.from({ length: CALLS }, () => postJson(url, one, API_KEY))),
        pay(0, 0).note.nullifier,
      );

      const shared = Array.from({ length: SPEC.variants! }, (_, v) => requestOf(pay(1, v)));
      expectOneWinner(
        await Promise.all(
          Array.from({ length: CALLS }, (_, i) =>
            postJson(url, shared[i % shared.length], API_KEY),
          ),
        ),
        pay(1, 0).note.nullifier,
      );

      const state = await store.state();
      expect(state.size).toBe(SPEC.notes + 4);
      expect(await ledgerProblems(h.core(), store)).toEqual([]);
    } finally {
      await app.close();
    }
  }, 120_000);
});

const pgKinds = postgresAvailable() || process.env.CI ? ['postgres' as const] : [];

describe.each(pgKinds)('settle once on two instances sharing %s', (kind) => {
  const h = facilitatorHarness(kind, SPEC);
  const running: FacilitatorProcess[] = [];
  afterEach(async () => {
    for (const p of running.splice(0)) {
      p.process.kill('SIGTERM');
      await p.exited;
    }
  });

  it(`${CALLS} concurrent settles split over two processes: one success per nullifier; rate limits are shared`, async () => {
    const { config } = await h.stores.fresh();
    const store = await openStore(h.core(), config);
    try {
      await fundPool(new Ledger({ core: h.core(), store }), h.fixtures());
      const limitedKey = 'shared-limit-key-0123456789';
      const configPath = join(tmpdir(), `priv-stark-once-${process.pid}-${Date.now()}.json`);
      writeFileSync(
        configPath,
        JSON.stringify({
          keys: [
            {
              id: 'limited',
              sha256: hashKey(limitedKey).toString('hex'),
              policy: { rateLimit: { max: 3, timeWindowMs: 600_000 } },
            },
          ],
        }),
      );
      const args = ['--database-url', config.databaseUrl!, '--config', configPath];
      const env = { API_KEYS: API_KEY };
      running.push(
        ...(await Promise.all([
          startFacilitatorProcess(args, env),
          startFacilitatorProcess(args, env),
        ])),
      );
      const urls = running.map((p) => `${p.url}/settle`);
      const pay = (note: number, variant: number) =>
        h.fixtures().payments[note * SPEC.variants! + variant]!;

      const one = requestOf(pay(2, 0));
      expectOneWinner(
        await Promise.all(
          Array.from({ length: CALLS }, (_, i) => postJson(urls[i % 2]!, one, API_KEY)),
        ),
        pay(2, 0).note.nullifier,
      );

      const shared: FacilitatorRequest[] = Array.from({ length: SPEC.variants! }, (_, v) =>
        requestOf(pay(3, v)),
      );
      const replies = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          postJson(urls[i % 2]!, shared[i % shared.length], API_KEY),
        ),
      );
      expectOneWinner(replies, pay(3, 0).note.nullifier);

      const state = await store.state();
      expect(state.size).toBe(SPEC.notes + 4);
      expect(state.events).toBe(SPEC.notes + 2);
      expect(await ledgerProblems(h.core(), store)).toEqual([]);

      // 3 requests per window for this key, counted across both instances
      const verifyUrls = running.map((p) => `${p.url}/verify`);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push(
          (await postJson(verifyUrls[i % 2]!, requestOf(pay(0, 0)), limitedKey))!.status,
        );
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await store.close();
    }
  }, 180_000);
});
