/**
 * @module Where one attempt of a payout stands on chain — an attempt being a nonce reserved for a
 * withdrawal, with the transactions signed for it (at most one of which can be mined: they share
 * the nonce). Every transaction signed for it is looked up, the first too, not only the latest
 * replacement: an original mined after its replacement was sent pays as well as the replacement.
 * The states that end an attempt are facts at a final block, never the absence of a sighting.
 */

import type { Address, Hex, PublicClient } from 'viem';

import type { PayoutAttempt } from '../ledger/payout-journal.js';
import { type ChainView, minedOf } from './payout-chain.js';

/** Where an attempt stands. */
export type AttemptState =
  /** Reserved, nothing signed yet (a crash between the two): it is signed next. */
  | { readonly kind: 'unsigned' }
  /** Signed, not mined, and it can still be. */
  | { readonly kind: 'open' }
  /** One of its transactions paid the withdrawal (`final`: at or before the final block). */
  | { readonly kind: 'paid'; readonly hash: Hex; readonly final: boolean }
  /** One of its transactions was mined and reverted. */
  | { readonly kind: 'reverted'; readonly final: boolean }
  /** None of its transactions was mined, but the key's nonce passed it at the final block. */
  | { readonly kind: 'taken' }
  /** Not mined, and a final block is past its deadline: none of them can pay any more. */
  | { readonly kind: 'expired' };

/** Whether an attempt can no longer pay (it reverted or expired or lost its nonce, finally). */
export function isDead(state: AttemptState): boolean {
  return (
    state.kind === 'taken' || state.kind === 'expired' || (state.kind === 'reverted' && state.final)
  );
}

/** Reads where `attempt` stands as of `view`. */
export async function attemptState(
  client: PublicClient,
  escrow: Address,
  attempt: PayoutAttempt,
  view: ChainView,
): Promise<AttemptState> {
  if (attempt.transactions.length === 0) return { kind: 'unsigned' };
  for (const transaction of attempt.transactions) {
    const mined = await minedOf(
      client,
      transaction.hash as Hex,
      escrow,
      attempt.withdrawalId as Hex,
    );
    if (mined === null) continue;
    const final = mined.blockNumber <= view.final.number;
    return mined.paid
      ? { kind: 'paid', hash: transaction.hash as Hex, final }
      : { kind: 'reverted', final };
  }
  if (attempt.nonce < view.nonces.final) return { kind: 'taken' };
  if (BigInt(attempt.deadline) < view.final.timestamp) return { kind: 'expired' };
  return { kind: 'open' };
}
