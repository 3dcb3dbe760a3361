// Two pool-node instances over one store (the shared node; one SQLite file, as two processes or a
// PostgreSQL database would share it) each run a deposit watcher with the same acceptor key: only
// the holder of the watcher's lease reads, accepts and shields, so each deposit is accepted by one
// transaction and shielded once; when the holder stops without giving the lease up (as kill -9
// leaves it), the other takes over once the lease expires and goes on — the stopped one, polling
// again, stands by.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { WATCHER_LEASE_TTL_MS } from '../../src/chain/watcher-lease.js';
import { noteCommitment } from '../../src/ledger/index.js';
import type { Chain } from '../../testkit/chain.js';
import { depositDirect, depositor, sharedChain, tickets } from './shared.js';
import { leaves, type WatchedPool, watchedPool } from './watcher-harness.js';

const N = 10;

describe('one deposit watcher at a time', () => {
  let chain: Chain;
  const pools: WatchedPool[] = [];

  beforeAll(() => {
    chain = sharedChain();
  });
  afterAll(async () => {
    for (const pool of pools.reverse()) await pool.close();
  });

  it('the lease holder acts, the other stands by, and takes over once the lease expires', async () => {
    const a = await watchedPool(chain, { lease: true });
    pools.push(a);
    const b = await watchedPool(chain, { lease: true, fixture: a.f, dataDir: a.dataDir });
    pools.push(b);
    b.now = a.now;
    const sent = () => chain.public.getTransactionCount({ address: a.f.acceptor.address });
    const start = await sent();
    const [first, second] = await tickets([41_000n, 42_000n]);
    await depositDirect(a.f, await depositor(a.f, 41_000n), 41_000n, first!.pre);
    await a.mine(N);
    await a.poll();
    await b.poll();
    // One acceptance, by the holder.
    expect(await sent()).toBe(start + 1);
    await a.mine(N);
    await b.poll();
    expect(await leaves(a)).toEqual([]);
    await a.poll();
    const firstNote = noteCommitment(a.core, first!.amount, first!.pre);
    expect(await leaves(b)).toEqual([firstNote]);
    // The standing-by instance shows what the holder recorded (other suites mine meanwhile).
    await b.poll();
    expect(b.watcher.status()).toMatchObject({ status: 'ok', active: false });
    expect(b.watcher.status().scanned).toBe(a.watcher.status().scanned);
    expect(a.watcher.status().active).toBe(true);

    // a stops polling without giving the lease up; b takes over once it has expired.
    await depositDirect(a.f, await depositor(a.f, 42_000n), 42_000n, second!.pre);
    await a.mine(N);
    await b.poll();
    expect(await sent()).toBe(start + 1);
    b.now += WATCHER_LEASE_TTL_MS + 1;
    await b.poll();
    expect(await sent()).toBe(start + 2);
    // a, back with its old clock, stands by: nothing sent twice.
    await a.poll();
    expect(await sent()).toBe(start + 2);
    await a.mine(N);
    await a.poll();
    await b.poll();
    expect(await leaves(a)).toEqual([
      firstNote,
      noteCommitment(a.core, second!.amount, second!.pre),
    ]);
    expect(await a.indexes('shielded')).toEqual([0, 1]);
  });
});
