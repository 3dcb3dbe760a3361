/**
 * @module The money of a linkage run on chain (`deposits: 'chain'`): a local node (the one given,
 * else an anvil of the run's own), the escrow and test USDC deployed from the committed artifacts,
 * the operator's hot keys — one per role (acceptor, payout, relayer), as docs/chain.md says to run
 * them — in key files, and what the service needs to back the pool with it. Each depositor is an EVM account of its own, funded with
 * test USDC and no ETH: it deposits by signature through the pool's relayer, as a wallet without
 * gas does; exits are paid out on chain to accounts of the wallets' own.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Address, Hex } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

import { deployEscrow, mintTestToken } from '../../src/chain/deploy.js';
import { HOT_ROLES } from '../../src/chain/keys.js';
import { startLocalNode } from '../../src/chain/local-node.js';
import { chainClients } from '../../src/chain/rpc-client.js';
import { type ChainNetworkProfile, chainNetworkProfile } from '../../src/scheme/index.js';
import type { ServiceConfig } from '../../src/service/index.js';
import { TEST_ESCROW_PARAMETERS } from '../chain.js';

/** What the relayer takes per deposit (0.001 USDC), paid by the depositor beside the amount. */
export const RELAYER_FEE = 1_000n;

/** A chain under a linkage run. */
export interface LinkageChain {
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly profile: ChainNetworkProfile;
  /** The service's `chain` setting. */
  readonly service: NonNullable<ServiceConfig['chain']>;
  /** A fresh account holding `amount` + the relayer's fee in test USDC (no ETH). */
  depositor(amount: bigint): Promise<PrivateKeyAccount>;
  /** Stops the node if the run started it. */
  close(): Promise<void>;
}

/** 100 ETH, as `anvil_setBalance` takes it. */
const HUNDRED_ETH = '0x56bc75e2d63100000';

/**
 * Deploys the escrow on the node at `rpcUrl` (or on a node of its own) and writes the operator's
 * key into `dir`. The watcher polls every `pollIntervalMs`, final at one confirmation.
 */
export async function openLinkageChain(
  rpcUrl: string | undefined,
  dir: string,
  pollIntervalMs: number,
): Promise<LinkageChain> {
  const node = rpcUrl === undefined ? await startLocalNode({ accounts: 1 }) : undefined;
  try {
    const url = rpcUrl ?? node!.url;
    const clients = chainClients(url);
    const fund = (address: Address) =>
      clients.public.request({
        method: 'anvil_setBalance',
        params: [address, HUNDRED_ETH],
      } as never);
    const deployer = privateKeyToAccount(generatePrivateKey());
    await fund(deployer.address);
    const keyFiles: string[] = [];
    const hot = {} as Record<(typeof HOT_ROLES)[number], Address>;
    for (const role of HOT_ROLES) {
      const key: Hex = generatePrivateKey();
      hot[role] = privateKeyToAccount(key).address;
      await fund(hot[role]);
      const file = join(dir, `${role}.key`);
      writeFileSync(file, key, { mode: 0o600 });
      keyFiles.push(`${role}=${file}`);
    }
    const deployment = await deployEscrow({
      clients,
      deployer,
      roles: { acceptor: hot.acceptor, payout: hot.payout },
      parameters: TEST_ESCROW_PARAMETERS,
    });
    // The deployer mints for the depositors, one at a time (its nonces in order).
    let minting: Promise<unknown> = Promise.resolve();
    return {
      rpcUrl: url,
      chainId: deployment.chainId,
      profile: chainNetworkProfile(
        { chainId: deployment.chainId, escrow: deployment.escrow, token: deployment.token },
        6,
      ),
      service: {
        rpcUrl: url,
        escrow: deployment.escrow,
        keyFiles,
        finality: { confirmations: 1 },
        pollIntervalMs,
        relayerFee: RELAYER_FEE,
      },
      async depositor(amount) {
        const account = privateKeyToAccount(generatePrivateKey());
        const minted = minting.then(() =>
          mintTestToken({
            clients,
            token: deployment.token,
            to: account.address,
            amount: amount + RELAYER_FEE,
            minter: deployer,
          }),
        );
        minting = minted.catch(() => undefined);
        await minted;
        return account;
      },
      close: async () => node?.stop(),
    };
  } catch (error) {
    await node?.stop();
    throw error;
  }
}
