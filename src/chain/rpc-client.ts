/**
 * @module The viem clients the pool node's chain code talks through: one public client over the
 * configured RPC (no retries of its own — each poll is the retry — a bounded timeout, concurrent
 * reads batched into one JSON-RPC request) and, per hot key, a wallet client on the same
 * transport. No global provider: everything takes the client it is given.
 */

import {
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type PublicClient,
  type WalletClient,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

/** How long one RPC request may take. */
export const RPC_TIMEOUT_MS = 10_000;

/** The clients of one RPC. */
export interface ChainClients {
  readonly url: string;
  readonly public: PublicClient;
  /** A wallet client sending as `account` on chain `chainId`. */
  wallet(account: PrivateKeyAccount, chainId: number): WalletClient;
}

/** A minimal chain description viem signs for (EIP-155 chain id; the RPC named). */
export function chainOf(chainId: number, url: string): Chain {
  return defineChain({
    id: chainId,
    name: `eip155:${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
}

/** The clients of the RPC at `url`. */
export function chainClients(url: string, options: { timeoutMs?: number } = {}): ChainClients {
  const transport = http(url, {
    retryCount: 0,
    timeout: options.timeoutMs ?? RPC_TIMEOUT_MS,
    batch: { wait: 0 },
  });
  return {
    url,
    public: createPublicClient({ transport, pollingInterval: 100 }),
    wallet: (account, chainId) =>
      createWalletClient({ account, chain: chainOf(chainId, url), transport }),
  };
}
