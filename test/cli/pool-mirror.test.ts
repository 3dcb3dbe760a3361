// `--pool-mirror URL` / PRIV_STARK_POOL_MIRROR on the wallet commands (the same `walletCommand`
// main.ts runs, in this process): the flag wins over the environment, empty means none; a sync
// through the mirror reads the public log there — whole pages, no cursor — and asks the pool node
// nothing of it (twin: without the flag the mirror sees nothing).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { walletCommand, walletLocation } from '../../src/cli/wallet.js';
import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { Ledger, openStore, type PoolStore } from '../../src/ledger/index.js';
import { buildPoolNode } from '../../src/pool-node/index.js';
import { MIRRORED, type Mirror, startMirror } from '../client/helpers/mirror.js';

let core: PrivStarkCore;
let dir: string;
let store: PoolStore;
let ledger: Ledger;
let app: FastifyInstance;
let nodeUrl: string;
const atNode: string[] = [];

beforeAll(async () => {
  core = await loadCore();
  dir = mkdtempSync(join(tmpdir(), 'priv-stark-cli-mirror-'));
  store = await openStore(core, { dataDir: join(dir, 'pool') });
  ledger = new Ledger({ core, store, checkpointIntervalMs: 600_000 });
  app = await buildPoolNode({ ledger, operatorToken: 'operator-token-0123456789', logger: false });
  // What reaches the node from the wallet itself (the mirror's own reads carry its header).
  app.addHook('onRequest', async (request) => {
    if (request.headers[MIRRORED] === undefined) atNode.push(request.url);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  nodeUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await app.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await walletCommand(
    args,
    { out: (l) => out.push(l), err: (l) => err.push(l) },
    { POOL_URL: nodeUrl, ...env },
  );
  return { status, out: out.join('\n'), err: err.join('\n') };
}

describe('--pool-mirror', () => {
  it('is read from the flag, then PRIV_STARK_POOL_MIRROR; empty means none', () => {
    const env = { PRIV_STARK_POOL_MIRROR: 'http://mirror.example' };
    expect(walletLocation({}, env).poolMirror).toBe('http://mirror.example');
    expect(walletLocation({ 'pool-mirror': 'http://flag.example' }, env).poolMirror).toBe(
      'http://flag.example',
    );
    expect(walletLocation({}, { PRIV_STARK_POOL_MIRROR: '' }).poolMirror).toBeUndefined();
    expect(walletLocation({}, {}).poolMirror).toBeUndefined();
  });

  it('syncs `wallet sync` through the mirror, the pool node asked only for the anchor', async () => {
    let mirror: Mirror | undefined;
    try {
      mirror = await startMirror(nodeUrl);
      const path = join(dir, 'payer.wallet');
      expect((await run(['new', '--wallet', path], {})).status).toBe(0);
      const wallet = await Wallet.open({ core, pool: nodeUrl, path });
      const ticket = await wallet.depositTicket('4200');
      expect((await ledger.deposit({ amount: ticket.amount, pre: ticket.pre })).ok).toBe(true);
      await ledger.checkpoint();

      // Twin first: without the flag, the mirror is not asked.
      const direct = join(dir, 'direct.wallet');
      expect((await run(['new', '--wallet', direct], {})).status).toBe(0);
      expect((await run(['sync', '--wallet', direct], {})).status).toBe(0);
      expect(mirror.asked).toEqual([]);

      atNode.length = 0;
      const synced = await run(['sync', '--wallet', path, '--pool-mirror', mirror.url], {});
      expect(synced.status, synced.err).toBe(0);
      expect(mirror.asked).toEqual(['/state', '/leaves?page=0', '/events?page=0']);
      expect(atNode).toEqual(['/checkpoints?page=0']);
      // The environment names it too: a current wallet asks the mirror's head only.
      atNode.length = 0;
      const balance = await run(['balance', '--wallet', path], {
        PRIV_STARK_POOL_MIRROR: mirror.url,
      });
      expect(balance.out).toMatch(/^spendable .*\(4200 atomic\)$/m);
      expect(mirror.asked.slice(3)).toEqual(['/state']);
      expect(atNode).toEqual([]);
    } finally {
      await mirror?.close();
    }
  });
});
