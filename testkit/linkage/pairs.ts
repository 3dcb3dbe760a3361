/**
 * @module The pairs the linkage test scores — payment–payment, deposit–payment, payment–exit and
 * deposit–exit — each labelled by the ground truth (one wallet or two), and each payment's
 * transport as it really went (inline, by a merchant's relay, through a proxy, or direct from the
 * wallet's own address). Every same-wallet pair is kept; cross-wallet pairs beyond a cap are
 * sampled (AUC does not depend on the classes' ratio).
 */

import type { Item, OperatorView } from './operator-view.js';
import { Random } from './random.js';
import { type GroundTruth, ownerOf } from './truth.js';

export const PAIR_TYPES = [
  'payment-payment',
  'deposit-payment',
  'payment-exit',
  'deposit-exit',
] as const;
export type PairType = (typeof PAIR_TYPES)[number];

/**
 * How a payment's proof reached the operator. `unknown`: no hand-over seen, or one from an address
 * that is neither a proxy's nor the payer's nor a merchant's (another actor's, or the unbound
 * 127.0.0.1 — a connection opened outside the payer's context), which the pass criterion never
 * counts as private.
 */
export type Transport = 'inline' | 'relay' | 'proxy' | 'direct' | 'unknown';

export interface Pair {
  readonly a: Item;
  readonly b: Item;
  readonly same: boolean;
  /** Whether every payment of the pair went by relay, inline or proxy. */
  readonly privateTransport: boolean;
}

/** Each payment's transport: from the hand-over's source against the truth's addresses. */
export function transports(view: OperatorView, truth: GroundTruth): Map<string, Transport> {
  const merchantAddresses = new Set(
    truth.actors.filter((a) => a.role === 'merchant').map((a) => a.address),
  );
  // A wallet whose sessions each have an address has several.
  const walletAddresses = new Map<number, Set<string>>();
  for (const a of truth.actors)
    if (a.role === 'wallet')
      walletAddresses.set(a.id, (walletAddresses.get(a.id) ?? new Set()).add(a.address));
  const actorAddresses = new Set([...truth.actors.map((a) => a.address), '127.0.0.1']);
  const out = new Map<string, Transport>();
  for (const item of view.items) {
    if (item.kind !== 'payment') continue;
    if (item.inline) {
      out.set(item.id, 'inline');
      continue;
    }
    const source = item.sources[0];
    const owner = ownerOf(truth, item);
    if (source === undefined) out.set(item.id, 'unknown');
    else if (merchantAddresses.has(source)) out.set(item.id, 'relay');
    else if (owner !== undefined && walletAddresses.get(owner)?.has(source))
      out.set(item.id, 'direct');
    else if (actorAddresses.has(source)) out.set(item.id, 'unknown');
    else out.set(item.id, 'proxy');
  }
  return out;
}

/** The labelled pairs of each type, at most `cap` cross-wallet pairs each (seeded sample). */
export function labelledPairs(
  view: OperatorView,
  truth: GroundTruth,
  options: { cap?: number; seed?: number } = {},
): Map<PairType, Pair[]> {
  const cap = options.cap ?? 20_000;
  const random = new Random(options.seed ?? 7);
  const transport = transports(view, truth);
  const owned = view.items.filter((i) => ownerOf(truth, i) !== undefined);
  const of = (kind: Item['kind']) => owned.filter((i) => i.kind === kind);
  const isPrivate = (i: Item) =>
    i.kind !== 'payment' || ['inline', 'relay', 'proxy'].includes(transport.get(i.id) ?? '');
  const lists: Record<PairType, [Item[], Item[]]> = {
    'payment-payment': [of('payment'), of('payment')],
    'deposit-payment': [of('deposit'), of('payment')],
    'payment-exit': [of('payment'), of('exit')],
    'deposit-exit': [of('deposit'), of('exit')],
  };
  const out = new Map<PairType, Pair[]>();
  for (const type of PAIR_TYPES) {
    const [left, right] = lists[type];
    const symmetric = left === right || type === 'payment-payment';
    const same: Pair[] = [];
    const cross: Pair[] = [];
    left.forEach((a, i) => {
      right.forEach((b, j) => {
        if (symmetric && j <= i) return;
        const pair = {
          a,
          b,
          same: ownerOf(truth, a) === ownerOf(truth, b),
          privateTransport: isPrivate(a) && isPrivate(b),
        };
        (pair.same ? same : cross).push(pair);
      });
    });
    // Partial Fisher–Yates: the first `cap` of a seeded shuffle.
    for (let i = 0; i < Math.min(cap, cross.length); i++) {
      const j = i + random.below(cross.length - i);
      [cross[i], cross[j]] = [cross[j]!, cross[i]!];
    }
    out.set(type, [...same, ...cross.slice(0, cap)]);
  }
  return out;
}
