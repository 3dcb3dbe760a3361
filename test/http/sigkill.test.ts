// SIGKILL (and SIGTERM) during settle load: a facilitator process (the primary of two workers, for
// SIGKILL) — on the embedded SQLite store,
// and on a PostgreSQL server — is killed while settles are in flight, then restarted on the same
// ledger. No acknowledged settlement is
// missing, none is half-applied (the ledger's invariants hold), and every payment offered again is
// either settled now or refused as a duplicate with the transaction it got before.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { openStore, Ledger, settlementId, type StoreConfig } from '../../src/ledger/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { allEvents, ledgerProblems } from '../ledger/helpers/invariants.js';
import { API_KEY } from './helpers/harness.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { storeHarness } from '../ledger/helpers/stores.js';
import { postJson, startFacilitatorProcess } from './helpers/process.js';
import { liveSpec, requestOf } from './helpers/requests.js';

const IN_FLIGHT = 12;
/** Acknowledged settles before the kill (SIGKILL) and before the stop (SIGTERM). */
const KILL_AT = 40;
const TERM_AT = 10;
/** Payments the SIGTERM load offers. */
const TERM_LOAD = 60;
// Enough payments that the SIGKILL load is still going at its kill (at most KILL_AT + IN_FLIGHT
// taken by then) and the SIGTERM load has its TERM_LOAD, and no more: a fresh clone proves each
// one (120 took 19 s of the file's 48 s on two loaded cores), and the restart offers each again.
const SPEC = liveSpec('http-sigkill', Math.max(KILL_AT + IN_FLIGHT, TERM_LOAD) + 4, 1);

const KINDS =
  postgresAvailable() || process.env.CI ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

/** The start flags of a facilitator on `config`'s ledger. */
const ledgerArgs = (config: StoreConfig) =>
  config.databaseUrl ? ['--database-url', config.databaseUrl] : ['--data-dir', config.dataDir!];

describe.each(KINDS)('SIGKILL during settle load (%s)', (kind) => {
  const stores = storeHarness(kind);
  let core: PrivStarkCore;
  let fx: Fixtures;
  beforeAll(async () => {
    core = stores.core();
    fx = await fixtures(core, SPEC);
  }, 600_000);

  it('loses no acknowledged settlement and leaves none half-applied', async () => {
    const { config } = await stores.fresh();
    const store = await openStore(core, config);
    await fundPool(new Ledger({ core, store }), fx);
    await store.close();

    // Two workers whatever the cores: the primary, which writes, is what is killed.
    const first = await startFacilitatorProcess(['--workers', '2', ...ledgerArgs(config)], {
      API_KEYS: API_KEY,
    });
    const url = `${first.url}/settle`;
    const acked = new Map<string, string>();
    let next = 0;
    let killed = false;
    const worker = async () => {
      while (next < fx.payments.length && !killed) {
        const p = fx.payments[next++]!;
        const reply = await postJson(url, requestOf(p), API_KEY);
        if (reply?.status === 200) {
          acked.set(p.note.nullifier, String(reply.body.transaction));
          if (acked.size === KILL_AT && !killed) {
            killed = true;
            first.process.kill('SIGKILL');
          }
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const exit = await first.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AT);
    expect(next).toBeLessThan(fx.payments.length); // killed mid-load, not after

    // the ledger after the crash: consistent, and every acknowledged settlement is there
    const after = await openStore(core, config);
    try {
      expect(await ledgerProblems(core, after)).toEqual([]);
      for (const [nullifier, transaction] of acked)
        expect((await after.nullifier(nullifier))?.settlementId).toBe(transaction);
      const settledBefore = (await allEvents(after)).filter((e) => e.kind === 'settlement').length;
      expect(settledBefore).toBeGreaterThanOrEqual(acked.size);

      // restart and offer every payment again
      const second = await startFacilitatorProcess(ledgerArgs(config), { API_KEYS: API_KEY });
      try {
        for (const p of fx.payments) {
          const reply = await postJson(`${second.url}/settle`, requestOf(p), API_KEY);
          const transaction = settlementId(p.note.nullifier);
          if (acked.has(p.note.nullifier)) {
            expect(reply).toMatchObject({
              status: 409,
              body: {
                errorReason: 'duplicate_settlement',
                transaction: acked.get(p.note.nullifier),
              },
            });
          } else {
            // applied before the kill but never acknowledged, or not applied: never anything else
            expect([200, 409]).toContain(reply?.status);
            expect(reply?.body.transaction).toBe(transaction);
          }
        }
      } finally {
        second.process.kill('SIGTERM');
        expect((await second.exited).code).toBe(0);
      }
      expect(await ledgerProblems(core, after)).toEqual([]);
      expect((await allEvents(after)).filter((e) => e.kind === 'settlement')).toHaveLength(
        fx.payments.length,
      );
    } finally {
      await after.close();
    }
  }, 300_000);
});

describe('SIGTERM during settle load (SQLite)', () => {
  let core: PrivStarkCore;
  let fx: Fixtures;
  beforeAll(async () => {
    core = await loadCore();
    fx = await fixtures(core, SPEC);
  }, 600_000);

  it('SIGTERM during settle load: in-flight settles finish, the process exits 0, every 200 is durable', async () => {
    const termDir = mkdtempSync(join(tmpdir(), 'priv-stark-sigterm-'));
    try {
      const store = await openStore(core, { dataDir: termDir });
      await fundPool(new Ledger({ core, store }), fx);
      await store.close();
      const server = await startFacilitatorProcess(['--data-dir', termDir], { API_KEYS: API_KEY });
      const replies: ({ status: number; body: Record<string, unknown> } | null)[] = [];
      let next = 0;
      let stopping = false;
      const worker = async () => {
        while (next < TERM_LOAD) {
          const p = fx.payments[next++]!;
          const reply = await postJson(`${server.url}/settle`, requestOf(p), API_KEY);
          replies.push(reply);
          if (replies.filter((r) => r?.status === 200).length === TERM_AT && !stopping) {
            stopping = true;
            server.process.kill('SIGTERM');
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      const exit = await server.exited;
      expect(exit.code, exit.output.slice(-2000)).toBe(0);
      // a request either got its answer or found the listener closed: never a 5xx
      for (const reply of replies) if (reply) expect(reply.status).toBe(200);
      const ok = replies.filter((r) => r?.status === 200);
      expect(ok.length).toBeGreaterThanOrEqual(TERM_AT);
      const after = await openStore(core, { dataDir: termDir });
      try {
        expect(await ledgerProblems(core, after)).toEqual([]);
        for (const reply of ok) {
          const event = (await allEvents(after)).find(
            (e) => e.kind === 'settlement' && e.settlementId === reply!.body.transaction,
          );
          expect(event).toBeDefined();
        }
      } finally {
        await after.close();
      }
    } finally {
      rmSync(termDir, { recursive: true, force: true });
    }
  }, 300_000);
});
