/**
 * @module The shape of a linkage heuristic: a name, the leak it exploits (the switch its must-fail
 * twin re-enables), and from the operator's view a score for any two items — higher when the
 * operator believes they came from one wallet (one heuristic is a network observer's instead).
 */

import type { Item, OperatorView } from '../operator-view.js';
import type { ScoringContext } from './evidence.js';

export interface Heuristic {
  readonly name: string;
  /** The leak it feeds on, as docs/privacy.md names it. */
  readonly leak: string;
  /**
   * Whose it is: the operator's (the default), judged by the pass criterion and combined; or a
   * network observer's on the wallets' links, reported beside (docs/privacy.md, "What remains").
   */
  readonly observer?: 'operator' | 'network';
  prepare(view: OperatorView, context: ScoringContext): (a: Item, b: Item) => number;
}
