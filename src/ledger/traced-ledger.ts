/**
 * @module The ledger's spans, put on once where `Ledger` is built rather than in each operation:
 * `ledger.settle` (a transfer too, inline), `ledger.refuse`, `ledger.hand_over` and
 * `ledger.note_transition` around its operations; `ledger.commit` around a group-commit
 * submission (whose store call is its child) and `proof.verify` around a verification, in the
 * context the operations share. A span carries the transport and the reason of a refusal — never
 * an argument or a result. Without a recording request span each costs a context lookup.
 */

import { inSpan, type SpanOptions } from '../tracing/spans.js';
import type { LedgerContext } from './context.js';
import type { HandOverInput, HandOverResult } from './hand-over.js';
import type { NoteTransitionInput, NoteTransitionResult } from './note-transition.js';
import type { SettlementInput, SettleRefusal, SettleResult } from './settle.js';
import type { TransferInput } from './transfer.js';

/** The ledger's operations that each run in a span of their own. */
export interface SpannedOperations {
  settle(input: SettlementInput): Promise<SettleResult>;
  transfer(input: TransferInput): Promise<SettleResult>;
  refuse<R extends string>(nullifier: unknown, reason: R): Promise<SettleRefusal<R>>;
  handOver(input: HandOverInput): Promise<HandOverResult>;
  noteTransition(input: NoteTransitionInput): Promise<NoteTransitionResult>;
}

/** The reason of a refusal, for its span (`null` when accepted). */
const reasonOf = (result: { readonly ok: boolean; readonly reason?: string }) =>
  result.ok ? null : (result.reason ?? null);

const REFUSALS: SpanOptions<{ readonly ok: boolean; readonly reason?: string }> = { reasonOf };
const INLINE_SETTLEMENT: SpanOptions<SettleResult> = {
  facts: { 'priv_stark.transport': 'inline' },
  reasonOf,
};
const SPEND_VERDICT: SpanOptions<{ readonly reason: string } | null> = {
  leaf: true,
  reasonOf: (refused) => refused?.reason ?? null,
};
const TRANSITION_VERDICT: SpanOptions<unknown> = { leaf: true };

const REFERENCE_SETTLEMENT: SpanOptions<SettleResult> = {
  facts: { 'priv_stark.transport': 'reference' },
  reasonOf,
};

/** A settlement's span: whether it carries its proof or a reference. */
function transportOf(input: unknown): SpanOptions<SettleResult> {
  const inline = typeof input === 'object' && input !== null && 'proof' in input;
  return inline && input.proof !== undefined && input.proof !== null
    ? INLINE_SETTLEMENT
    : REFERENCE_SETTLEMENT;
}

/**
 * `operations`, each in its span (a transfer is a settlement's span, its proof always inline).
 * @example
 * const spanned = tracedOperations({ settle: (input) => settle(context, input), … });
 */
export function tracedOperations(operations: SpannedOperations): SpannedOperations {
  return {
    settle: (input) => inSpan('ledger.settle', () => operations.settle(input), transportOf(input)),
    transfer: (input) =>
      inSpan('ledger.settle', () => operations.transfer(input), INLINE_SETTLEMENT),
    refuse: (nullifier, reason) =>
      inSpan('ledger.refuse', () => operations.refuse(nullifier, reason), REFUSALS),
    handOver: (input) => inSpan('ledger.hand_over', () => operations.handOver(input), REFUSALS),
    noteTransition: (input) =>
      inSpan('ledger.note_transition', () => operations.noteTransition(input), REFUSALS),
  };
}

/**
 * `context` whose group-commit submissions run in a `ledger.commit` span (the committer keeps it,
 * so the group's store call is traced under the first op's) and whose verifications run in a
 * leaf `proof.verify` span each.
 */
export function tracedContext<C extends LedgerContext>(context: C): C {
  const { commit, verifySpend, verifyHandOver, verifyTransition } = context;
  return {
    ...context,
    commit: (op, expiry) => inSpan('ledger.commit', () => commit(op, expiry), REFUSALS),
    verifySpend: (proof, pi) => inSpan('proof.verify', () => verifySpend(proof, pi), SPEND_VERDICT),
    verifyHandOver: (proof, pi) =>
      inSpan('proof.verify', () => verifyHandOver(proof, pi), SPEND_VERDICT),
    verifyTransition: (proof, pi) =>
      inSpan('proof.verify', () => verifyTransition(proof, pi), TRANSITION_VERDICT),
  };
}
