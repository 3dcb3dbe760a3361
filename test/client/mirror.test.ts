// The wallet reading the public log from a mirror (`poolMirror`) and writing to the pool node: it
// asks the mirror whole fixed pages only (no cursor), the pool node only for the checkpoints page
// that confirms its anchor; a forged page — leaves, a checkpoint, an event — fails the sync with
// PoolMismatchError and leaves the wallet as it was (no anchor taken, no unverified leaf kept),
// each beside its honest twin; a stale mirror leaves it on an older checkpoint the pool published.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { PoolMismatchError, PoolNodeClient, Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore, randomDigest } from '../../src/core/index.js';
import { type Devnet, startDevnet } from './helpers/devnet.js';
import { type Mirror, startMirror } from './helpers/mirror.js';

let core: PrivStarkCore;
let devnet: Devnet;
let mirror: Mirror;
let dir: string;

beforeAll(async () => {
  core = await loadCore();
  dir = mkdtempSync(join(tmpdir(), 'priv-stark-mirror-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await mirror?.close();
  await devnet?.close();
});

let walletCount = 0;

/** A fixed page or the head: nothing that names where one wallet stands. */
const PAGE_URL = /^\/(state|(leaves|events|checkpoints)\?page=\d+)$/;

/** A wallet reading through the mirror, with the requests it made to the pool node itself. */
async function mirroredWallet(sk?: `0x${string}`) {
  const toNode: string[] = [];
  const path = join(dir, `w${walletCount++}.wallet`);
  const wallet = await Wallet.create({
    core,
    pool: devnet.nodeUrl,
    poolMirror: mirror.url,
    path,
    ...(sk ? { sk } : {}),
    handOverFetch: (input, init) => {
      const url = new URL(String(input));
      toNode.push(`${url.pathname}${url.search}`);
      return fetch(input, init);
    },
  });
  return { wallet, toNode, path };
}

/** Deposits `amount` to the wallet's next ticket through the operator. */
async function fund(wallet: Wallet, amount: string): Promise<void> {
  const ticket = await wallet.depositTicket(amount);
  await devnet.operator.deposit(ticket.amount, ticket.pre);
}

/** Two of ours and one of a stranger, then a checkpoint. */
async function fundedPool(wallet: Wallet): Promise<void> {
  await fund(wallet, '5000');
  await fund(await Wallet.create({ core, pool: devnet.nodeUrl }), '77');
  await fund(wallet, '900');
  await devnet.checkpoint();
}

async function start(): Promise<void> {
  devnet = await startDevnet(core, { checkpointIntervalMs: 600_000 });
  mirror = await startMirror(devnet.nodeUrl);
}

describe('a wallet reading a mirror', () => {
  it('reads whole pages from the mirror, asks the pool node only to confirm its anchor, writes there', async () => {
    await start();
    const { wallet, toNode } = await mirroredWallet();
    await fundedPool(wallet);
    await wallet.sync();
    const published = (await devnet.operator.state()).checkpoint;
    expect(wallet.checkpoint).toEqual(published);
    expect(wallet.balance()).toMatchObject({ spendable: 5900n, unconfirmed: 0n });
    expect(mirror.asked).toEqual(['/state', '/leaves?page=0', '/events?page=0']);
    expect(toNode).toEqual(['/checkpoints?page=0']);
    // Current: the mirror's head only, nothing of the pool node.
    await wallet.sync();
    expect(mirror.asked.slice(3)).toEqual(['/state']);
    expect(toNode).toHaveLength(1);
    // The writes still go to the pool node: a split settles there and the mirror shows it.
    const big = wallet.notes().find((n) => n.value === '5000')!;
    await wallet.splitNote(big.commitment, 1000n);
    await devnet.checkpoint();
    await wallet.sync();
    expect(wallet.balance().spendable).toBe(5900n);
    expect(wallet.notes().filter((n) => !n.spent)).toHaveLength(3);
    for (const url of mirror.asked) expect(url).toMatch(PAGE_URL);
    expect(toNode.filter((url) => url.startsWith('/transfers'))).toHaveLength(1);
  });

  it('refuses a forged leaf, keeping none of the leaves it brought (twin: the honest page)', async () => {
    await start();
    const { wallet, path } = await mirroredWallet();
    await fundedPool(wallet);
    mirror.forge = (url, body) => {
      if (!url.startsWith('/leaves')) return body;
      const page = body as { leaves: string[] };
      return { ...page, leaves: page.leaves.map((leaf, i) => (i === 1 ? randomDigest() : leaf)) };
    };
    await expect(wallet.sync()).rejects.toBeInstanceOf(PoolMismatchError);
    expect(wallet.checkpoint).toBeNull();
    expect(wallet.leafCount).toBe(0);
    expect(statSync(`${path}.leaves`).size).toBe(0);
    expect(wallet.balance().total).toBe(0n);
    expect(mirror.asked.some((url) => url.startsWith('/events'))).toBe(false);
    // Twin: the same mirror serving the pool's own page.
    mirror.forge = null;
    await wallet.sync();
    expect(wallet.leafCount).toBe(3);
    expect(wallet.balance().spendable).toBe(5900n);
    const reopened = await Wallet.open({ core, pool: devnet.nodeUrl, path });
    expect(reopened.balance().spendable).toBe(5900n);
  });

  it('refuses a checkpoint the pool node did not publish before reading a page (twin: its own)', async () => {
    await start();
    const { wallet } = await mirroredWallet();
    await fundedPool(wallet);
    const forgedRoot = randomDigest();
    mirror.forge = (url, body) => {
      if (url !== '/state') return body;
      const head = body as { root: string; checkpoint: { root: string } };
      return { ...head, root: forgedRoot, checkpoint: { ...head.checkpoint, root: forgedRoot } };
    };
    await expect(wallet.sync()).rejects.toThrow(/not the pool node's/);
    expect(mirror.asked).toEqual(['/state']);
    expect(wallet.checkpoint).toBeNull();
    mirror.forge = null;
    await wallet.sync();
    expect(wallet.checkpoint?.root).toBe((await devnet.operator.state()).root);
  });

  it('refuses an event naming a leaf the tree does not hold; takes no anchor (twin: the honest event)', async () => {
    await start();
    const { wallet } = await mirroredWallet();
    await fundedPool(wallet);
    mirror.forge = (url, body) => {
      if (!url.startsWith('/events')) return body;
      const page = body as { events: { commitment?: string }[] };
      return {
        ...page,
        events: page.events.map((event, i) =>
          i === 2 ? { ...event, commitment: randomDigest() } : event,
        ),
      };
    };
    await expect(wallet.sync()).rejects.toThrow(/names a leaf/);
    expect(wallet.checkpoint).toBeNull();
    expect(wallet.balance().spendable).toBe(0n);
    mirror.forge = null;
    await wallet.sync();
    expect(wallet.balance().spendable).toBe(5900n);
  });

  it('behind a stale mirror, anchors to the older checkpoint the pool published, then catches up', async () => {
    await start();
    const { wallet } = await mirroredWallet();
    await fundedPool(wallet);
    // The mirror keeps what it served first and serves it again.
    const kept = new Map<string, unknown>();
    mirror.forge = (url, body) => {
      if (!kept.has(url)) kept.set(url, body);
      return kept.get(url);
    };
    await wallet.sync();
    const first = wallet.checkpoint;
    await fund(wallet, '40');
    await devnet.checkpoint();
    await wallet.sync();
    expect(wallet.checkpoint).toEqual(first);
    const restored = await mirroredWallet(wallet.spendingKey);
    await restored.wallet.sync();
    expect(restored.wallet.checkpoint).toEqual(first);
    expect(restored.wallet.balance().spendable).toBe(5900n);
    mirror.forge = null;
    await wallet.sync();
    expect(wallet.checkpoint?.seq).toBe(2);
    expect(wallet.balance().spendable).toBe(5940n);
  });
});

describe('a wallet reading the pool node', () => {
  it('asks fixed pages only, whatever its cursors', async () => {
    devnet = await startDevnet(core, { checkpointIntervalMs: 600_000 });
    mirror = await startMirror(devnet.nodeUrl);
    const asked: string[] = [];
    const reader = new PoolNodeClient(devnet.nodeUrl, {
      fetch: (input, init) => {
        const url = new URL(String(input));
        asked.push(`${url.pathname}${url.search}`);
        return fetch(input, init);
      },
    });
    const wallet = await Wallet.create({ core, pool: reader });
    await fundedPool(wallet);
    await wallet.sync();
    await fund(wallet, '1');
    await devnet.checkpoint();
    await wallet.sync();
    expect(asked.filter((url) => url !== '/state')).toEqual([
      '/leaves?page=0',
      '/events?page=0',
      '/checkpoints?page=0',
      '/leaves?page=0',
      '/events?page=0',
      '/checkpoints?page=0',
    ]);
    expect(wallet.balance().spendable).toBe(5901n);
  });
});
