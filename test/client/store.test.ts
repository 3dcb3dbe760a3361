// Where a wallet keeps itself: the stores behind one interface (memory here, the file in Node; the
// IndexedDB store runs in test/e2e/browser.test.ts), packed leaves, a torn leaves file cut back, a
// payment whose record cannot be written never leaving, and a wallet in a store opened again with
// the same notes, leaves and pending payment against a real pool node.

import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  FileWalletStore,
  MemoryWalletStore,
  Wallet,
  type WalletState,
  type WalletStore,
} from '../../src/client/index.js';
import { packLeaves, unpackLeaves } from '../../src/client/store.js';
import {
  type DigestHex,
  loadCore,
  type PrivStarkCore,
  randomDigest,
} from '../../src/core/index.js';
import { startDevnet } from './helpers/devnet.js';

let core: PrivStarkCore;
let dir: string;
beforeAll(async () => {
  core = await loadCore();
  dir = mkdtempSync(join(tmpdir(), 'priv-stark-stores-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const digest = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => `0x${Buffer.from(b).toString('hex')}` as DigestHex);

function state(): WalletState {
  return {
    version: 1,
    network: 'shielded:devnet',
    asset: 'dUSD',
    sk: randomDigest(),
    depositCounter: 0,
    depositGap: 0,
    notes: [],
    pending: [],
    eventCursor: 0,
    checkpointCursor: 0,
    checkpoint: null,
    poolTime: 0,
    syncedAt: 0,
  };
}

describe('wallet stores', () => {
  it('pack leaves as 32 bytes each and back (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(digest, { maxLength: 40 }), (leaves) => {
        const packed = packLeaves(leaves);
        expect(packed.length).toBe(leaves.length * 32);
        expect(unpackLeaves(packed)).toEqual(leaves);
        // A torn trailing leaf is ignored.
        expect(unpackLeaves(packed.subarray(0, Math.max(0, packed.length - 5)))).toEqual(
          leaves.slice(0, Math.max(0, leaves.length - 1)),
        );
      }),
    );
  });

  for (const [kind, make] of [
    ['memory', () => new MemoryWalletStore()],
    ['file', () => new FileWalletStore(join(dir, `${Math.random().toString(36).slice(2)}.wallet`))],
  ] as const) {
    it(`${kind}: create once, save, append leaves from any point, load`, async () => {
      const store: WalletStore = make();
      await expect(store.load()).rejects.toThrow();
      const first = state();
      await store.create(first);
      await expect(store.create(state())).rejects.toThrow(/already/);
      const leaves = Array.from({ length: 10 }, () => randomDigest());
      await store.appendLeaves(0, leaves.slice(0, 6));
      await store.appendLeaves(6, leaves.slice(6));
      await store.appendLeaves(8, leaves.slice(8)); // the same leaves again from 8: nothing doubled
      await store.save({ ...first, eventCursor: 7 });
      const loaded = await store.load();
      expect(loaded.state).toEqual({ ...first, eventCursor: 7 });
      expect(loaded.leaves).toEqual(leaves);
    });
  }

  it('file: a torn leaves file loads up to its last whole leaf and is cut back on the next append', async () => {
    const path = join(dir, 'torn.wallet');
    const store = new FileWalletStore(path);
    await store.create(state());
    const leaves = Array.from({ length: 3 }, () => randomDigest());
    await store.appendLeaves(0, leaves);
    truncateSync(`${path}.leaves`, 3 * 32 - 7);
    expect((await store.load()).leaves).toEqual(leaves.slice(0, 2));
    await store.appendLeaves(2, leaves.slice(2));
    expect((await store.load()).leaves).toEqual(leaves);
    writeFileSync(`${path}.leaves`, new Uint8Array(5), { mode: 0o600 });
    expect((await store.load()).leaves).toEqual([]);
  });

  it('a wallet in a store opens again with its notes, leaves and pending payment; a record that cannot be written never leaves', async () => {
    const devnet = await startDevnet(core, { checkpointIntervalMs: 600_000 });
    try {
      const store = new MemoryWalletStore('payer');
      const payer = await Wallet.create({ core, pool: devnet.nodeUrl, store });
      const ticket = await payer.depositTicket('70000');
      await devnet.operator.deposit(ticket.amount, ticket.pre);
      await devnet.checkpoint();
      await payer.sync();
      const to = (await Wallet.create({ core, pool: devnet.nodeUrl })).address;
      const requirements = {
        scheme: 'priv-stark/v1',
        network: 'shielded:devnet',
        asset: 'dUSD',
        amount: '1000',
        payTo: to,
        maxTimeoutSeconds: 300,
        extra: { resourceId: 'GET /a' },
      };

      // A store that refuses writes: the proof may be built, but no payload is handed out and
      // nothing stays pending.
      const failing = Object.assign(Object.create(store) as MemoryWalletStore, {
        save: () => Promise.reject(new Error('disk full')),
      });
      const broken = await Wallet.open({ core, pool: devnet.nodeUrl, store: failing });
      await expect(broken.createPayment(requirements)).rejects.toThrow('disk full');
      expect(broken.payments()).toEqual([]);
      expect(broken.balance().spendable).toBe(70_000n);

      const payload = await payer.createPayment(requirements);
      const reopened = await Wallet.open({ core, pool: devnet.nodeUrl, store });
      expect(reopened.address).toBe(payer.address);
      expect(reopened.leafCount).toBe(payer.leafCount);
      expect(reopened.payments()).toEqual([
        expect.objectContaining({
          nullifier: payload.nullifier,
          status: 'pending',
          changeValue: '69000',
        }),
      ]);
      expect(reopened.balance()).toEqual({
        spendable: 0n,
        pending: 70_000n,
        unconfirmed: 0n,
        total: 70_000n,
      });
      await expect(
        Wallet.open({ core, pool: devnet.nodeUrl, store: new MemoryWalletStore() }),
      ).rejects.toThrow(/holds no wallet/);
    } finally {
      await devnet.close();
    }
  });
});
