/**
 * @module Whether a wallet is writing: a payment, transfer, transition or exit under way, and when
 * the latest began — what its background reads (the backing check, `backing-schedule.ts`) keep
 * away from, so that their timing never falls next to a write's.
 */

import type { WalletContext } from './wallet-context.js';

/**
 * Whether a write of this wallet is under way: a payment being built or pending (until the log
 * settles or expires it), or a transition or exit whose notes the log does not show spent yet.
 */
export function writesUnderWay(ctx: WalletContext): boolean {
  if (ctx.state.pending.some((p) => p.status === 'pending')) return true;
  // A transition's notes stay reserved after it was sent: it is under way until they are spent.
  const reserved = ctx.reserved.commitments();
  return reserved.size > 0 && ctx.state.notes.some((n) => !n.spent && reserved.has(n.commitment));
}

/**
 * When the latest write began (unix ms, the wallet's clock): the latest reservation of notes since
 * the wallet was opened, or a payment record's creation (records outlive a restart); `null` when
 * neither exists.
 */
export function lastWriteAt(ctx: WalletContext): number | null {
  let latest = ctx.reserved.lastReservedAt;
  for (const p of ctx.state.pending)
    if (latest === null || p.createdAt > latest) latest = p.createdAt;
  return latest;
}
