/**
 * @module Seeing a reorganisation: the watcher keeps the block hash of everything it acted on — the
 * block of each deposit's payment, of its acceptance or decline, of its reclaim, and of its cursor
 * — and compares them with the chain's at every poll. A block whose hash changed (or that is gone)
 * means every block from it up was replaced. If that reaches an acceptance the pool shielded from,
 * the reorganisation was deeper than finality allowed for; otherwise the watcher forgets what it
 * read above the highest block it acted on that did not change, and reads from there again.
 */

import type { PublicClient } from 'viem';

import type { WatchCursor, WatchedDeposit } from '../pool-node/deposit-source.js';
import { chainErrorOf } from './chain-errors.js';

/** What the check found. */
export type ReorgVerdict =
  | { readonly kind: 'none' }
  /** Nothing shielded was undone: read again from `rewindTo`. */
  | { readonly kind: 'rewind'; readonly rewindTo: WatchCursor; readonly lowestChanged: number }
  /** A block a shielded deposit's acceptance is in was replaced. */
  | { readonly kind: 'beyond_depth'; readonly lowestChanged: number; readonly deposits: number[] };

/** The block → hash pairs of what was acted on; a block held with two hashes keeps `null` (stale). */
export function actedBlocks(
  deposits: readonly WatchedDeposit[],
  cursor: WatchCursor,
): Map<number, string | null> {
  const blocks = new Map<number, string | null>();
  const add = (block: number | null, hash: string | null) => {
    if (block === null || hash === null) return;
    const known = blocks.get(block);
    blocks.set(block, known === undefined || known === hash ? hash : null);
  };
  for (const d of deposits) {
    add(d.block, d.blockHash);
    add(d.settledBlock, d.settledHash);
    add(d.reclaimedBlock, d.reclaimedHash);
  }
  add(cursor.block, cursor.hash);
  return blocks;
}

/** The chain's hash of each block in `blocks` (`null` past the head or unknown). */
async function chainHashes(
  client: PublicClient,
  blocks: readonly number[],
  head: number,
): Promise<Map<number, string | null>> {
  const out = new Map<number, string | null>();
  try {
    const read = await Promise.all(
      blocks.map((block) =>
        block > head
          ? Promise.resolve(null)
          : client
              .getBlock({ blockNumber: BigInt(block) })
              .then((b) => b.hash?.toLowerCase() ?? null),
      ),
    );
    for (const [i, block] of blocks.entries()) out.set(block, read[i] ?? null);
  } catch (error) {
    throw chainErrorOf(error, 'reading block hashes');
  }
  return out;
}

/**
 * Compares what was acted on with the chain.
 * @param floor the block to read again from when no unchanged block is known below the change
 * @throws ChainError when the RPC fails
 */
export async function checkReorg(
  client: PublicClient,
  deposits: readonly WatchedDeposit[],
  cursor: WatchCursor,
  head: number,
  floor: number,
): Promise<ReorgVerdict> {
  const acted = actedBlocks(deposits, cursor);
  const blocks = [...acted.keys()].sort((a, b) => a - b);
  const now = await chainHashes(client, blocks, head);
  const changed = blocks.filter((b) => acted.get(b) === null || now.get(b) !== acted.get(b));
  if (changed.length === 0) return { kind: 'none' };
  const lowest = changed[0]!;
  // Every block from the lowest changed one up was replaced.
  const undone = deposits.filter(
    (d) =>
      (d.state === 'shielded' || d.state === 'unshieldable') &&
      (d.block >= lowest || (d.settledBlock ?? -1) >= lowest),
  );
  if (undone.length > 0)
    return { kind: 'beyond_depth', lowestChanged: lowest, deposits: undone.map((d) => d.index) };
  const below = blocks.filter((b) => b < lowest);
  const kept = below[below.length - 1];
  const rewindTo =
    kept === undefined
      ? { block: Math.min(floor, lowest - 1), hash: null }
      : { block: kept, hash: acted.get(kept) ?? null };
  return { kind: 'rewind', rewindTo, lowestChanged: lowest };
}
