// `priv-stark start --workers 2` as a real process on the embedded SQLite store: both listeners are
// served by both workers; the rate limits are shared (request limit + 1 in one window is refused,
// whichever worker each request reaches, and the limit itself is not); a worker killed with
// SIGKILL is replaced while the other keeps serving, and no settlement it acknowledged is lost;
// the primary killed with SIGKILL stops its workers; SIGTERM stops everything with exit 0.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { hashKey } from '../../src/http/index.js';
import { Ledger, openStore, settlementId } from '../../src/ledger/index.js';
import { type Fixtures, fixtures, fundPool } from '../../testkit/fixtures.js';
import { allEvents, ledgerProblems } from '../ledger/helpers/invariants.js';
import { API_KEY } from './helpers/harness.js';
import {
  type FacilitatorProcess,
  postJson,
  type ServiceProcess,
  startFacilitatorProcess,
  startServiceProcess,
} from './helpers/process.js';
import { liveSpec, requestOf } from './helpers/requests.js';

/** POSTs on a connection of its own (as separate clients would), so each may reach another worker. */
function freshPost(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', connection: 'close', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The pids of the workers that logged a reply on `route`. */
function pidsReplying(output: string, route: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; route?: string; pid?: number };
      if (entry.msg === 'reply' && entry.route === route && entry.pid) pids.add(entry.pid);
    } catch {
      // a line cut by the pipe: not a reply line
    }
  }
  return pids;
}

/** The worker pids the primary announced. */
function workerPids(output: string): number[] {
  const match = /workers serving \(pids ([0-9, ]+)\)/.exec(output);
  return match ? match[1]!.split(', ').map(Number) : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for `check` (the log reaches the pipe in batches, the workers' lives take time). */
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${check.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function health(url: string): Promise<{ workers?: { configured: number; alive: number } }> {
  const response = await fetch(`${url}/health`);
  return (await response.json()) as { workers?: { configured: number; alive: number } };
}

// Enough requests that both workers get some whatever the kernel's spread of connections
// (SO_REUSEPORT hashes each connection: all 21 on one worker has odds of 2^-20).
const LIMIT = 20;
const OPERATOR_TOKEN = 'workers-test-operator-0123456789';
const HANDOVER_LIMIT = 20;

describe('priv-stark start --workers 2', () => {
  let dir: string;
  let service: ServiceProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'priv-stark-workers-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        keys: [
          {
            id: 'shop',
            sha256: hashKey(API_KEY).toString('hex'),
            policy: { rateLimit: { max: LIMIT, timeWindowMs: 60_000 } },
          },
        ],
      }),
    );
    service = await startServiceProcess(
      [
        '--workers',
        '2',
        '--data-dir',
        join(dir, 'data'),
        '--config',
        config,
        '--handover-rate-limit',
        String(HANDOVER_LIMIT),
        '--metrics-port',
        '0',
      ],
      { POOL_OPERATOR_TOKEN: OPERATOR_TOKEN },
    );
    // Both workers listen before any request is counted.
    await until(async () => (await health(service.url)).workers?.alive === 2, 30_000);
  }, 90_000);

  afterAll(async () => {
    if (service.process.exitCode === null && service.process.signalCode === null) {
      service.process.kill('SIGKILL');
      await service.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('shares the per-key limit: the first LIMIT requests pass, limit + 1 is refused', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i += 1) {
      const reply = await freshPost(`${service.url}/verify`, '{}', {
        authorization: `Bearer ${API_KEY}`,
      });
      statuses.push(reply.status);
    }
    // Fresh connections spread over both workers: both counted requests of the one window.
    await until(() => pidsReplying(service.output(), '/verify').size === 2, 5000);
    expect(statuses.slice(0, LIMIT).filter((status) => status === 429)).toEqual([]);
    expect(statuses[LIMIT]).toBe(429);
  });

  it("serves every worker's metrics from the primary's listener, summed", async () => {
    const url = /metrics at (http:\/\/[0-9.:]+\/metrics)/.exec(service.output())?.[1];
    expect(url).toBeDefined();
    const text = await (await fetch(url!)).text();
    // The LIMIT + 1 /verify replies of the test before, spread over both workers: counted once.
    const verifies = [
      ...text.matchAll(/^priv_stark_http_requests_total\{route="\/verify"[^}]*\} (\d+)$/gm),
    ]
      .map((match) => Number(match[1]))
      .reduce((a, b) => a + b, 0);
    expect(verifies).toBe(LIMIT + 1);
    // A pool gauge is the pool's, taken once, not summed over the workers.
    expect(text).toMatch(/^priv_stark_checkpoint_interval_seconds 2$/m);
  });

  it("reports the durable commits: the workers' groups summed, the primary's store timing each commit once", async () => {
    const url = /metrics at (http:\/\/[0-9.:]+\/metrics)/.exec(service.output())?.[1];
    const read = async () => await (await fetch(url!)).text();
    const value = (text: string, name: string) =>
      Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    const before = await read();
    const deposit = (i: number) =>
      freshPost(
        `${service.poolUrl}/deposit`,
        JSON.stringify({ amount: '1000', pre: `0x${'00'.repeat(31)}${(i + 16).toString(16)}` }),
        { authorization: `Bearer ${OPERATOR_TOKEN}` },
      );
    for (let i = 0; i < 3; i++) expect((await deposit(i)).status).toBeLessThan(300);
    const after = await read();
    expect(
      value(after, 'priv_stark_commit_ops_total') - value(before, 'priv_stark_commit_ops_total'),
    ).toBe(3);
    // The primary's store committed them: its count moved (a worker's store times none).
    const commits = (text: string) => value(text, 'priv_stark_commit_store_commits_total');
    expect(commits(after) - commits(before)).toBeGreaterThanOrEqual(1);
    expect(commits(after) - commits(before)).toBeLessThanOrEqual(3);
    // One family each: the exposition names the store's phases once, never a worker's zeros too.
    expect(after.match(/^# TYPE priv_stark_commit_store_seconds_total /gm)).toHaveLength(1);
    expect(after.match(/^# TYPE priv_stark_commit_ops_total /gm)).toHaveLength(1);
  });

  it("shares the pool node's per-address limit and its salt across workers", async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= HANDOVER_LIMIT; i += 1)
      statuses.push((await freshPost(`${service.poolUrl}/proofs`, '{}')).status);
    await until(() => pidsReplying(service.output(), '/proofs').size === 2, 5000);
    expect(statuses.slice(0, HANDOVER_LIMIT).filter((status) => status === 429)).toEqual([]);
    expect(statuses[HANDOVER_LIMIT]).toBe(429);
  });

  it('reports its workers in /health and serves the pool node from each', async () => {
    expect((await health(service.url)).workers).toEqual({ configured: 2, alive: 2 });
    const heads = await Promise.all(
      Array.from({ length: 16 }, () => 0).map(
        () =>
          new Promise<number>((resolve, reject) => {
            request(`${service.poolUrl}/state`, { agent: false }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            })
              .on('error', reject)
              .end();
          }),
      ),
    );
    expect(heads.filter((status) => status !== 200)).toEqual([]);
    await until(() => pidsReplying(service.output(), '/state').size === 2, 5000);
  });

  it('replaces a worker killed with SIGKILL while the other keeps serving', async () => {
    const [victim, survivor] = workerPids(service.output());
    expect(victim).toBeGreaterThan(0);
    process.kill(victim!, 'SIGKILL');
    await until(() => service.output().includes(`worker ${victim} exited (SIGKILL)`), 10_000);
    expect(alive(survivor!)).toBe(true);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    await until(async () => (await health(service.url)).workers?.alive === 2, 30_000);
  }, 60_000);

  it('stops every worker when the primary is killed with SIGKILL', async () => {
    const pids = [...pidsReplying(service.output(), '/health')].filter(alive);
    expect(pids.length).toBeGreaterThan(0);
    service.process.kill('SIGKILL');
    await service.exited;
    await until(() => pids.every((pid) => !alive(pid)), 20_000);
  }, 60_000);
});

describe('SIGKILL of a worker during settle load (--workers 2, SQLite)', () => {
  const IN_FLIGHT = 8;
  const KILL_AT = 16;
  const SPEC = liveSpec('http-workers', 44, 1);
  let core: PrivStarkCore;
  let fx: Fixtures;
  /** The service under test, stopped here too if the test ends early (a timeout leaves it up). */
  let started: FacilitatorProcess | null = null;
  beforeAll(async () => {
    core = await loadCore();
    fx = await fixtures(core, SPEC);
  }, 600_000);
  afterAll(async () => {
    if (started && started.process.exitCode === null && started.process.signalCode === null) {
      started.process.kill('SIGKILL');
      await started.exited;
    }
  });

  it('loses no acknowledged settlement; SIGTERM then stops the service with exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-workers-kill-'));
    try {
      const store = await openStore(core, { dataDir: dir });
      await fundPool(new Ledger({ core, store }), fx);
      await store.close();
      const service = await startFacilitatorProcess(['--workers', '2', '--data-dir', dir], {
        API_KEYS: API_KEY,
      });
      started = service;
      await until(async () => (await health(service.url)).workers?.alive === 2, 30_000);
      const url = `${service.url}/settle`;
      const acked = new Map<string, string>();
      let next = 0;
      let killed = 0;
      const client = async () => {
        while (next < fx.payments.length) {
          const p = fx.payments[next++]!;
          const reply = await postJson(url, requestOf(p), API_KEY);
          if (reply?.status === 200) {
            acked.set(p.note.nullifier, String(reply.body.transaction));
            if (acked.size === KILL_AT && killed === 0) {
              killed = workerPids(service.output())[0] ?? 0;
              process.kill(killed, 'SIGKILL');
            }
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, client));
      expect(killed).toBeGreaterThan(0);
      expect(service.output()).toContain(`worker ${killed} exited (SIGKILL)`);
      // The survivor (and the replacement) kept settling after the kill.
      expect(acked.size).toBeGreaterThan(KILL_AT);

      service.process.kill('SIGTERM');
      const exit = await service.exited;
      expect(exit.code, exit.output.slice(-2000)).toBe(0);

      const after = await openStore(core, { dataDir: dir });
      try {
        expect(await ledgerProblems(core, after)).toEqual([]);
        for (const [nullifier, transaction] of acked)
          expect((await after.nullifier(nullifier))?.settlementId).toBe(transaction);
        const settled = (await allEvents(after)).filter((e) => e.kind === 'settlement');
        expect(settled.length).toBeGreaterThanOrEqual(acked.size);
        for (const event of settled)
          expect(
            fx.payments.some(
              (p) =>
                event.kind === 'settlement' &&
                settlementId(p.note.nullifier) === event.settlementId,
            ),
          ).toBe(true);
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
