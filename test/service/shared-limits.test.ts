// The pieces a multi-process service shares its limits and writes with, without processes: the
// primary's fixed windows (counted across namespaces and keys, reset when a window ends, bounded),
// the rate-limit store the workers' plugins call (a child store per route), and the IPC calls
// (a reply per call; every open call refused when the channel closes).

import { EventEmitter } from 'node:events';

import Fastify from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { describe, expect, it } from 'vitest';

import { PoolUnavailableError } from '../../src/ledger/index.js';
import { sharedRateLimitStore } from '../../src/listener/shared-rate-limit.js';
import { IpcCaller, type IpcEnd, serveIpcCalls } from '../../src/service/ipc-calls.js';
import { RateWindows } from '../../src/service/rate-windows.js';
import { reusePortSupported } from '../../src/service/workers.js';

describe('RateWindows', () => {
  it('counts per namespace and key within a window, and starts again after it', () => {
    let now = 1_000;
    const windows = new RateWindows(100, () => now);
    expect(windows.count('a', 'k', 60_000)).toEqual({ current: 1, ttl: 60_000 });
    now += 10_000;
    expect(windows.count('a', 'k', 60_000)).toEqual({ current: 2, ttl: 50_000 });
    // must-fail twins: another key and another namespace have counts of their own
    expect(windows.count('a', 'other', 60_000).current).toBe(1);
    expect(windows.count('b', 'k', 60_000).current).toBe(1);
    now += 50_000;
    expect(windows.count('a', 'k', 60_000)).toEqual({ current: 1, ttl: 60_000 });
  });

  it('stays within its bound, dropping expired windows first, then the oldest', () => {
    let now = 0;
    const windows = new RateWindows(3, () => now);
    windows.count('n', 'short', 10);
    windows.count('n', 'long-1', 60_000);
    windows.count('n', 'long-2', 60_000);
    now = 20;
    windows.count('n', 'fresh', 60_000); // the expired "short" goes
    expect(windows.size).toBe(3);
    expect(windows.count('n', 'long-1', 60_000).current).toBe(2);
    windows.count('n', 'newest', 60_000); // full of live windows: the oldest (long-1) goes
    expect(windows.size).toBe(3);
    expect(windows.count('n', 'long-2', 60_000).current).toBe(2);
    expect(windows.count('n', 'long-1', 60_000).current).toBe(1);
  });
});

describe('sharedRateLimitStore', () => {
  it('refuses limit + 1 in one window across two listeners sharing the counts (must-fail: separate counts let it through)', async () => {
    const windows = new RateWindows();
    const count = async (namespace: string, key: string, ms: number) =>
      windows.count(namespace, key, ms);
    const listener = async (shared: boolean) => {
      const app = Fastify();
      await app.register(rateLimit, {
        max: 3,
        timeWindow: 60_000,
        keyGenerator: () => 'one-client',
        ...(shared ? { store: sharedRateLimitStore(count, 'test') } : {}),
      });
      app.get('/', async () => 'ok');
      return app;
    };
    const [a, b] = [await listener(true), await listener(true)];
    const statuses: number[] = [];
    for (const app of [a, b, a, b]) statuses.push((await app.inject('/')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);

    const [c, d] = [await listener(false), await listener(false)];
    const apart: number[] = [];
    for (const app of [c, d, c, d]) apart.push((await app.inject('/')).statusCode);
    expect(apart).toEqual([200, 200, 200, 200]);
    await Promise.all([a, b, c, d].map((app) => app.close()));
  });

  it('gives a route limited on its own a namespace of its own, and fails a request whose count fails', async () => {
    const seen: string[] = [];
    let fail = false;
    const store = sharedRateLimitStore(async (namespace, _key, ms) => {
      seen.push(namespace);
      if (fail) throw new PoolUnavailableError('the primary process is gone');
      return { current: 1, ttl: ms };
    }, 'node');
    const app = Fastify();
    await app.register(rateLimit, { max: 5, timeWindow: 60_000, store });
    app.get('/shared', async () => 'ok');
    app.get('/own', { config: { rateLimit: { max: 2, timeWindow: 60_000 } } }, async () => 'ok');
    await app.inject('/shared');
    await app.inject('/own');
    expect(seen).toEqual(['node', 'node|GET /own']);
    fail = true;
    expect((await app.inject('/shared')).statusCode).toBeGreaterThanOrEqual(500);
    await app.close();
  });
});

/** Two ends of an in-memory channel, as cluster's IPC would deliver (advanced serialization). */
function channel(): { worker: IpcEnd & EventEmitter; primary: IpcEnd & EventEmitter } {
  const worker = new EventEmitter() as IpcEnd & EventEmitter;
  const primary = new EventEmitter() as IpcEnd & EventEmitter;
  let open = true;
  const deliver =
    (to: EventEmitter) =>
    (message: unknown, _h: unknown, _o: unknown, cb: (e: Error | null) => void) => {
      if (!open) return cb(new Error('channel closed'));
      setImmediate(() => to.emit('message', structuredClone(message)));
      cb(null);
    };
  worker.send = deliver(primary);
  primary.send = deliver(worker);
  (worker as unknown as { close(): void }).close = () => {
    open = false;
    worker.emit('disconnect');
  };
  return { worker, primary };
}

describe('IPC calls', () => {
  it('answers each call with its own result, bytes intact; an error crosses as its message only', async () => {
    const { worker, primary } = channel();
    serveIpcCalls(primary, {
      echo: (bytes: Uint8Array) => bytes,
      add: (a: number, b: number) => a + b,
      fail: () => {
        throw Object.assign(new Error('no such row'), { detail: 'secret=1' });
      },
    });
    const caller = new IpcCaller(worker);
    const bytes = new Uint8Array([1, 2, 3]);
    const [echoed, sum] = await Promise.all([
      caller.call<Uint8Array>('echo', [bytes]),
      caller.call<number>('add', [2, 3]),
    ]);
    expect(echoed).toEqual(bytes);
    expect(sum).toBe(5);
    const failure = await caller.call('fail', []).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PoolUnavailableError);
    expect(failure).toMatchObject({ message: 'no such row' });
    expect(JSON.stringify(failure)).not.toContain('secret');
    await expect(caller.call('unknown', [])).rejects.toBeInstanceOf(PoolUnavailableError);
  });

  it('refuses every open call, and every later one, when the channel closes (must-fail: none resolves)', async () => {
    const { worker, primary } = channel();
    serveIpcCalls(primary, { never: () => new Promise(() => undefined) });
    const caller = new IpcCaller(worker);
    const open = caller.call('never', []);
    await new Promise((resolve) => setImmediate(resolve));
    expect(caller.waiting).toBe(1);
    (worker as unknown as { close(): void }).close();
    await expect(open).rejects.toBeInstanceOf(PoolUnavailableError);
    await expect(caller.call('never', [])).rejects.toBeInstanceOf(PoolUnavailableError);
    expect(caller.waiting).toBe(0);
  });
});

describe('reusePortSupported', () => {
  it('is true from Node 22.12 and 23.1, false before (Node 20 shares cluster handles)', () => {
    expect(['20.20.2', '22.11.0', '23.0.0'].map((v) => reusePortSupported(v))).toEqual([
      false,
      false,
      false,
    ]);
    expect(['22.12.0', '23.1.0', '24.21.0', '26.0.0'].map((v) => reusePortSupported(v))).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });
});
