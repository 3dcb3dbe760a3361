// The wallet's chain module (priv-stark/client/chain) against a chain-backed pool node on the
// shared anvil, balances read on chain before and after: a deposit by signature through the
// relayer with a custom signer (viem's toAccount) moves amount + fee and is recorded in the wallet;
// the same ticket again moves nothing and signs nothing; a relayer's fee above the maximum, or a
// token whose DOMAIN_SEPARATOR is not the domain the wallet computes, is refused before anything
// is signed (twin: the same token, its own domain advertised, signs); a relayed deposit goes through
// the wallet's proxy (a SOCKS5 server here sees it; twin: without one, directly with the warning;
// private-only refuses before signing); a direct deposit moves the
// amount; a declined deposit comes back by signature through the relayer and directly; a reclaim
// the escrow would refuse is refused first; a wallet of another network, and a devnet pool node,
// are refused.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { FastifyInstance } from 'fastify';
import { parseEther } from 'viem';
import {
  generatePrivateKey,
  type LocalAccount,
  privateKeyToAccount,
  toAccount,
} from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  ChainWalletError,
  depositBySignature,
  depositDirect,
  reclaimDeposit,
} from '../../src/client/chain.js';
import { type TransportWarning, Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { Ledger, openStore } from '../../src/ledger/index.js';
import { buildPoolNode } from '../../src/pool-node/index.js';
import { deploy, deployEscrow, newAccount } from '../../testkit/chain.js';
import { listen, socks5, type Tunnel } from '../../testkit/proxy-servers.js';
import { testUsdcAbi, testUsdcBytecode } from '../../src/chain/contract-artifacts.js';
import { balances, type RelayPool, relayPool } from './relay-harness.js';
import { depositor, escrowCall, readDeposit, STATE, tokenCall } from './shared.js';

const FEE = 2_500n;
let core: PrivStarkCore;
let pool: RelayPool;

beforeAll(async () => {
  core = await loadCore();
  pool = await relayPool(core, { fee: FEE });
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

/** A wallet of the pool's network, kept in memory. */
function walletOf(p: RelayPool = pool): Promise<Wallet> {
  return Wallet.create({ core, pool: p.url, network: p.profile });
}

/** `account` behind a custom signer (toAccount), counting its typed-data signatures. */
function counted(account: LocalAccount): { signer: LocalAccount; signed: () => number } {
  let count = 0;
  const signer = toAccount({
    address: account.address,
    signMessage: (args) => account.signMessage(args),
    signTransaction: (transaction, options) =>
      account.signTransaction(transaction, options as never),
    signTypedData: (typed) => {
      count++;
      return account.signTypedData(typed as never);
    },
  });
  return { signer, signed: () => count };
}

describe('a deposit by signature', () => {
  it('moves amount + fee from the account: the amount to the escrow, the fee to the relayer; recorded in the wallet; a retried ticket moves nothing and signs nothing', async () => {
    const wallet = await walletOf();
    const owner = await depositor(pool.f, 1_000_000n);
    const { signer, signed } = counted(owner);
    const before = await balances(pool.f, owner.address, pool.f.escrow, pool.relayer.address);
    const receipt = await depositBySignature(wallet, {
      account: signer,
      rpc: pool.f.chain.url,
      amount: 300_000n,
      maxFee: FEE,
    });
    expect(receipt).toMatchObject({ fee: FEE, path: 'relayed', mined: true, already: false });
    expect(signed()).toBe(1);
    expect(await balances(pool.f, owner.address, pool.f.escrow, pool.relayer.address)).toEqual([
      before[0]! - 300_000n - FEE,
      before[1]! + 300_000n,
      before[2]! + FEE,
    ]);
    const onChain = await readDeposit(pool.f, BigInt(receipt.depositIndex!));
    expect(onChain).toMatchObject({
      depositor: owner.address,
      amount: 300_000n,
      pre: receipt.ticket.pre,
    });
    expect(wallet.chainDeposits()).toEqual([
      {
        counter: receipt.ticket.counter,
        amount: '300000',
        pre: receipt.ticket.pre,
        index: receipt.depositIndex,
        depositor: owner.address,
        transaction: receipt.transaction,
        path: 'relayed',
        fee: FEE.toString(),
        depositedAt: expect.any(Number),
      },
    ]);
    const after = await balances(pool.f, owner.address, pool.f.escrow, pool.relayer.address);
    const again = await depositBySignature(wallet, {
      account: signer,
      rpc: pool.f.chain.url,
      amount: 0n,
      ticket: receipt.ticket,
      maxFee: FEE,
    });
    expect(again).toMatchObject({
      already: true,
      depositIndex: receipt.depositIndex,
      transaction: receipt.transaction,
    });
    expect(signed()).toBe(1);
    expect(await balances(pool.f, owner.address, pool.f.escrow, pool.relayer.address)).toEqual(
      after,
    );
  });

  it("refuses a relayer's fee above the maximum before anything is signed or a ticket issued", async () => {
    const wallet = await walletOf();
    const owner = await depositor(pool.f, 1_000_000n);
    const { signer, signed } = counted(owner);
    const before = await balances(pool.f, owner.address, pool.f.escrow);
    const refused = await depositBySignature(wallet, {
      account: signer,
      rpc: pool.f.chain.url,
      amount: 100_000n,
      maxFee: FEE - 1n,
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ChainWalletError);
    expect((refused as ChainWalletError).code).toBe('fee_above_max');
    // The default maximum is no fee at all.
    const byDefault = await depositBySignature(wallet, {
      account: signer,
      rpc: pool.f.chain.url,
      amount: 100_000n,
    }).catch((e: unknown) => e);
    expect((byDefault as ChainWalletError).code).toBe('fee_above_max');
    expect(signed()).toBe(0);
    expect(wallet.openTickets()).toEqual([]);
    expect(await balances(pool.f, owner.address, pool.f.escrow)).toEqual(before);
  });

  it("refuses a token whose DOMAIN_SEPARATOR is not the domain the wallet computes, before signing; twin: the token's own domain signs", async () => {
    // A token deployed with another version than Base's USDC ("2"), and an escrow over it.
    const admin = await newAccount(pool.f.chain);
    const token = await deploy(pool.f.chain, admin, {
      abi: testUsdcAbi,
      bytecode: testUsdcBytecode,
      args: ['USD Coin', 'USDC', '1', admin.address],
    });
    const escrow = await deployEscrow(pool.f.chain, admin, token);
    const fixture = { ...pool.f, token, escrow, admin };
    const usdcDomain = await relayPool(core, {
      fixture,
      fee: 0n,
      tokenDomain: { name: 'USD Coin', version: '2' },
    });
    const ownDomain = await relayPool(core, { fixture, fee: 0n });
    try {
      const owner = await depositor(fixture, 500_000n);
      const { signer, signed } = counted(owner);
      const before = await balances(fixture, owner.address, escrow);
      const refused = await depositBySignature(await walletOf(usdcDomain), {
        account: signer,
        rpc: pool.f.chain.url,
        amount: 100_000n,
      }).catch((e: unknown) => e);
      expect((refused as ChainWalletError).code).toBe('token_domain_mismatch');
      expect(signed()).toBe(0);
      expect(await balances(fixture, owner.address, escrow)).toEqual(before);
      // The wallet may name the domain it expects itself: USDC's is refused here too.
      const named = await depositBySignature(await walletOf(ownDomain), {
        account: signer,
        rpc: pool.f.chain.url,
        amount: 100_000n,
        tokenDomain: { name: 'USD Coin', version: '2' },
      }).catch((e: unknown) => e);
      expect((named as ChainWalletError).code).toBe('token_domain_mismatch');
      expect(signed()).toBe(0);
      const signs = await depositBySignature(await walletOf(ownDomain), {
        account: signer,
        rpc: pool.f.chain.url,
        amount: 100_000n,
      });
      expect(signs.mined).toBe(true);
      expect(signed()).toBe(1);
      expect(await balances(fixture, owner.address, escrow)).toEqual([
        before[0]! - 100_000n,
        before[1]! + 100_000n,
      ]);
    } finally {
      await usdcDomain.close();
      await ownDomain.close();
    }
  });

  it('refuses a wallet of another network, and a pool node no chain backs', async () => {
    const owner = await depositor(pool.f, 100_000n);
    const devnetWallet = await Wallet.create({ core, pool: pool.url });
    const mismatch = await depositBySignature(devnetWallet, {
      account: owner,
      rpc: pool.f.chain.url,
      amount: 1_000n,
      maxFee: FEE,
    }).catch((e: unknown) => e);
    expect((mismatch as ChainWalletError).code).toBe('chain_mismatch');
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-devnet-'));
    const store = await openStore(core, { dataDir: dir });
    const ledger = new Ledger({ core, store });
    const devnet: FastifyInstance = await buildPoolNode({
      ledger,
      operatorToken: 'devnet-operator-token-0123456789',
      logger: false,
    });
    try {
      const url = await devnet.listen({ port: 0, host: '127.0.0.1' });
      const wallet = await Wallet.create({ core, pool: url });
      const none = await depositBySignature(wallet, {
        account: owner,
        rpc: pool.f.chain.url,
        amount: 1_000n,
      }).catch((e: unknown) => e);
      expect((none as ChainWalletError).code).toBe('not_chain_pool');
    } finally {
      await devnet.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a relayed deposit goes the way the wallet’s writes go (docs/privacy.md, "Transports")', () => {
  it('through the wallet’s SOCKS5 proxy with no warning; directly, warned once, without one; refused in private-only mode before anything is signed', async () => {
    const tunnels: Tunnel[] = [];
    const server = socks5(tunnels);
    const proxy = `socks5h://127.0.0.1:${await listen(server)}`;
    const poolTarget = `127.0.0.1:${new URL(pool.url).port}`;
    try {
      const proxiedWarnings: TransportWarning[] = [];
      const proxied = await Wallet.create({
        core,
        pool: pool.url,
        network: pool.profile,
        poolProxy: proxy,
        onTransportWarning: (w) => proxiedWarnings.push(w),
      });
      const receipt = await depositBySignature(proxied, {
        account: await depositor(pool.f, 1_000_000n),
        rpc: pool.f.chain.url,
        amount: 100_000n,
        maxFee: FEE,
      });
      expect(receipt).toMatchObject({ path: 'relayed', mined: true });
      // The chain facts and the relayed deposit: every request to the pool node through the proxy.
      expect(tunnels.length).toBeGreaterThanOrEqual(1);
      expect(tunnels.every((t) => t.target === poolTarget)).toBe(true);
      expect(proxiedWarnings).toEqual([]);

      // Must-fail twin: without a proxy the deposit goes directly, warned once, the proxy unused.
      const carried = tunnels.length;
      const directWarnings: TransportWarning[] = [];
      const direct = await Wallet.create({
        core,
        pool: pool.url,
        network: pool.profile,
        onTransportWarning: (w) => directWarnings.push(w),
      });
      for (let i = 0; i < 2; i++)
        await depositBySignature(direct, {
          account: await depositor(pool.f, 1_000_000n),
          rpc: pool.f.chain.url,
          amount: 100_000n,
          maxFee: FEE,
        });
      expect(tunnels).toHaveLength(carried);
      expect(directWarnings.map((w) => [w.code, w.write])).toEqual([['direct_to_pool', 'deposit']]);

      const strict = await Wallet.create({
        core,
        pool: pool.url,
        network: pool.profile,
        transport: 'private-only',
      });
      const { signer, signed } = counted(await depositor(pool.f, 1_000_000n));
      await expect(
        depositBySignature(strict, {
          account: signer,
          rpc: pool.f.chain.url,
          amount: 100_000n,
          maxFee: FEE,
        }),
      ).rejects.toMatchObject({ code: 'no_private_transport' });
      expect(signed()).toBe(0);
      expect(strict.chainDeposits()).toEqual([]);
    } finally {
      server.close();
    }
  });
});

describe('a direct deposit', () => {
  it("moves the amount from the account to the escrow (the account's own approve and deposit)", async () => {
    const wallet = await walletOf();
    const owner = await depositor(pool.f, 400_000n);
    const before = await balances(pool.f, owner.address, pool.f.escrow, pool.relayer.address);
    const receipt = await depositDirect(wallet, {
      account: owner,
      rpc: pool.f.chain.url,
      amount: 400_000n,
    });
    expect(receipt).toMatchObject({ path: 'direct', fee: 0n, mined: true });
    expect(await balances(pool.f, owner.address, pool.f.escrow, pool.relayer.address)).toEqual([
      before[0]! - 400_000n,
      before[1]! + 400_000n,
      before[2]!,
    ]);
    expect(wallet.chainDeposits()).toMatchObject([{ path: 'direct', index: receipt.depositIndex }]);
  });
});

describe('reclaim', () => {
  it('returns a declined deposit by signature through the relayer (no ETH) and directly; refuses what the escrow would', async () => {
    const wallet = await walletOf();
    const key = generatePrivateKey();
    const gasless = privateKeyToAccount(key);
    await pool.f.chain.test.setBalance({ address: gasless.address, value: 0n });
    const funder = await depositor(pool.f, 600_000n);
    await pool.f.chain.test.setBalance({ address: funder.address, value: parseEther('1') });
    // The gasless account gets tokens, no ETH.
    await tokenCall(pool.f, funder, 'transfer', [gasless.address, 600_000n]);
    const first = await depositBySignature(wallet, {
      account: gasless,
      rpc: pool.f.chain.url,
      amount: 200_000n,
      maxFee: FEE,
    });
    const second = await depositBySignature(wallet, {
      account: gasless,
      rpc: pool.f.chain.url,
      amount: 150_000n,
      maxFee: FEE,
    });
    const index = (r: { depositIndex: number | null }) => r.depositIndex!;
    // Pending: too early; another's account: not the depositor.
    const early = await reclaimDeposit(wallet, {
      account: gasless,
      rpc: pool.f.chain.url,
      index: index(first),
    }).catch((e: unknown) => e);
    expect((early as ChainWalletError).code).toBe('reclaim_too_early');
    const stranger = await newAccount(pool.f.chain);
    const notMine = await reclaimDeposit(wallet, {
      account: stranger,
      rpc: pool.f.chain.url,
      index: index(first),
    }).catch((e: unknown) => e);
    expect((notMine as ChainWalletError).code).toBe('not_depositor');
    const unknown = await reclaimDeposit(wallet, {
      account: gasless,
      rpc: pool.f.chain.url,
      index: 1_000_000,
    }).catch((e: unknown) => e);
    expect((unknown as ChainWalletError).code).toBe('unknown_deposit');
    await escrowCall(pool.f, pool.f.acceptor, 'acceptDeposits', [
      [],
      [BigInt(index(first)), BigInt(index(second))],
    ]);
    const before = await balances(pool.f, gasless.address, pool.f.escrow, pool.relayer.address);
    const relayed = await reclaimDeposit(wallet, {
      account: gasless,
      rpc: pool.f.chain.url,
      index: index(first),
    });
    expect(relayed).toMatchObject({ via: 'relayed', amount: 200_000n, mined: true });
    expect(await balances(pool.f, gasless.address, pool.f.escrow, pool.relayer.address)).toEqual([
      before[0]! + 200_000n,
      before[1]! - 200_000n,
      before[2]!,
    ]);
    expect((await readDeposit(pool.f, BigInt(index(first)))).state).toBe(STATE.Reclaimed);
    const again = await reclaimDeposit(wallet, {
      account: gasless,
      rpc: pool.f.chain.url,
      index: index(first),
    }).catch((e: unknown) => e);
    expect((again as ChainWalletError).code).toBe('not_reclaimable');
    // With ETH for the gas, `auto` reclaims directly.
    await pool.f.chain.test.setBalance({ address: gasless.address, value: parseEther('1') });
    const direct = await reclaimDeposit(wallet, {
      account: gasless,
      rpc: pool.f.chain.url,
      index: index(second),
    });
    expect(direct).toMatchObject({ via: 'direct', amount: 150_000n });
    expect(await balances(pool.f, gasless.address, pool.f.escrow)).toEqual([
      before[0]! + 350_000n,
      before[1]! - 350_000n,
    ]);
  });
});
