/**
 * @module Which pool a wallet command works in: the devnet pool, or a pool backed by an escrow on a
 * chain, whose network id, asset and decimals the pool node names (`GET /chain`). A wallet file
 * already made says its network; the pool node must serve the same one. Without an answer from
 * the pool node, a wallet file of a chain pool still opens (its network and asset from the file)
 * for what needs no pool: its address, tickets and payments.
 */

import { readFileSync } from 'node:fs';

import { PoolNodeChainClient, PoolNodeError } from '../pool-node/client.js';
import { chainNetworkProfile, DEVNET_NETWORK, type NetworkProfile } from '../scheme/index.js';
import { CliFailure } from './cli-io.js';

/** The network written in the wallet file at `path`, or `null` when there is no readable file. */
function fileNetwork(path: string): { network: string; asset: string } | null {
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as { network?: unknown; asset?: unknown };
    return typeof state.network === 'string' && typeof state.asset === 'string'
      ? { network: state.network, asset: state.asset }
      : null;
  } catch {
    return null;
  }
}

/** The pool node's chain pool, `null` for the devnet pool, `undefined` when it did not answer. */
async function poolProfile(pool: string): Promise<NetworkProfile | null | undefined> {
  try {
    const facts = await new PoolNodeChainClient(pool, { timeoutMs: 10_000 }).facts();
    return chainNetworkProfile(
      { chainId: facts.chainId, escrow: facts.escrow, token: facts.token },
      facts.decimals,
    );
  } catch (error) {
    if (error instanceof PoolNodeError && error.code === 'not_found') return null;
    if (error instanceof PoolNodeError && error.code === 'pool_unreachable') return undefined;
    throw error;
  }
}

/**
 * The network of the wallet at `path` in the pool at `pool`.
 * @throws CliFailure (exit 1) when the wallet file is for another pool than the node serves
 */
export async function walletNetwork(where: {
  path: string;
  pool: string;
}): Promise<NetworkProfile> {
  const written = fileNetwork(where.path);
  if (written?.network === DEVNET_NETWORK.network) return DEVNET_NETWORK;
  const served = await poolProfile(where.pool);
  if (written === null) return served ?? DEVNET_NETWORK;
  if (served === undefined) return { ...written, decimals: DEVNET_NETWORK.decimals };
  const network = served ?? DEVNET_NETWORK;
  if (network.network !== written.network)
    throw new CliFailure(
      1,
      `pool_mismatch: the wallet ${where.path} is for network ${written.network}; the pool node at ${where.pool} serves ${network.network}`,
    );
  return network;
}
