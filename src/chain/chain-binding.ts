/**
 * @module What a chain-backed pool checks before it starts (docs/chain.md, "Binding"): the RPC
 * serves the configured chain (and the one the store is bound to), the escrow has code, its
 * `token()` is the configured (and bound) token, and the token's decimals; then the pool's
 * network id and asset follow (`chainNetworkProfile`). The escrow's deployment block — where its
 * events are read from — is configured, recorded in the store, or found by bisecting
 * `eth_getCode` over the chain's history.
 */

import { type Address, getAddress, type PublicClient } from 'viem';

import type { WatchBinding } from '../pool-node/deposit-source.js';
import { type ChainNetworkProfile, chainNetworkProfile } from '../scheme/index.js';
import { ChainError, chainErrorOf } from './chain-errors.js';
import { privStarkEscrowAbi } from './contract-artifacts.js';

/** What the operator configured. */
export interface ChainTarget {
  readonly escrow: string;
  /** The chain the RPC must serve (`--chain-id`); the bound or the RPC's otherwise. */
  readonly chainId?: number | undefined;
  /** The token the escrow must hold (`--token`). */
  readonly token?: string | undefined;
  /** The escrow's deployment block (`--deploy-block`). */
  readonly deployBlock?: number | undefined;
}

/** The chain as checked. */
export interface CheckedChain {
  readonly chainId: number;
  /** EIP-55 addresses. */
  readonly escrow: Address;
  readonly token: Address;
  readonly decimals: number;
  readonly deployBlock: number;
  /** The pool's network, asset and backing. */
  readonly profile: ChainNetworkProfile;
}

const DECIMALS_ABI = [
  {
    type: 'function',
    name: 'decimals',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint8' }],
  },
] as const;

/**
 * Checks the RPC, the escrow and its token against what was configured and what the store is
 * bound to (`bound`).
 * @throws ChainError `rpc_unreachable`, `rpc_error`, `rpc_malformed`, `chain_id_mismatch`,
 *   `escrow_missing`, `token_mismatch`, `deploy_block_unknown`
 */
export async function checkChain(
  client: PublicClient,
  target: ChainTarget,
  bound?: WatchBinding,
): Promise<CheckedChain> {
  const escrow = getAddress(target.escrow);
  const chainId = await client.getChainId().catch((error: unknown) => {
    throw chainErrorOf(error, 'eth_chainId');
  });
  for (const [expected, where] of [
    [target.chainId, 'configured (--chain-id)'],
    [bound?.chainId, 'the store is bound to'],
  ] as const)
    if (expected !== undefined && expected !== chainId)
      throw new ChainError(
        'chain_id_mismatch',
        `the RPC serves chain ${chainId}, not chain ${expected} ${where}`,
      );
  const code = await client.getCode({ address: escrow }).catch((error: unknown) => {
    throw chainErrorOf(error, 'eth_getCode');
  });
  if (code === undefined || code === '0x')
    throw new ChainError('escrow_missing', `no contract at ${escrow} on chain ${chainId}`);
  const token = await readToken(client, escrow);
  for (const [expected, where] of [
    [target.token, 'configured (--token)'],
    [bound?.token, 'the store is bound to'],
  ] as const)
    if (expected !== undefined && getAddress(expected) !== token)
      throw new ChainError(
        'token_mismatch',
        `the escrow ${escrow} holds ${token}, not ${getAddress(expected)} ${where}`,
      );
  const decimals = await client
    .readContract({ address: token, abi: DECIMALS_ABI, functionName: 'decimals' })
    .catch((error: unknown) => {
      throw chainErrorOf(error, 'the token’s decimals()');
    });
  const deployBlock =
    target.deployBlock ?? bound?.deployBlock ?? (await findDeployBlock(client, escrow));
  return {
    chainId,
    escrow,
    token,
    decimals,
    deployBlock,
    profile: chainNetworkProfile({ chainId, escrow, token }, decimals),
  };
}

async function readToken(client: PublicClient, escrow: Address): Promise<Address> {
  try {
    const token = await client.readContract({
      address: escrow,
      abi: privStarkEscrowAbi,
      functionName: 'token',
    });
    return getAddress(token);
  } catch (error) {
    const failure = chainErrorOf(error, `${escrow}.token()`);
    throw failure.code === 'rpc_malformed' || failure.code === 'rpc_error'
      ? new ChainError('escrow_missing', `${escrow} is not an escrow: token() ${failure.message}`, {
          cause: error,
        })
      : failure;
  }
}

/**
 * The block the contract at `address` was deployed in: the lowest block at which it has code,
 * bisected with `eth_getCode` (about 25 calls on Base's history).
 * @throws ChainError `deploy_block_unknown` when the RPC keeps no history to ask (configure
 *   `--deploy-block`), or an RPC failure
 */
export async function findDeployBlock(client: PublicClient, address: Address): Promise<number> {
  const hasCode = async (block: number) => {
    try {
      const code = await client.getCode({ address, blockNumber: BigInt(block) });
      return code !== undefined && code !== '0x';
    } catch (error) {
      const failure = chainErrorOf(error, `eth_getCode at block ${block}`);
      if (failure.code !== 'rpc_error') throw failure;
      throw new ChainError(
        'deploy_block_unknown',
        `the RPC keeps no state of block ${block} to find the escrow's deployment block: pass --deploy-block (priv-stark chain deploy prints it)`,
        { cause: error },
      );
    }
  };
  let high = Number(
    await client.getBlockNumber().catch((e: unknown) => {
      throw chainErrorOf(e, 'eth_blockNumber');
    }),
  );
  let low = 0;
  if (!(await hasCode(high)))
    throw new ChainError('escrow_missing', `no contract at ${address} at block ${high}`);
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (await hasCode(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}
