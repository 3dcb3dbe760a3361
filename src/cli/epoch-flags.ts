/**
 * @module The epoch grid's flags of `priv-stark start` and `pool serve` (docs/privacy.md, "Anchors
 * and sync"): `--epoch-ms` (`EPOCH_MS`, 60000) and `--anchor-delay-ms` (`ANCHOR_DELAY_MS`, 10000,
 * or a sixth of a shorter epoch). `EPOCH_MS=1` is no grid: a checkpoint whenever the timer asks,
 * anchored to at once — for tests and a devnet that must not wait, never for a pool whose payers
 * want to share anchors.
 */

import { checkEpochGrid, DEFAULT_EPOCH_GRID, type EpochGrid } from '../scheme/index.js';
import { UsageError } from './usage-error.js';

/** The flags' lines of `start --help`. */
export const EPOCH_FLAGS_USAGE = `  --epoch-ms N                checkpoints wallets anchor to, one per epoch boundary (EPOCH_MS,
                              60000; 1: no grid, for tests and a devnet that must not wait)
  --anchor-delay-ms N         how old a boundary's checkpoint is before wallets anchor to it
                              (ANCHOR_DELAY_MS, 10000, or a sixth of a shorter epoch)`;

/** The flags as `parseArgs` options. */
export const EPOCH_OPTIONS = {
  'epoch-ms': { type: 'string' },
  'anchor-delay-ms': { type: 'string' },
} as const;

function whole(text: string, name: string): number {
  if (!/^[0-9]{1,10}$/.test(text)) throw new UsageError(`${name} expected a whole number of ms`);
  return Number(text);
}

/**
 * The grid from the flags (which win) and the environment; without either, the product's
 * {@link DEFAULT_EPOCH_GRID}.
 * @throws UsageError for a value that is not a whole number, an epoch below 1 ms or above a day,
 *   or a delay not below the epoch
 */
export function epochGridConfig(
  values: Record<string, string | boolean | string[] | undefined>,
  env: NodeJS.ProcessEnv,
): EpochGrid {
  const epochText = (values['epoch-ms'] as string | undefined) ?? (env.EPOCH_MS || undefined);
  const delayText =
    (values['anchor-delay-ms'] as string | undefined) ?? (env.ANCHOR_DELAY_MS || undefined);
  const epochMs =
    epochText === undefined ? DEFAULT_EPOCH_GRID.epochMs : whole(epochText, 'EPOCH_MS');
  if (epochMs < 1 || epochMs > 86_400_000)
    throw new UsageError('EPOCH_MS expected a whole number of ms in 1..86400000');
  // A shorter epoch than the default keeps the delay below it: a sixth, as 10 s is of 60 s.
  const anchorDelayMs =
    delayText === undefined
      ? Math.min(DEFAULT_EPOCH_GRID.anchorDelayMs, Math.floor(epochMs / 6))
      : whole(delayText, 'ANCHOR_DELAY_MS');
  try {
    return checkEpochGrid({ epochMs, anchorDelayMs });
  } catch (error) {
    throw new UsageError(
      `ANCHOR_DELAY_MS: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
