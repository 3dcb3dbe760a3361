// Several instances on one PostgreSQL behind a load balancer: two `priv-stark start` processes on
// one ledger (the first with the pool node) behind Debian's nginx, an `upstream` block of both on
// nginx's defaults. Through nginx's URL only: payments settle (a few in flight) and both instances
// serve them; each settles once whichever instance gets it — offered again, every one is refused
// as a duplicate with its transaction, and of 10 concurrent settles of one payment exactly one
// wins. With one instance SIGKILLed mid-load the survivor settles the rest: a request in flight on
// the dead one is answered 502 and its retry settles it (or finds it settled), every payment
// settled exactly once and the ledger consistent. nginx and PostgreSQL as in the neighbouring
// suites: skipped without them, except under CI, where a missing one fails.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { PrivStarkCore } from '../../src/core/index.js';
import { Ledger, openStore, type PoolStore, settlementId } from '../../src/ledger/index.js';
import type { FacilitatorRequest } from '../../src/scheme/index.js';
import { type Fixtures, fixtures, fundPool, type PaymentFixture } from '../../testkit/fixtures.js';
import { type Nginx, nginxPath, startNginx } from '../../testkit/nginx.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { allEvents, ledgerProblems } from '../ledger/helpers/invariants.js';
import { storeHarness } from '../ledger/helpers/stores.js';
import { API_KEY } from './helpers/harness.js';
import {
  type FacilitatorProcess,
  type ServiceProcess,
  startFacilitatorProcess,
  startServiceProcess,
} from './helpers/process.js';
import { liveSpec, requestOf } from './helpers/requests.js';

const NGINX_REQUIRED = process.env.CI === 'true' || process.env.PRIV_STARK_REQUIRE_NGINX === '1';
const nginxAvailable = nginxPath() !== null || NGINX_REQUIRED;
if (!nginxAvailable)
  process.stderr.write(
    'nginx-instances.test.ts: no nginx found (apt-get install nginx): skipped\n',
  );
const pgAvailable = postgresAvailable() || !!process.env.CI;

/** Payments settled first, then offered again. */
const SETTLED = 20;
/** Payments settled while the second instance is killed. */
const AFTER_KILL = 12;
/** Acknowledged settles of that load before the kill. */
const KILL_AT = 3;
const IN_FLIGHT = 4;
const CONCURRENT = 10;
// The first SETTLED payments, one settled CONCURRENT times at once, then AFTER_KILL.
const SPEC = liveSpec('http-nginx-instances', SETTLED + 1 + AFTER_KILL, 1);

interface Reply {
  readonly status: number;
  /** The JSON body, or `null` (nginx's own error pages are HTML). */
  readonly body: Record<string, unknown> | null;
}

/** POSTs a settle request through `url`; the status whatever the body. */
async function settle(url: string, request: FacilitatorRequest): Promise<Reply> {
  const response = await fetch(`${url}/settle`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify(request),
  });
  const text = await response.text();
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {}
  return { status: response.status, body };
}

/** Settles `payments` through `url` with IN_FLIGHT in flight; `onReply` sees each reply. */
async function settleAll(
  url: string,
  payments: readonly PaymentFixture[],
  onReply: (p: PaymentFixture, reply: Reply) => void = () => undefined,
): Promise<Map<PaymentFixture, Reply>> {
  const replies = new Map<PaymentFixture, Reply>();
  let next = 0;
  const worker = async () => {
    while (next < payments.length) {
      const p = payments[next++]!;
      const reply = await settle(url, requestOf(p));
      replies.set(p, reply);
      onReply(p, reply);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return replies;
}

/** The `/settle` replies an instance has logged so far. */
const settleLines = (p: FacilitatorProcess) =>
  p
    .output()
    .split('\n')
    .filter((line) => line.includes('"msg":"reply"') && line.includes('"route":"/settle"')).length;

/** The settlement events of the ledger. */
const settlements = async (store: PoolStore) =>
  (await allEvents(store)).filter((e) => e.kind === 'settlement');

describe.skipIf(!nginxAvailable || !pgAvailable)(
  'several instances on one PostgreSQL behind nginx',
  () => {
    const stores = storeHarness('postgres');
    let core: PrivStarkCore;
    let fx: Fixtures;
    let store: PoolStore | undefined;
    let first: ServiceProcess | undefined;
    let second: FacilitatorProcess | undefined;
    let nginx: Nginx | undefined;
    const payments = () => ({
      settled: fx.payments.slice(0, SETTLED),
      contested: fx.payments[SETTLED]!,
      afterKill: fx.payments.slice(SETTLED + 1, SETTLED + 1 + AFTER_KILL),
    });

    beforeAll(async () => {
      core = stores.core();
      fx = await fixtures(core, SPEC);
      const { config } = await stores.fresh();
      store = await openStore(core, config);
      await fundPool(new Ledger({ core, store }), fx);
      const args = ['--database-url', config.databaseUrl!, '--workers', '1'];
      const env = { API_KEYS: API_KEY };
      first = await startServiceProcess(args, env);
      second = await startFacilitatorProcess(args, env);
      nginx = await startNginx([first.url, second.url]);
    }, 600_000);

    afterAll(async () => {
      await nginx?.close();
      for (const p of [first, second]) {
        if (p && p.process.exitCode === null && p.process.signalCode === null) {
          p.process.kill('SIGTERM');
          const stopped = await Promise.race([
            p.exited.then(() => true),
            new Promise<false>((resolve) => setTimeout(() => resolve(false), 30_000)),
          ]);
          if (!stopped) p.process.kill('SIGKILL');
        }
      }
      await store?.close();
    }, 120_000);

    it(`settles ${SETTLED} payments through nginx, served by both instances`, async () => {
      expect(nginx!.config).toContain(
        `upstream priv_stark_upstreams {\n    server ${new URL(first!.url).host};\n    server ${new URL(second!.url).host};\n  }`,
      );
      const replies = await settleAll(nginx!.url, payments().settled);
      for (const [p, reply] of replies)
        expect(reply, nginx!.errorLog()).toEqual({
          status: 200,
          body: {
            success: true,
            transaction: settlementId(p.note.nullifier),
            network: 'shielded:devnet',
          },
        });

      // each process logs its replies in batches: wait until both show theirs
      const deadline = Date.now() + 20_000;
      while (
        (settleLines(first!) === 0 ||
          settleLines(second!) === 0 ||
          settleLines(first!) + settleLines(second!) < SETTLED) &&
        Date.now() < deadline
      )
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(settleLines(first!)).toBeGreaterThan(0);
      expect(settleLines(second!)).toBeGreaterThan(0);
      expect(settleLines(first!) + settleLines(second!)).toBe(SETTLED);
    }, 300_000);

    it('settles each payment once, whichever instance gets it', async () => {
      const { settled, contested } = payments();
      const again = await settleAll(nginx!.url, settled);
      for (const [p, reply] of again)
        expect(reply).toMatchObject({
          status: 409,
          body: {
            errorReason: 'duplicate_settlement',
            transaction: settlementId(p.note.nullifier),
          },
        });

      const request = requestOf(contested);
      const replies = await Promise.all(
        Array.from({ length: CONCURRENT }, () => settle(nginx!.url, request)),
      );
      const transaction = settlementId(contested.note.nullifier);
      expect(replies.filter((r) => r.status === 200)).toEqual([
        { status: 200, body: { success: true, transaction, network: 'shielded:devnet' } },
      ]);
      for (const reply of replies.filter((r) => r.status !== 200))
        expect(reply).toMatchObject({
          status: 409,
          body: { errorReason: 'duplicate_settlement', transaction },
        });

      expect(await ledgerProblems(core, store!)).toEqual([]);
      expect(await settlements(store!)).toHaveLength(SETTLED + 1);
    }, 300_000);

    it('goes on settling through the survivor when one instance is SIGKILLed', async () => {
      const { afterKill } = payments();
      const dead = new URL(second!.url).host;
      let answered = 0;
      let acked = 0;
      let answeredAtKill = 0;
      const replies = await settleAll(nginx!.url, afterKill, (_, reply) => {
        answered++;
        if (reply.status === 200 && ++acked === KILL_AT) {
          answeredAtKill = answered;
          second!.process.kill('SIGKILL');
        }
      });
      expect(answeredAtKill, 'never killed').toBeGreaterThan(0);
      expect((await second!.exited).signal).toBe('SIGKILL');
      // killed mid-load: requests went on being sent after it
      expect(answeredAtKill + IN_FLIGHT).toBeLessThan(AFTER_KILL);

      // only a request in flight on the dead instance fails (502); nginx marks it failed and sends
      // the others to the survivor
      const failed = [...replies].filter(([, reply]) => reply.status !== 200);
      expect(failed.length, nginx!.errorLog()).toBeLessThanOrEqual(IN_FLIGHT);
      for (const [p, reply] of replies) {
        if (reply.status === 200)
          expect(reply.body?.transaction).toBe(settlementId(p.note.nullifier));
        else expect(reply.status, JSON.stringify(reply.body)).toBe(502);
      }
      // retried once: settled now, or already settled by the dead one before it died
      for (const [p] of failed) {
        const retry = await settle(nginx!.url, requestOf(p));
        expect([200, 409]).toContain(retry.status);
        if (retry.status === 409) expect(retry.body?.errorReason).toBe('duplicate_settlement');
        expect(retry.body?.transaction).toBe(settlementId(p.note.nullifier));
      }
      expect(nginx!.errorLog()).toContain(dead);

      expect(await ledgerProblems(core, store!)).toEqual([]);
      expect(await settlements(store!)).toHaveLength(SETTLED + 1 + AFTER_KILL);
      for (const p of fx.payments)
        expect((await store!.nullifier(p.note.nullifier))?.settlementId).toBe(
          settlementId(p.note.nullifier),
        );

      first!.process.kill('SIGTERM');
      const exit = await first!.exited;
      expect(exit.code, exit.output.slice(-2000)).toBe(0);
    }, 300_000);
  },
);
