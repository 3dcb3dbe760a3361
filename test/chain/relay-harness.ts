// A chain-backed pool node for the relay and wallet suites, on the shared node: the test token and
// an escrow of the suite's own (escrowFixture), a ledger bound to the escrow's network (SQLite in
// a temporary directory), and the pool node listening on loopback with the relayer of
// src/chain/deposit-relay.ts — the pool node's chain routes as the service wires them, without the
// deposit watcher (these suites check the chain's balances; shielding is the watcher's suites').

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { FastifyInstance } from 'fastify';
import type { Address, Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

import { openDepositRelay } from '../../src/chain/deposit-relay.js';
import { chainClients } from '../../src/chain/rpc-client.js';
import type { PrivStarkCore } from '../../src/core/index.js';
import { Ledger, openStore } from '../../src/ledger/index.js';
import { buildPoolNode, type HandOverLimits } from '../../src/pool-node/index.js';
import { type ChainNetworkProfile, chainNetworkProfile, SCHEME } from '../../src/scheme/index.js';
import { depositNonce, newAccount, now, signAuthorization } from '../../testkit/chain.js';
import { type EscrowFixture, escrowFixture, sharedChain } from './shared.js';

/** A pool node over an escrow of its own, with a relayer. */
export interface RelayPool {
  readonly f: EscrowFixture;
  readonly url: string;
  readonly app: FastifyInstance;
  readonly relayer: PrivateKeyAccount;
  readonly profile: ChainNetworkProfile;
  /** What the relayer logged, a JSON line each. */
  readonly logged: string[];
  close(): Promise<void>;
}

/** How {@link relayPool} is set up. */
export interface RelayPoolOptions {
  /** The relayer's fee, atomic units (default 1000). */
  readonly fee?: bigint;
  /** Wei the relayer is funded with (default 100 ETH; 0 leaves it without gas). */
  readonly relayerEther?: string;
  readonly limits?: HandOverLimits;
  /** The token's domain the pool advertises (default: the token's own). */
  readonly tokenDomain?: { name: string; version: string };
  /** An escrow fixture to serve (default: a new one on the shared node). */
  readonly fixture?: EscrowFixture;
  /** How long the relayer awaits its transaction before answering 202, ms (default 20 000). */
  readonly receiptTimeoutMs?: number;
}

/** Starts the pool node over a new escrow on the shared node. */
export async function relayPool(
  core: PrivStarkCore,
  options: RelayPoolOptions = {},
): Promise<RelayPool> {
  const f = options.fixture ?? (await escrowFixture(sharedChain()));
  const relayer = await newAccount(f.chain, options.relayerEther ?? '100');
  const backing = { chainId: f.chain.chainId, escrow: f.escrow, token: f.token };
  const profile = chainNetworkProfile(backing, 6);
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-relay-'));
  const store = await openStore(core, { dataDir: dir });
  const ledger = new Ledger({
    core,
    store,
    scheme: SCHEME,
    network: profile.network,
    asset: profile.asset,
    checkpointIntervalMs: 100,
  });
  ledger.start();
  const logged: string[] = [];
  const line = (level: string) => (fields: object, message: string) => {
    logged.push(JSON.stringify({ level, ...fields, message }));
  };
  const relay = await openDepositRelay({
    clients: chainClients(f.chain.url),
    backing,
    network: profile.network,
    asset: profile.asset,
    relayer,
    fee: options.fee ?? 1000n,
    tokenDomain: options.tokenDomain,
    receiptTimeoutMs: options.receiptTimeoutMs ?? 20_000,
    log: { info: line('info'), warn: line('warn') },
  });
  const app = await buildPoolNode({
    ledger,
    operatorToken: 'relay-operator-token-0123456789',
    logger: false,
    depositRelay: relay,
    handOver: options.limits,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    f,
    url: `http://127.0.0.1:${port}`,
    app,
    relayer,
    profile,
    logged,
    async close() {
      await app.close();
      await ledger.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The token balances of `addresses`, in order. */
export async function balances(f: EscrowFixture, ...addresses: Address[]): Promise<bigint[]> {
  const { testUsdcAbi } = await import('../../src/chain/contract-artifacts.js');
  return Promise.all(
    addresses.map((address) =>
      f.chain.public.readContract({
        address: f.token,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [address],
      }),
    ),
  );
}

/**
 * The body of `POST /relay/deposit` for `from`'s signed gasless deposit into `f`'s escrow, fields
 * as the wallet sends them: `value` defaults to the amount plus `fee`.
 */
export async function relayDepositBody(
  f: EscrowFixture,
  fee: bigint,
  from: PrivateKeyAccount,
  deposit: { amount: bigint; pre: Hex; value?: bigint },
  options: { signer?: PrivateKeyAccount; validBefore?: bigint } = {},
) {
  const t = await now(f.chain);
  const value = deposit.value ?? deposit.amount + fee;
  const authorization = {
    token: f.token,
    from: from.address,
    to: f.escrow,
    value,
    validAfter: t - 60n,
    validBefore: options.validBefore ?? t + 600n,
    nonce: depositNonce(deposit.amount, deposit.pre),
  };
  const signature = await signAuthorization(f.chain, options.signer ?? from, authorization);
  return {
    from: from.address,
    amount: deposit.amount.toString(),
    pre: deposit.pre,
    value: value.toString(),
    validAfter: authorization.validAfter.toString(),
    validBefore: authorization.validBefore.toString(),
    signature,
  };
}
