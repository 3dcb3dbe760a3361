// Auth and access configuration: keys from API_KEYS and the CONFIG file (SHA-256 hashes with
// policies), checked before any parsing; auth off only on loopback; secrets never in logs.

import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';

import { afterEach, describe, expect, it } from 'vitest';

import {
  ApiKeys,
  bearerToken,
  ConfigError,
  hashKey,
  isLoopbackHost,
  keysFromList,
  loadAccessConfig,
  parseConfig,
} from '../../src/http/index.js';
import { encodeProof } from '../../src/scheme/index.js';
import { SERVICE_DEFAULTS, startService } from '../../src/service/index.js';
import { API_KEY, AUTH, facilitatorHarness } from './helpers/harness.js';
import { startFacilitatorProcess } from './helpers/process.js';
import { liveSpec, requestOf } from './helpers/requests.js';
import { scratchDir } from '../scratch-dir.js';

describe('API keys', () => {
  it('finds a key by its SHA-256 hash and nothing else', () => {
    const keys = new ApiKeys([
      { id: 'a', sha256: hashKey('key-a-0123456789abcdef'), policy: {} },
      { id: 'b', sha256: hashKey('key-b-0123456789abcdef'), policy: { maxAmount: 5n } },
    ]);
    expect(keys.find('key-b-0123456789abcdef')).toEqual({ id: 'b', policy: { maxAmount: 5n } });
    expect(keys.find('key-a-0123456789abcdef')?.id).toBe('a');
    for (const wrong of [
      '',
      'key-a',
      'key-a-0123456789abcdeF',
      'key-a-0123456789abcdef ',
      hashKey('key-a-0123456789abcdef').toString('hex'),
    ]) {
      expect(keys.find(wrong)).toBeNull();
    }
    expect(() => new ApiKeys([{ id: 'x', sha256: Buffer.alloc(31), policy: {} }])).toThrow(
      RangeError,
    );
  });

  it('reads only a well-formed Bearer header', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    for (const bad of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'bearer abc',
      'Bearer a b',
      'Bearer\tabc',
      `Bearer ${'a'.repeat(513)}`,
      'Bearer é',
    ]) {
      expect(bearerToken(bad)).toBeNull();
    }
  });

  it('loads API_KEYS (hashed, at least 16 characters) and CONFIG keys with policies and a default rate limit', () => {
    const ids = keysFromList(' first-key-0123456789 , ,second-key-0123456789').map((k) => k.id);
    expect(ids).toEqual([
      `env-${hashKey('first-key-0123456789').toString('hex').slice(0, 16)}`,
      `env-${hashKey('second-key-0123456789').toString('hex').slice(0, 16)}`,
    ]);
    // The label follows the key, not its position (it keys the shared rate-limit counters).
    expect(keysFromList('second-key-0123456789,first-key-0123456789').map((k) => k.id)).toEqual(
      [...ids].reverse(),
    );
    expect(() => keysFromList('short')).toThrow(ConfigError);
    const dir = scratchDir('priv-stark-config-');
    const path = join(dir, 'config.json');
    writeFileSync(
      path,
      JSON.stringify({
        keys: [
          {
            id: 'shop-a',
            sha256: hashKey('shop-a-key-0123456789').toString('hex'),
            policy: { allowedRecipients: ['pstark1x'], maxAmount: '5000' },
          },
          {
            id: 'shop-b',
            sha256: hashKey('shop-b-key-0123456789').toString('hex'),
            policy: { rateLimit: { max: 5, timeWindowMs: 1000 } },
          },
        ],
        limits: { rateLimit: { max: 100, timeWindowMs: 60_000 } },
        networks: [{ network: 'shielded:devnet', asset: 'dUSD', decimals: 6 }],
      }),
    );
    const access = loadAccessConfig({ configPath: path, apiKeys: 'env-key-0123456789abc' });
    const keys = new ApiKeys(access.keys);
    expect(keys.find('shop-a-key-0123456789')).toEqual({
      id: 'shop-a',
      policy: {
        allowedRecipients: ['pstark1x'],
        maxAmount: 5000n,
        rateLimit: { max: 100, timeWindowMs: 60_000 },
      },
    });
    expect(keys.find('shop-b-key-0123456789')?.policy.rateLimit).toEqual({
      max: 5,
      timeWindowMs: 1000,
    });
    expect(keys.find('env-key-0123456789abc')?.policy.rateLimit).toEqual({
      max: 100,
      timeWindowMs: 60_000,
    });
    expect(access.networks).toEqual([{ network: 'shielded:devnet', asset: 'dUSD', decimals: 6 }]);
  });

  it('refuses a bad CONFIG with a message that names the field, never the key', () => {
    const bad = [
      'not json',
      '{"keys":[{"id":"a","sha256":"zz"}]}',
      `{"keys":[{"id":"a","sha256":"${'a'.repeat(64)}","key":"secret-value"}]}`,
      `{"keys":[{"id":"a","sha256":"${'a'.repeat(64)}","policy":{"maxAmount":"-1"}}]}`,
      `{"keys":[{"id":"a","sha256":"${'a'.repeat(64)}"},{"id":"a","sha256":"${'b'.repeat(64)}"}]}`,
      '{"unknown":1}',
    ];
    for (const text of bad) {
      expect(() => parseConfig(text)).toThrow(ConfigError);
      try {
        parseConfig(text);
      } catch (error) {
        expect((error as Error).message).not.toContain('secret-value');
      }
    }
    expect(() =>
      loadAccessConfig({ configPath: join(tmpdir(), 'no-such-priv-stark-config.json') }),
    ).toThrow(ConfigError);
  });
});

describe("the service's safety rules", () => {
  it('refuses --insecure-no-auth unless the listener is loopback', async () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('::1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.2', 'example.com', '128.0.0.1'])
      expect(isLoopbackHost(host)).toBe(false);
    await expect(
      startService({ ...SERVICE_DEFAULTS, insecureNoAuth: true, host: '0.0.0.0' }),
    ).rejects.toThrow(/loopback/);
  });
});

describe('auth off on loopback, in a real process', () => {
  const post = (url: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{}',
    });

  it('warns in the log and serves without a key; the twin with keys does not warn and answers 401', async () => {
    const off = await startFacilitatorProcess([
      '--insecure-no-auth',
      '--data-dir',
      scratchDir('priv-stark-noauth-'),
    ]);
    try {
      const warning = off
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .find((line) => /auth is OFF/.test(line.msg));
      expect(warning?.level).toBe(40); // pino's warn
      const response = await post(off.url);
      expect(response.status).toBe(400); // reached the route: the body is refused, not the caller
      expect(await response.json()).toMatchObject({
        isValid: false,
        invalidReason: 'invalid_payload',
      });
    } finally {
      off.process.kill('SIGTERM');
      await off.exited;
    }
    const on = await startFacilitatorProcess(['--data-dir', scratchDir('priv-stark-auth-')], {
      API_KEYS: API_KEY,
    });
    try {
      expect(on.output()).not.toMatch(/auth is OFF/);
      expect((await post(on.url)).status).toBe(401);
      expect((await post(on.url, AUTH)).status).toBe(400);
    } finally {
      on.process.kill('SIGTERM');
      await on.exited;
    }
  }, 120_000);
});

/** A log destination that keeps every line written to it. */
function logCapture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { lines, stream };
}

describe('auth on the listener', () => {
  const SPEC = liveSpec('http-auth', 2, 1);
  const h = facilitatorHarness('sqlite', SPEC);
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('answers 401 before reading the body: no 413, 400 or 404-by-parsing for anonymous junk', async () => {
    const { app } = await h.app();
    closers.push(() => app.close());
    for (const payload of ['x'.repeat(700 * 1024), '{not json', '']) {
      const response = await app.inject({
        method: 'POST',
        url: '/settle',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().errorReason).toBe('unauthorized');
    }
  });

  it('with auth off (loopback only) every caller is served, without a policy', async () => {
    const { app } = await h.app({ auth: { mode: 'off' } });
    closers.push(() => app.close());
    const response = await app.inject({
      method: 'POST',
      url: '/verify',
      payload: requestOf(h.fixtures().payments[0]!),
    });
    expect(response.statusCode).toBe(200);
  });

  it('logs one line per reply with the request id and reason, and never the key or the proof', async () => {
    const { lines, stream } = logCapture();
    const { app } = await h.app({ build: { logger: { level: 'info', stream } } });
    closers.push(() => app.close());
    const p = h.fixtures().payments[0]!;
    const ok = await app.inject({
      method: 'POST',
      url: '/verify',
      headers: AUTH,
      payload: requestOf(p),
    });
    await app.inject({
      method: 'POST',
      url: '/settle',
      headers: { authorization: 'Bearer wrong-key-0123456789' },
      payload: requestOf(p),
    });
    await app.inject({
      method: 'POST',
      url: `/settle?key=${API_KEY}`,
      headers: AUTH,
      payload: '{bad',
    });
    const log = lines.join('');
    const replies = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'reply');
    expect(replies).toHaveLength(3);
    expect(replies[0]).toMatchObject({
      reqId: ok.headers['x-request-id'],
      route: '/verify',
      status: 200,
    });
    expect(replies[1]).toMatchObject({ route: '/settle', status: 401, reason: 'unauthorized' });
    expect(replies[2]).toMatchObject({ status: 400, reason: 'invalid_payload' });
    expect(log).not.toContain(API_KEY);
    expect(log).not.toContain('wrong-key');
    expect(log).not.toContain(encodeProof(p.proof).slice(0, 40));
    expect(log).not.toContain(p.publicInputs.nullifier);
  });

  it('logs a fault with its type, code and message, never the request data a driver error carries', async () => {
    const { lines, stream } = logCapture();
    const { app, pool } = await h.app({ build: { logger: { level: 'info', stream } } });
    closers.push(() => app.close());
    const p = h.fixtures().payments[0]!;
    // Shaped like node-postgres's error for a violated constraint: the values are in `detail`.
    const driverError = Object.assign(
      new Error('duplicate key value violates unique constraint "nullifiers_pkey"'),
      {
        code: '23505',
        detail: `Key (nullifier)=(${p.publicInputs.nullifier}) already exists.`,
        table: 'nullifiers',
      },
    );
    pool.spent = async () => {
      throw new Error('unexpected store answer', { cause: driverError });
    };
    const response = await app.inject({
      method: 'POST',
      url: '/verify',
      headers: AUTH,
      payload: requestOf(p),
    });
    expect(response.statusCode).toBe(500);
    const fault = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed');
    expect(fault.err).toMatchObject({
      type: 'Error',
      message: 'unexpected store answer',
      cause: { code: '23505', message: driverError.message },
    });
    expect(lines.join('')).not.toContain(p.publicInputs.nullifier);
    expect(lines.join('')).not.toContain('detail');
  });
});
