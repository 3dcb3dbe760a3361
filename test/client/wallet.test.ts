// The wallet against a real devnet pool node on loopback: deposits found by sync, payments recorded
// as pending before they leave and resolved only from the pool's log (a settlement, or the pool's
// clock passing the expiry), change and received notes, recovery from the key alone, the file's
// mode, and the errors for missing funds or a wallet behind the pool.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  InsufficientFundsError,
  PoolMismatchError,
  PoolNodeClient,
  UnpayableRequirementsError,
  Wallet,
  WalletBehindError,
} from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import type { Ledger } from '../../src/ledger/index.js';
import {
  decodeProof,
  paymentContext,
  type PaymentRequirements,
  type PrivStarkPayload,
  publicInputs,
} from '../../src/scheme/index.js';
import { type Devnet, startDevnet } from './helpers/devnet.js';

let core: PrivStarkCore;
let devnet: Devnet;
let dir: string;

beforeAll(async () => {
  core = await loadCore();
  dir = mkdtempSync(join(tmpdir(), 'priv-stark-wallets-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await devnet?.close();
});

let walletCount = 0;
const walletPath = () => join(dir, `w${walletCount++}.wallet`);

async function fund(wallet: Wallet, amount: string): Promise<void> {
  const ticket = await wallet.depositTicket(amount);
  await devnet.operator.deposit(ticket.amount, ticket.pre);
}

function requirements(
  payTo: string,
  amount: string,
  resourceId = 'GET /paid',
): PaymentRequirements {
  return {
    scheme: 'priv-stark/v1',
    network: 'shielded:devnet',
    asset: 'dUSD',
    amount,
    payTo,
    maxTimeoutSeconds: 300,
    extra: { resourceId },
  };
}

/** Settles a payload straight through the pool (what the facilitator's settle ends in). */
async function settle(pool: Ledger, req: PaymentRequirements, payload: PrivStarkPayload) {
  const proof = decodeProof(payload.proof ?? '');
  if (!proof.ok) throw new Error('bad proof encoding');
  const payment = paymentContext(req, payload.expiry);
  return pool.settle({
    proof: proof.bytes,
    publicInputs: publicInputs(payload, core.contextDigest(payment)),
    payment,
  });
}

describe('wallet', () => {
  it('finds deposits, pays once with the smallest covering note, resolves from the log, and is recovered from its key', async () => {
    devnet = await startDevnet(core, { checkpointIntervalMs: 600_000 });
    const payer = await Wallet.create({ core, pool: devnet.nodeUrl, path: walletPath() });
    const merchant = await Wallet.create({ core, pool: devnet.nodeUrl, path: walletPath() });
    expect(statSync(payer.path!).mode & 0o777).toBe(0o600);
    expect(payer.address).toMatch(/^pstark1/);

    await expect(payer.createPayment(requirements(merchant.address, '10'))).rejects.toBeInstanceOf(
      WalletBehindError,
    );
    await fund(payer, '500000');
    await fund(payer, '70000');
    // A deposit to someone else is not ours.
    const stranger = await Wallet.create({ core, pool: devnet.nodeUrl });
    await fund(stranger, '999');
    await payer.sync();
    // No checkpoint covers the deposits yet: the public log shows nothing of them (it publishes
    // what a checkpoint covers, no earlier), so nothing is spendable — nor even unconfirmed.
    expect(payer.balance()).toMatchObject({ unconfirmed: 0n, spendable: 0n });
    await expect(
      payer.createPayment(requirements(merchant.address, '10000')),
    ).rejects.toBeInstanceOf(WalletBehindError);
    await devnet.checkpoint();
    await payer.sync();
    expect(payer.balance()).toEqual({
      spendable: 570000n,
      pending: 0n,
      unconfirmed: 0n,
      total: 570000n,
    });

    const req = requirements(merchant.address, '10000');
    const payload = await payer.createPayment(req);
    expect(payload.expiry % 60).toBe(0);
    // Recorded before it left; the note (the 70000 one, the smallest that covers) is locked.
    const reopened = await Wallet.open({ core, pool: devnet.nodeUrl, path: payer.path! });
    expect(reopened.payments()).toMatchObject([
      { nullifier: payload.nullifier, status: 'pending', amount: '10000', changeValue: '60000' },
    ]);
    expect(payer.balance()).toMatchObject({ spendable: 500000n, pending: 70000n });

    // Nothing happens on the merchant's word: only the pool's log moves money.
    await payer.sync();
    expect(payer.payments()[0]!.status).toBe('pending');
    const settled = await settle(devnet.pool, req, payload);
    expect(settled.ok).toBe(true);
    await devnet.checkpoint();
    await payer.sync();
    await merchant.sync();
    expect(payer.payments()[0]).toMatchObject({
      status: 'settled',
      settlementId: settled.ok ? settled.settlementId : '',
    });
    expect(payer.balance()).toEqual({
      spendable: 560000n,
      pending: 0n,
      unconfirmed: 0n,
      total: 560000n,
    });
    expect(merchant.balance().spendable).toBe(10000n);
    expect(merchant.notes()).toMatchObject([{ origin: 'received', value: '10000' }]);

    // The merchant spends what it received; the payer spends its change.
    const third = await Wallet.create({ core, pool: devnet.nodeUrl });
    const onward = requirements(third.address, '2500', 'GET /other');
    expect((await settle(devnet.pool, onward, await merchant.createPayment(onward))).ok).toBe(true);
    const fromChange = requirements(merchant.address, '60000');
    expect((await settle(devnet.pool, fromChange, await payer.createPayment(fromChange))).ok).toBe(
      true,
    );
    await devnet.checkpoint();
    for (const w of [payer, merchant, third]) await w.sync();
    expect(merchant.balance().total).toBe(10000n - 2500n + 60000n);
    expect(third.balance().total).toBe(2500n);
    expect(payer.balance().total).toBe(500000n);

    // Recovery from the key and the public log alone.
    for (const w of [payer, merchant, third]) {
      const restored = await Wallet.create({ core, pool: devnet.nodeUrl, sk: w.spendingKey });
      await restored.sync();
      expect(restored.balance()).toEqual(w.balance());
      expect(
        restored
          .notes()
          .map((n) => n.commitment)
          .sort(),
      ).toEqual(
        w
          .notes()
          .map((n) => n.commitment)
          .sort(),
      );
    }
  });

  it('says clearly when funds are missing or the requirements are not payable', async () => {
    devnet = await startDevnet(core);
    const payer = await Wallet.create({ core, pool: devnet.nodeUrl });
    await fund(payer, '3000');
    await fund(payer, '4000');
    await devnet.checkpoint();
    await payer.sync();
    const to = (await Wallet.create({ core, pool: devnet.nodeUrl })).address;
    const many = await payer.createPayment(requirements(to, '5000')).catch((e: unknown) => e);
    expect(many).toBeInstanceOf(InsufficientFundsError);
    expect(many).toMatchObject({
      code: 'insufficient_funds',
      needed: 5000n,
      spendable: 7000n,
      largestNote: 4000n,
    });
    expect((many as Error).message).toMatch(/one note/);
    const none = await payer.createPayment(requirements(to, '8000')).catch((e: unknown) => e);
    expect(none).toMatchObject({ needed: 8000n, spendable: 7000n });
    expect((none as Error).message).toMatch(/needs 8000 atomic units, the wallet can spend 7000/);
    await expect(
      payer.createPayment({ ...requirements(to, '10'), asset: 'USDC' }),
    ).rejects.toBeInstanceOf(UnpayableRequirementsError);
    await expect(
      payer.createPayment({ ...requirements(to, '10'), network: 'shielded:other' }),
    ).rejects.toBeInstanceOf(UnpayableRequirementsError);
    await expect(
      payer.createPayment({ ...requirements(to, '10'), payTo: 'pstark1nope' }),
    ).rejects.toBeInstanceOf(UnpayableRequirementsError);
    await expect(payer.createPayment(requirements(to, '10'), { maxAmount: 9n })).rejects.toThrow(
      /spend cap/,
    );
    // A merchant's requirements naming the pool's transfer context are refused; its twin, the
    // same requirements with a route of their own, is paid below.
    await expect(
      payer.createPayment({
        ...requirements(to, '10'),
        extra: { resourceId: 'priv-stark:pool-transfer' },
      }),
    ).rejects.toThrow(/transfer context/);
    // A locked note is not spent twice by the wallet: the second payment takes the other note.
    const a = await payer.createPayment(requirements(to, '3500'));
    await expect(payer.createPayment(requirements(to, '3500'))).rejects.toBeInstanceOf(
      InsufficientFundsError,
    );
    const b = await payer.createPayment(requirements(to, '2000'));
    expect(a.nullifier).not.toBe(b.nullifier);
  });

  it("releases a pending payment once the pool's clock has passed its expiry without a settlement", async () => {
    let now = Date.now();
    devnet = await startDevnet(core, { clock: () => now });
    const payer = await Wallet.create({ core, pool: devnet.nodeUrl, clock: () => now });
    await fund(payer, '9000');
    await devnet.checkpoint();
    await payer.sync();
    const to = (await Wallet.create({ core, pool: devnet.nodeUrl })).address;
    const req = { ...requirements(to, '1000'), maxTimeoutSeconds: 60 };
    const payload = await payer.createPayment(req);
    expect(payer.balance().pending).toBe(9000n);
    // The pool's clock moves past the expiry; its next event carries that time.
    now = payload.expiry * 1000 + 10_000;
    await payer.sync();
    // Nothing newer from the pool yet: still pending (the wallet's clock alone is not enough).
    expect(payer.payments()[0]!.status).toBe('pending');
    await fund(await Wallet.create({ core, pool: devnet.nodeUrl }), '1');
    await devnet.checkpoint();
    await payer.sync();
    expect(payer.payments()[0]!.status).toBe('expired');
    expect(payer.balance().spendable).toBe(9000n);
    // And the pool refuses the late payload by its own clock.
    const late = await settle(devnet.pool, req, payload);
    expect(late).toMatchObject({ ok: false, reason: 'payment_expired' });
  });

  it('refuses a pool node that does not continue what the wallet read', async () => {
    devnet = await startDevnet(core);
    const path = walletPath();
    const payer = await Wallet.create({ core, pool: devnet.nodeUrl, path });
    await fund(payer, '100');
    await devnet.checkpoint();
    await payer.sync();
    await devnet.close();
    devnet = await startDevnet(core);
    const reopened = await Wallet.open({ core, pool: devnet.nodeUrl, path });
    await expect(reopened.sync()).rejects.toBeInstanceOf(PoolMismatchError);
  });
});

describe('wallet sync ordering', () => {
  it('keeps a checkpoint published after its leaves were read for the next sync', async () => {
    devnet = await startDevnet(core, { checkpointIntervalMs: 600_000 });
    const payer = await Wallet.create({ core, pool: devnet.nodeUrl });
    await fund(payer, '1000');
    // A reader that publishes a checkpoint right after the head of one sync was read (the pages
    // are read up to that head: the leaves are read no further than it).
    const reader = payer.poolNode;
    const head = reader.state.bind(reader);
    let publish = true;
    reader.state = async () => {
      const read = await head();
      if (publish) {
        publish = false;
        await fund(await Wallet.create({ core, pool: devnet.nodeUrl }), '5');
        await devnet.checkpoint();
      }
      return read;
    };
    await payer.sync();
    // The checkpoint covers a leaf the wallet had not read: not taken yet, not skipped either.
    expect(payer.checkpoint).toBeNull();
    await payer.sync();
    expect(payer.checkpoint).toMatchObject({ seq: 1, size: 2 });
    expect(payer.balance().spendable).toBe(1000n);
  });
});

describe('wallet file', () => {
  it('is created with mode 0600, never overwritten, and refused when others can read it', async () => {
    devnet = await startDevnet(core, { checkpointIntervalMs: 600_000 });
    const path = walletPath();
    const wallet = await Wallet.create({ core, pool: devnet.nodeUrl, path });
    await fund(wallet, '700');
    await devnet.checkpoint();
    await wallet.sync();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}.leaves`).size).toBe(32);
    await expect(Wallet.create({ core, pool: devnet.nodeUrl, path })).rejects.toThrow(
      /already exists/,
    );
    const { chmodSync } = await import('node:fs');
    chmodSync(path, 0o644);
    await expect(Wallet.open({ core, pool: devnet.nodeUrl, path })).rejects.toThrow(
      /readable by others/,
    );
    chmodSync(path, 0o600);
    const reopened = await Wallet.open({ core, pool: devnet.nodeUrl, path });
    expect(reopened.address).toBe(wallet.address);
    expect(reopened.leafCount).toBe(1);
    expect(reopened.balance()).toEqual(wallet.balance());
  });
});

describe('wallet sync when current', () => {
  it('asks the node for its head only, and writes nothing', async () => {
    devnet = await startDevnet(core, { checkpointIntervalMs: 600_000 });
    const asked: string[] = [];
    const reader = new PoolNodeClient(devnet.nodeUrl, {
      fetch: (input, init) => {
        asked.push(new URL(String(input)).pathname);
        return fetch(input, init);
      },
    });
    const path = walletPath();
    const wallet = await Wallet.create({ core, pool: reader, path });
    await fund(wallet, '900');
    await devnet.checkpoint();
    await wallet.sync();
    expect(asked).toEqual(['/state', '/leaves', '/events', '/checkpoints']);
    const written = statSync(path).mtimeMs;
    asked.length = 0;
    const report = await wallet.sync();
    expect(asked).toEqual(['/state']);
    expect(report).toMatchObject({ leaves: 0, events: 0, notesFound: 0 });
    expect(statSync(path).mtimeMs).toBe(written);
    expect(wallet.balance().spendable).toBe(900n);
  });
});
