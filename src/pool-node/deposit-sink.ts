/**
 * @module The pool's side of a deposit source (`deposit-source.ts`) over the ledger: a deposit is
 * screened with the ledger's own deposit rules (an amount a note holds, a canonical
 * precommitment, a commitment not in the tree yet) and shielded through `Ledger.deposit`, which
 * writes the leaf and its deposit event in one commit. Whether a deposit was shielded before — a
 * crash between the commit and the source's record of it — is the ledger's answer: the
 * commitment's leaf with a deposit event (in a chain pool only the source shields, and the escrow
 * takes each `(amount, pre)` once, so that leaf is this deposit's).
 */

import type { PrivStarkCore } from '../core/index.js';
import type { Ledger } from '../ledger/ledger.js';
import { noteCommitment } from '../ledger/notes.js';
import { isCanonicalDigest, parseAmount } from '../scheme/index.js';
import type {
  CommitmentLeaf,
  DeclineReason,
  DepositSink,
  ShieldOutcome,
  SourceDeposit,
} from './deposit-source.js';

/** What {@link ledgerDepositSink} works with. */
export interface LedgerSinkOptions {
  readonly core: Pick<PrivStarkCore, 'hashElements' | 'parseDigest'>;
  readonly ledger: Pick<Ledger, 'deposit'>;
  /** The lowest leaf holding a commitment (`DepositWatchStore.commitmentLeaf`). */
  readonly commitmentLeaf: (commitment: string) => Promise<CommitmentLeaf | null>;
}

/** The sink that screens and shields deposits into `options.ledger`. */
export function ledgerDepositSink(options: LedgerSinkOptions): DepositSink {
  const { core, ledger, commitmentLeaf } = options;
  const checked = (deposit: SourceDeposit) => {
    const amount = parseAmount(deposit.amount);
    if (amount === null) return { reason: 'amount_out_of_range' as const };
    if (!isCanonicalDigest(core, deposit.pre)) return { reason: 'invalid_pre' as const };
    return { commitment: noteCommitment(core, amount, deposit.pre) };
  };
  return {
    async screen(deposit): Promise<DeclineReason | null> {
      const rules = checked(deposit);
      if ('reason' in rules) return rules.reason;
      return (await commitmentLeaf(rules.commitment)) ? 'duplicate_commitment' : null;
    },
    async shield(deposit): Promise<ShieldOutcome> {
      const rules = checked(deposit);
      if ('reason' in rules) return { ok: false, reason: rules.reason };
      const before = await commitmentLeaf(rules.commitment);
      if (before?.deposit) return { ok: true, leafIndex: before.index, already: true };
      if (before) return { ok: false, reason: 'duplicate_commitment' };
      const result = await ledger.deposit({ amount: deposit.amount, pre: deposit.pre });
      if (result.ok) return { ok: true, leafIndex: result.index, already: false };
      if (result.reason === 'duplicate_commitment') {
        // Shielded meanwhile by another call for the same deposit: the same answer as before.
        const after = await commitmentLeaf(rules.commitment);
        if (after?.deposit) return { ok: true, leafIndex: after.index, already: true };
      }
      switch (result.reason) {
        case 'tree_full':
        case 'amount_out_of_range':
        case 'duplicate_commitment':
          return { ok: false, reason: result.reason };
        default:
          return { ok: false, reason: 'invalid_pre' };
      }
    },
  };
}
