/**
 * @module `wallet verify-backing` (docs/audit.md, "Wallet: verify-backing"): after a sync of the
 * same full pages every wallet downloads, the wallet reads the escrow's latest attestation from the
 * user's own RPC (through the wallet's proxy when it has one), reads the attested checkpoint from
 * its fixed page, and checks that its own copy of the tree gives the attested root at that
 * checkpoint's size — so the notes below that size are in the tree the operator claimed on chain —
 * and sorts its unspent notes into those the attestation covers and those it does not yet. No
 * request names a note, an index or a page chosen by the wallet's notes: two wallets at the same
 * head send the same requests. Part of `priv-stark/client/chain`: loads viem.
 */

import { type Address, createPublicClient, type Hex, http, type PublicClient } from 'viem';

import type { PublishedCheckpoint } from './published-checkpoint.js';
import { ESCROW_ABI } from './chain-abi.js';
import type { StoredNote } from './store.js';

/** The wallet's side `verifyBacking` needs (a `Wallet`). */
export interface BackedWallet {
  readonly network: { readonly chain?: { readonly escrow: string } | undefined };
  sync(): Promise<unknown>;
  notes(): StoredNote[];
  publishedCheckpoint(seq: number): Promise<PublishedCheckpoint | null>;
  proxiedFetch(url: string): Promise<typeof fetch | null>;
}

/** Why the backing could not be shown. */
export type BackingProblem =
  /** The escrow holds no attestation yet. */
  | 'not_attested'
  /** The pool node's public log has no checkpoint of the attested sequence. */
  | 'attested_checkpoint_missing'
  /** The attested checkpoint is past what the wallet could sync. */
  | 'attestation_ahead'
  /** The pool node's checkpoint, or the wallet's tree at its size, does not give the attested root. */
  | 'root_mismatch';

/** What `verifyBacking` found. */
export interface BackingReport {
  /** The wallet's tree gives the attested root at the attested checkpoint. */
  readonly ok: boolean;
  readonly problems: readonly BackingProblem[];
  readonly attestation: {
    readonly seq: number;
    readonly root: Hex;
    /** Unix seconds of the block that took it. */
    readonly attestedAt: number;
    /** Deposited, withdrawn, paid out, refunded: the operator's claim, decimal. */
    readonly totals: readonly [string, string, string, string];
  } | null;
  /** The attested checkpoint as the public log has it, with the wallet's own root at its size. */
  readonly checkpoint: PublishedCheckpoint | null;
  /** Unspent notes the attestation covers (leaf below the attested size), and their value. */
  readonly covered: { readonly notes: number; readonly value: string };
  /** Unspent notes newer than the attestation: the next one covers them. */
  readonly notYetCovered: { readonly notes: number; readonly value: string };
  /** What this check cannot show, said in every report. */
  readonly cannotShow: readonly string[];
}

/** What a wallet's backing check cannot show (docs/audit.md). */
export const CANNOT_SHOW = [
  "that no forged notes exist elsewhere in the tree: only the audit's check of every archived proof shows that (priv-stark audit)",
  "that the escrow holds enough for every note: the audit compares the log with the chain and the escrow's balance",
] as const;

/** Where the wallet reads the chain. */
export interface BackingAccess {
  /** The user's own RPC URL (read through the wallet's proxy when it has one), or a client. */
  readonly rpc: string | PublicClient;
  /** The escrow (default: the wallet's network's). */
  readonly escrow?: Address | undefined;
  /**
   * Called before each read after the first sync, naming where it goes; a throw stops the check
   * there, nothing more sent (the background check stops so when a payment began meanwhile).
   */
  readonly beforeRead?: ((target: 'rpc' | 'pool') => void) | undefined;
}

async function clientOf(wallet: BackedWallet, rpc: string | PublicClient): Promise<PublicClient> {
  if (typeof rpc !== 'string') return rpc;
  const proxied = await wallet.proxiedFetch(rpc);
  return createPublicClient({
    transport: http(rpc, { retryCount: 1, ...(proxied ? { fetchFn: proxied } : {}) }),
  });
}

const sum = (notes: readonly StoredNote[]) =>
  notes.reduce((total, n) => total + BigInt(n.value), 0n).toString();

/**
 * Syncs, then checks the wallet's notes against the escrow's latest attestation.
 * @throws ChainWalletError-free: RPC and pool node failures throw as they come (viem's errors,
 *   PoolNodeError); a backing that cannot be shown is a report with `ok: false` and its problems
 */
export async function verifyBacking(
  wallet: BackedWallet,
  access: BackingAccess,
): Promise<BackingReport> {
  const escrow = access.escrow ?? (wallet.network.chain?.escrow as Address | undefined);
  if (escrow === undefined) throw new Error('the wallet is not for a pool backed by an escrow');
  const client = await clientOf(wallet, access.rpc);
  const beforeRead = access.beforeRead ?? (() => undefined);
  await wallet.sync();
  beforeRead('rpc');
  const latest = await client.readContract({
    address: escrow,
    abi: ESCROW_ABI,
    functionName: 'latestAttestation',
  });
  const seq = Number(latest.seq);
  const notes = wallet.notes();
  const report = (
    problems: BackingProblem[],
    checkpoint: PublishedCheckpoint | null,
  ): BackingReport => {
    const size = checkpoint?.size ?? 0;
    const covered = notes.filter((n) => n.index < size);
    const later = notes.filter((n) => n.index >= size);
    return {
      ok: problems.length === 0,
      problems,
      attestation:
        seq === 0
          ? null
          : {
              seq,
              root: latest.root,
              attestedAt: Number(latest.attestedAt),
              totals: latest.totals.map(String) as unknown as [string, string, string, string],
            },
      checkpoint,
      covered: { notes: covered.length, value: sum(covered) },
      notYetCovered: { notes: later.length, value: sum(later) },
      cannotShow: CANNOT_SHOW,
    };
  };
  if (seq === 0) return report(['not_attested'], null);
  beforeRead('pool');
  let checkpoint = await wallet.publishedCheckpoint(seq);
  if (checkpoint?.localRoot === null) {
    // Attested after the sync read that far: one more sync, the same for every wallet.
    beforeRead('pool');
    await wallet.sync();
    beforeRead('pool');
    checkpoint = await wallet.publishedCheckpoint(seq);
  }
  if (checkpoint === null) return report(['attested_checkpoint_missing'], null);
  if (checkpoint.localRoot === null) return report(['attestation_ahead'], null);
  const matches =
    checkpoint.root.toLowerCase() === latest.root.toLowerCase() &&
    checkpoint.localRoot.toLowerCase() === latest.root.toLowerCase();
  return report(matches ? [] : ['root_mismatch'], checkpoint);
}
