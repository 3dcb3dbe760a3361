/**
 * @module Every heuristic of the linkage test, in the order the report lists them.
 */

import { addressJoin } from './address-join.js';
import { amountJoin } from './amount-join.js';
import { anchorJoin } from './anchor-join.js';
import { cursorChain } from './cursor-chain.js';
import type { Heuristic } from './heuristic.js';
import { refillTiming } from './refill-timing.js';
import { reshownNullifier } from './reshown-nullifier.js';
import { timingJoin } from './timing-join.js';
import { uploadTiming } from './upload-timing.js';

export type { Heuristic } from './heuristic.js';

export const HEURISTICS: readonly Heuristic[] = [
  addressJoin,
  anchorJoin,
  timingJoin,
  amountJoin,
  cursorChain,
  refillTiming,
  reshownNullifier,
  uploadTiming,
];

/** Whether `name` is a network observer's heuristic (reported, neither judged nor combined). */
export function isNetworkObservers(name: string): boolean {
  return HEURISTICS.some((h) => h.name === name && h.observer === 'network');
}
