/**
 * @module Amount join: public amounts. A deposit and an exit fit when the exit is at most the
 * deposit and the difference is a whole number of price units (what payments could have spent);
 * a transparent split of exactly a payment's amount to some recipient, at any time later, names
 * that recipient for the payment; a deposit names the recipients whose transparent splits add up
 * to at most it. Scores are shared out over the candidates.
 */

import type { Item } from '../operator-view.js';
import { evidenceScorer, uniform, type Evidence } from './evidence.js';
import type { Heuristic } from './heuristic.js';

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

export const amountJoin: Heuristic = {
  name: 'amount join',
  leak: 'transparent splits (and exits of what is left)',
  prepare(view) {
    const payments = view.items.filter((i) => i.kind === 'payment');
    const unit = payments.reduce((g, p) => gcd(g, BigInt(p.amount)), 0n) || 1n;
    const deposits = view.items.filter((i) => i.kind === 'deposit');
    const transfers = view.items.filter((i) => i.kind === 'transfer' && i.counterparty !== null);
    const splitTotal = new Map<string, bigint>();
    for (const t of transfers)
      splitTotal.set(t.counterparty!, (splitTotal.get(t.counterparty!) ?? 0n) + BigInt(t.amount));
    const evidence = new Map<string, Evidence>();
    for (const p of payments)
      evidence.set(
        p.id,
        uniform(
          transfers
            .filter((t) => t.time > p.time && t.amount === p.amount)
            .map((t) => `r:${t.counterparty}`),
        ),
      );
    for (const d of deposits)
      evidence.set(
        d.id,
        uniform(
          [...splitTotal].filter(([, total]) => total <= BigInt(d.amount)).map(([r]) => `r:${r}`),
        ),
      );
    const splits = evidenceScorer(evidence);
    const fits = (d: Item, e: Item) => {
      const left = BigInt(d.amount) - BigInt(e.amount);
      return left >= 0n && left % unit === 0n;
    };
    const candidates = new Map<string, number>();
    for (const e of view.items.filter((i) => i.kind === 'exit'))
      candidates.set(e.id, deposits.filter((d) => fits(d, e)).length);
    return (a, b) => {
      const [d, e] = a.kind === 'deposit' ? [a, b] : [b, a];
      if (d.kind === 'deposit' && e.kind === 'exit')
        return fits(d, e) ? 1 / Math.max(1, candidates.get(e.id) ?? 1) : 0;
      return splits(a, b);
    };
  },
};
