// The pool node's read-only CORS for browser wallets: off unless configured; for the configured
// origins (or any, with '*') on its GET routes, errors included; never on POST /deposit; origins
// that are not plain http(s) origins are refused at start.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { buildPoolNode, parseCorsOrigins } from '../../src/pool-node/index.js';
import { type Devnet, OPERATOR_TOKEN, startDevnet } from './helpers/devnet.js';

const SHOP = 'https://shop.example';
let core: PrivStarkCore;
let devnet: Devnet;

beforeAll(async () => {
  core = await loadCore();
  devnet = await startDevnet(core, { checkpointIntervalMs: 600_000 });
});
afterAll(() => devnet?.close());

async function allowOrigin(
  corsOrigins: readonly string[] | '*' | undefined,
  method: 'GET' | 'POST',
  url: string,
  origin: string,
) {
  const node = await buildPoolNode({
    ledger: devnet.pool,
    operatorToken: OPERATOR_TOKEN,
    logger: false,
    ...(corsOrigins ? { corsOrigins } : {}),
  });
  try {
    const response = await node.inject({
      method,
      url,
      headers: {
        origin,
        ...(method === 'POST' ? { authorization: `Bearer ${OPERATOR_TOKEN}` } : {}),
      },
      ...(method === 'POST' ? { payload: {} } : {}),
    });
    return {
      status: response.statusCode,
      allow: response.headers['access-control-allow-origin'] ?? null,
      vary: response.headers.vary ?? null,
    };
  } finally {
    await node.close();
  }
}

describe('pool node CORS', () => {
  it('is off unless configured', async () => {
    expect(await allowOrigin(undefined, 'GET', '/state', SHOP)).toMatchObject({
      status: 200,
      allow: null,
    });
  });

  it('answers the configured origins on every read route, errors included, and no other origin', async () => {
    for (const url of [
      '/state',
      '/leaves?from=0',
      '/events?after=0',
      '/checkpoints?after=0',
      '/health',
      '/leaves?from=-1',
    ]) {
      expect(
        await allowOrigin([SHOP, 'http://127.0.0.1:8080'], 'GET', url, SHOP),
        url,
      ).toMatchObject({ allow: SHOP, vary: 'Origin' });
    }
    expect(await allowOrigin([SHOP], 'GET', '/state', 'https://evil.example')).toMatchObject({
      status: 200,
      allow: null,
      vary: 'Origin',
    });
    expect(
      await allowOrigin('*', 'GET', '/events?after=0', 'https://anyone.example'),
    ).toMatchObject({ status: 200, allow: '*' });
  });

  it('never answers the operator route', async () => {
    for (const origins of [[SHOP], '*'] as const)
      expect((await allowOrigin(origins, 'POST', '/deposit', SHOP)).allow).toBeNull();
  });

  it('refuses origins that are not plain http(s) origins', async () => {
    for (const bad of [
      'shop.example',
      'https://shop.example/',
      'https://shop.example/path',
      'ftp://shop.example',
      'null',
      '',
    ]) {
      await expect(
        buildPoolNode({
          ledger: devnet.pool,
          operatorToken: OPERATOR_TOKEN,
          logger: false,
          corsOrigins: [bad],
        }),
        bad,
      ).rejects.toThrow(RangeError);
    }
  });

  it("reads the operator's origin list (--pool-cors, POOL_CORS_ORIGINS), and the node refuses a bad entry in it", async () => {
    expect(parseCorsOrigins(undefined)).toBeUndefined();
    expect(parseCorsOrigins('  ')).toBeUndefined();
    expect(parseCorsOrigins(' * ')).toBe('*');
    expect(parseCorsOrigins('https://shop.example, http://127.0.0.1:8080,')).toEqual([
      'https://shop.example',
      'http://127.0.0.1:8080',
    ]);
    const origins = parseCorsOrigins('https://shop.example,https://shop.example/path');
    await expect(
      buildPoolNode({
        ledger: devnet.pool,
        operatorToken: OPERATOR_TOKEN,
        logger: false,
        corsOrigins: origins,
      }),
    ).rejects.toThrow(RangeError);
  });
});
