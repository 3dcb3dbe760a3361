/**
 * @module One checkpoint of the public log as a wallet checks it against its own tree, for
 * `wallet verify-backing` (docs/audit.md, "Wallet: verify-backing"): read from the fixed
 * checkpoints page that holds it — a page chosen by the sequence alone, the same for every
 * wallet, never by the wallet's notes — with the root the wallet's copy of the tree gives at the
 * checkpoint's size (`null` while the wallet holds fewer leaves).
 */

import type { DigestHex } from '../core/digest.js';
import { PAGE_SIZES } from '../pool-node/client.js';
import type { WalletContext } from './wallet-context.js';

/** A published checkpoint and what the wallet's tree says of it. */
export interface PublishedCheckpoint {
  readonly seq: number;
  readonly root: DigestHex;
  readonly size: number;
  /** The wallet's own root at `size`; `null` when it holds fewer leaves. */
  readonly localRoot: DigestHex | null;
}

/** Checkpoint `seq` from its fixed page, or `null` when the page does not hold it. */
export async function publishedCheckpoint(
  context: WalletContext,
  seq: number,
): Promise<PublishedCheckpoint | null> {
  if (!Number.isSafeInteger(seq) || seq < 1) return null;
  const page = Math.floor((seq - 1) / PAGE_SIZES.checkpoints);
  const { checkpoints } = await context.pages.checkpointsPage(page);
  const found = checkpoints.find((c) => c.seq === seq);
  if (found === undefined) return null;
  const { tree } = context;
  return {
    seq,
    root: found.root,
    size: found.size,
    localRoot: found.size <= tree.size ? tree.root(found.size) : null,
  };
}
