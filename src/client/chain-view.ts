/**
 * @module What a wallet checks before it pays into a pool's escrow: the pool node's chain facts
 * (`GET /chain`) held against the wallet's own RPC — the chain id, the escrow's token, the pool's
 * network id recomputed from `(chainId, escrow)` (and the wallet's own network), the token's
 * decimals — and the token's `DOMAIN_SEPARATOR()` against the EIP-712 domain the wallet computes,
 * so the wallet never signs an authorization for another token, chain or pool. Part of
 * `priv-stark/client/chain`: loads viem.
 */

import {
  type Address,
  createPublicClient,
  getAddress,
  hashDomain,
  type Hex,
  http,
  isAddressEqual,
  type PublicClient,
} from 'viem';

import { type ChainFactsReply, PoolNodeChainClient, PoolNodeError } from '../pool-node/client.js';
import { chainNetworkId, type NetworkProfile } from '../scheme/index.js';
import { ESCROW_ABI, TOKEN_ABI } from './chain-abi.js';
import { ChainWalletError } from './chain-wallet-error.js';
import type { PoolWrite } from './pool-transport.js';

/**
 * The wallet's side a chain operation needs: its pool node, its network, and the way its writes
 * reach the pool node (`Wallet.poolWriteFetch`: the proxy, else directly with a warning).
 */
export interface ChainWallet {
  readonly poolNode: { readonly url: string };
  readonly network: NetworkProfile;
  poolWriteFetch?(write: PoolWrite): Promise<typeof fetch>;
}

/** Where the wallet reads the chain and reaches the pool node. */
export interface ChainAccess {
  /** The wallet's own RPC (an URL, or a viem public client): never the pool operator's word. */
  readonly rpc: string | PublicClient;
  /**
   * The `fetch` the pool node's chain routes are asked through (a proxy hides the address); default
   * the wallet's own transport for writes (`poolWriteFetch`).
   */
  readonly poolFetch?: typeof fetch | undefined;
  /**
   * The token's EIP-712 domain the wallet expects (default: what the pool advertises); the token's
   * `DOMAIN_SEPARATOR()` must equal it with this chain id and the token's address.
   */
  readonly tokenDomain?: { readonly name: string; readonly version: string } | undefined;
}

/** A pool's chain, checked. */
export interface CheckedChain {
  readonly facts: ChainFactsReply;
  readonly client: PublicClient;
  readonly pool: PoolNodeChainClient;
  readonly chainId: number;
  readonly escrow: Address;
  readonly token: Address;
  readonly decimals: number;
  /** The EIP-712 domain of the token's authorizations. */
  readonly domain: {
    readonly name: string;
    readonly version: string;
    readonly chainId: number;
    readonly verifyingContract: Address;
  };
}

/** The public client of `rpc`. */
export function publicClientOf(rpc: string | PublicClient): PublicClient {
  if (typeof rpc !== 'string') return rpc;
  return createPublicClient({ transport: http(rpc, { retryCount: 1 }), pollingInterval: 250 });
}

/**
 * The pool node's chain facts, checked against the chain. The pool node's chain routes — the facts
 * read and the relayed `write` after it — go the way the wallet's writes go: through its proxy, or
 * directly with its warning (they name the depositing account beside this machine's address).
 * @throws ChainWalletError `not_chain_pool`, `chain_mismatch`, `token_domain_mismatch`;
 *   PoolNodeError when the pool node does not answer; NoPrivateTransportError in `private-only`
 *   mode without a private transport (before anything is signed or sent)
 */
export async function checkedChain(
  wallet: ChainWallet,
  access: ChainAccess,
  write: PoolWrite = 'deposit',
): Promise<CheckedChain> {
  const poolFetch = access.poolFetch ?? (await wallet.poolWriteFetch?.(write));
  const pool = new PoolNodeChainClient(wallet.poolNode.url, { fetch: poolFetch });
  const facts = await pool.facts().catch((error: unknown) => {
    if (error instanceof PoolNodeError && error.code === 'not_found')
      throw new ChainWalletError(
        'not_chain_pool',
        `the pool node at ${pool.url} names no escrow: its deposits are tickets for the operator`,
      );
    throw error;
  });
  const client = publicClientOf(access.rpc);
  const escrow = getAddress(facts.escrow);
  const token = getAddress(facts.token);
  const [chainId, held, decimals, separator] = await Promise.all([
    client.getChainId(),
    client.readContract({ address: escrow, abi: ESCROW_ABI, functionName: 'token' }),
    client.readContract({ address: token, abi: TOKEN_ABI, functionName: 'decimals' }),
    client.readContract({ address: token, abi: TOKEN_ABI, functionName: 'DOMAIN_SEPARATOR' }),
  ]);
  const mismatch = (what: string) => new ChainWalletError('chain_mismatch', what);
  if (chainId !== facts.chainId)
    throw mismatch(`the RPC serves chain ${chainId}; the pool names chain ${facts.chainId}`);
  if (!isAddressEqual(held, token))
    throw mismatch(`the escrow ${escrow} holds ${held}, not the token ${token} the pool names`);
  const network = chainNetworkId(chainId, escrow);
  if (network !== facts.network || network !== wallet.network.network)
    throw mismatch(
      `the escrow ${escrow} on chain ${chainId} is network ${network}; the pool says ${facts.network}, the wallet is for ${wallet.network.network}`,
    );
  if (Number(decimals) !== facts.decimals)
    throw mismatch(`the token has ${decimals} decimals; the pool says ${facts.decimals}`);
  const expected = access.tokenDomain ?? facts.tokenDomain;
  const domain = { ...expected, chainId, verifyingContract: token };
  checkDomain(separator, domain);
  return { facts, client, pool, chainId, escrow, token, decimals: Number(decimals), domain };
}

/**
 * The token's `DOMAIN_SEPARATOR()` against the domain the wallet computes.
 * @throws ChainWalletError `token_domain_mismatch`
 */
function checkDomain(separator: Hex, domain: CheckedChain['domain']): void {
  const computed = hashDomain({
    domain: { ...domain, chainId: BigInt(domain.chainId) },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
    },
  });
  if (computed.toLowerCase() !== separator.toLowerCase())
    throw new ChainWalletError(
      'token_domain_mismatch',
      `the token's DOMAIN_SEPARATOR() is not the EIP-712 domain ${JSON.stringify(domain.name)} version ${JSON.stringify(domain.version)} on chain ${domain.chainId} at ${domain.verifyingContract}: nothing was signed`,
    );
}
