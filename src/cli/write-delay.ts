/**
 * @module Before a one-shot command writes (`pay`, `wallet transfer`, `split`, `merge`, `exit`;
 * docs/privacy.md, "Anchors and sync"): a wallet whose stored state covers the current epoch — its
 * anchor is the one every wallet takes now — writes without syncing; otherwise it syncs, then waits
 * a random delay of at least one epoch, so the operator cannot tie the sync (its address, its time)
 * to the write that follows, and syncs the newest fixed pages again just before it. `--no-delay`
 * writes at once, with a warning. A pool without a grid (E = 1 ms) has no epoch to wait.
 */

import { randomInt } from 'node:crypto';

import type { EpochGrid } from '../scheme/index.js';

/** What the delay reads of a wallet (`Wallet`). */
export interface WritingWallet {
  coversCurrentEpoch(): boolean;
  sync(): Promise<unknown>;
  readonly epochGrid: EpochGrid | null;
}

/** How the delay runs. */
export interface WriteDelayOptions {
  /** `--no-delay`: write right after the sync (warned). */
  readonly noDelay: boolean;
  /** Where the warning and the wait's line go (stderr). */
  readonly say: (line: string) => void;
  /** A uniform draw in [0, 1) (default: the platform's cryptographic generator). For tests. */
  readonly random?: () => number;
  /** Waits `ms` (default a timer). For tests. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** What was done before the write. */
export interface WriteDelay {
  readonly synced: boolean;
  /** The wait, ms (0: none). */
  readonly delayMs: number;
}

const cryptoUniform = () => randomInt(0, 2 ** 32) / 2 ** 32;

/** Makes the wallet ready for a write, syncing and waiting as the module says. */
export async function syncBeforeWrite(
  wallet: WritingWallet,
  options: WriteDelayOptions,
): Promise<WriteDelay> {
  if (wallet.coversCurrentEpoch()) return { synced: false, delayMs: 0 };
  await wallet.sync();
  const epochMs = wallet.epochGrid?.epochMs ?? 1;
  if (epochMs <= 1) return { synced: true, delayMs: 0 };
  if (options.noDelay) {
    options.say(
      'warning: --no-delay writes right after this sync: the operator can tie the sync (its network address and time) to the write',
    );
    return { synced: true, delayMs: 0 };
  }
  const delayMs = epochMs + Math.floor((options.random ?? cryptoUniform)() * epochMs);
  options.say(
    `waiting ${Math.ceil(delayMs / 1000)} s before the write, so this sync does not name it (--no-delay: at once)`,
  );
  await (options.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms))))(
    delayMs,
  );
  // The newest fixed pages again: what the pool published while the wallet waited.
  await wallet.sync();
  return { synced: true, delayMs };
}
