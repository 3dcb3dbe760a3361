/**
 * @module What both stores do inside their lock, written once: given the head row and which of a
 * group's nullifiers and deposit commitments the store already holds, decide each op, assign leaf
 * indexes and event ids, and compute the new frontier. The stores only read and write rows around
 * it, so the rules cannot drift apart between SQLite and PostgreSQL.
 */

import { TREE_CAPACITY } from '../core/index.js';
import type { HandOverOp, PayoutStatus, StoreOp, StoreOpResult, TreeHasher } from './store.js';
import type { EventRow, Head, KnownWithdrawal } from './store-rows.js';

/** What the store holds of a group's handed-over proofs, read under the lock. */
export interface StoredProofs {
  /** References of the group already stored → their expiry (unix ms). */
  readonly existing: ReadonlyMap<string, number>;
  /** Rows stored per nullifier, for the nullifiers of the group's hand-overs and settlements. */
  readonly perNullifier: ReadonlyMap<string, number>;
}

/** The rows one group writes. */
export interface Plan {
  readonly results: StoreOpResult[];
  readonly leaves: { idx: number; commitment: string }[];
  readonly nullifiers: { nullifier: string; settlement_id: string; event_id: number }[];
  readonly events: EventRow[];
  /**
   * Handed-over proofs to insert (or, for a stored reference past its time, to keep again), at
   * most one per reference.
   */
  readonly proofs: HandOverOp[];
  /** Nullifiers whose handed-over proofs go (they settled); after the inserts. */
  readonly dropProofsOf: string[];
  /** Payout rows to insert or update. */
  readonly payouts: { withdrawal_id: string; status: PayoutStatus; updated_at: number }[];
  /** The new head, or `null` when nothing was accepted (no write needed). */
  readonly head: Head | null;
}

/**
 * Decides a group of ops against the store's contents.
 * @param spent nullifiers of the group's settlements, transitions and hand-overs already spent in
 *   the store
 * @param present deposit commitments of the group already in the tree
 * @param stored what the store holds of the group's handed-over proofs
 * @param withdrawals the withdrawals the group's payout ops name, as the store holds them
 */
export function planGroup(
  tree: TreeHasher,
  head: Head,
  ops: readonly StoreOp[],
  spent: ReadonlySet<string>,
  present: ReadonlySet<string>,
  stored: StoredProofs,
  now: number,
  withdrawals: ReadonlyMap<string, KnownWithdrawal> = new Map(),
): Plan {
  const seenNullifiers = new Set<string>();
  const seenCommitments = new Set<string>();
  const results: StoreOpResult[] = [];
  const leaves: { idx: number; commitment: string }[] = [];
  const nullifiers: { nullifier: string; settlement_id: string; event_id: number }[] = [];
  const events: EventRow[] = [];
  const proofs: HandOverOp[] = [];
  const dropProofsOf: string[] = [];
  // Rows per nullifier as the group goes: the store's, plus this group's inserts.
  const proofsOf = new Map(stored.perNullifier);
  const addedReferences = new Map<string, number>();
  let size = head.size;
  let eventCount = head.eventCount;
  let depositTotal = BigInt(head.depositTotal);
  let proofRows = head.proofRows;
  let withdrawnTotal = BigInt(head.withdrawnTotal);
  let paidOutTotal = BigInt(head.paidOutTotal);
  let refundedTotal = BigInt(head.refundedTotal);
  const payouts: { withdrawal_id: string; status: PayoutStatus; updated_at: number }[] = [];
  const payoutStatus = new Map<string, PayoutStatus | null>();

  for (const op of ops) {
    if (op.kind === 'payout') {
      const known = withdrawals.get(op.withdrawalId);
      if (!known) {
        results.push({ ok: false, reason: 'unknown_withdrawal' });
        continue;
      }
      const current = payoutStatus.has(op.withdrawalId)
        ? (payoutStatus.get(op.withdrawalId) ?? null)
        : known.status;
      if (current === op.status) {
        // The same step again: answered as before, nothing written.
        results.push({
          ok: true,
          kind: 'payout',
          withdrawalId: op.withdrawalId,
          status: op.status,
        });
        continue;
      }
      const allowed = op.status === 'paying' ? current === null : current === 'paying';
      if (!allowed) {
        results.push({ ok: false, reason: 'payout_conflict', status: current });
        continue;
      }
      if (op.status === 'failed') {
        if (size + 1 > TREE_CAPACITY) {
          results.push({ ok: false, reason: 'tree_full' });
          continue;
        }
        const id = ++eventCount;
        leaves.push({ idx: size, commitment: known.refund });
        events.push({
          id,
          kind: 'refund',
          created_at: now,
          amount: known.amount,
          leaf_index: size,
          commitment: known.refund,
          nullifier: known.nullifier,
          settlement_id: op.withdrawalId,
          recipient: null,
          recipient_note: null,
          nullifier_2: null,
          memo: null,
          refund: null,
        });
        refundedTotal += BigInt(known.amount);
        results.push({
          ok: true,
          kind: 'payout',
          withdrawalId: op.withdrawalId,
          status: 'failed',
          refundIndex: size,
          eventId: id,
        });
        size += 1;
      } else {
        if (op.status === 'paid') paidOutTotal += BigInt(known.amount);
        results.push({
          ok: true,
          kind: 'payout',
          withdrawalId: op.withdrawalId,
          status: op.status,
        });
      }
      payoutStatus.set(op.withdrawalId, op.status);
      const earlier = payouts.findIndex((p) => p.withdrawal_id === op.withdrawalId);
      if (earlier >= 0) payouts.splice(earlier, 1);
      payouts.push({ withdrawal_id: op.withdrawalId, status: op.status, updated_at: now });
    } else if (op.kind === 'transition') {
      const [first, second] = op.nullifiers;
      if ([first, second].some((nf) => spent.has(nf) || seenNullifiers.has(nf))) {
        results.push({ ok: false, reason: 'nullifier_already_spent' });
        continue;
      }
      if (first === second) throw new Error('a transition with equal nullifiers reached the store');
      if (size + 2 > TREE_CAPACITY) {
        results.push({ ok: false, reason: 'tree_full' });
        continue;
      }
      seenNullifiers.add(first);
      seenNullifiers.add(second);
      const id = ++eventCount;
      leaves.push(
        { idx: size, commitment: op.outputs[0] },
        { idx: size + 1, commitment: op.outputs[1] },
      );
      for (const nullifier of op.nullifiers)
        nullifiers.push({ nullifier, settlement_id: op.transitionId, event_id: id });
      const exit = BigInt(op.exit);
      events.push({
        id,
        kind: exit > 0n ? 'withdrawal' : 'transition',
        created_at: now,
        amount: op.exit,
        leaf_index: size,
        commitment: op.outputs[0],
        nullifier: first,
        settlement_id: op.transitionId,
        recipient: exit > 0n ? op.destination : null,
        recipient_note: op.outputs[1],
        nullifier_2: second,
        memo: op.memo.join(','),
        refund: exit > 0n ? op.refund : null,
      });
      withdrawnTotal += exit;
      results.push({
        ok: true,
        kind: 'transition',
        eventId: id,
        transitionId: op.transitionId,
        outputIndexes: [size, size + 1],
      });
      size += 2;
      // A handed-over payment proof of a nullifier this transition spends can serve nothing any
      // more; it expires on its own (the payment would be refused as already spent).
    } else if (op.kind === 'settlement') {
      if (spent.has(op.nullifier) || seenNullifiers.has(op.nullifier)) {
        results.push({ ok: false, reason: 'duplicate_settlement', settlementId: op.settlementId });
        continue;
      }
      if (size + 2 > TREE_CAPACITY) {
        results.push({ ok: false, reason: 'tree_full' });
        continue;
      }
      seenNullifiers.add(op.nullifier);
      const id = ++eventCount;
      leaves.push(
        { idx: size, commitment: op.change },
        { idx: size + 1, commitment: op.recipientNote },
      );
      nullifiers.push({ nullifier: op.nullifier, settlement_id: op.settlementId, event_id: id });
      events.push({
        id,
        kind: 'settlement',
        created_at: now,
        amount: op.amount,
        leaf_index: size,
        commitment: op.change,
        nullifier: op.nullifier,
        settlement_id: op.settlementId,
        recipient: op.recipient,
        recipient_note: op.recipientNote,
        nullifier_2: null,
        memo: null,
        refund: null,
      });
      results.push({
        ok: true,
        kind: 'settlement',
        eventId: id,
        settlementId: op.settlementId,
        changeIndex: size,
        recipientIndex: size + 1,
        recipientNote: op.recipientNote,
      });
      size += 2;
      // Its handed-over proofs go in the same commit: they can serve nothing any more. Those of
      // this group are not inserted at all (PostgreSQL's delete would not see them).
      const rows = proofsOf.get(op.nullifier) ?? 0;
      if (rows > 0) {
        const fresh = proofs.filter((p) => p.nullifier === op.nullifier);
        const kept = proofs.filter((p) => p.nullifier !== op.nullifier);
        proofs.length = 0;
        proofs.push(...kept);
        const newRows = fresh.filter((p) => !stored.existing.has(p.reference)).length;
        if (rows > newRows) dropProofsOf.push(op.nullifier);
        proofRows -= rows;
        proofsOf.set(op.nullifier, 0);
      }
    } else if (op.kind === 'handover') {
      if (spent.has(op.nullifier) || seenNullifiers.has(op.nullifier)) {
        results.push({ ok: false, reason: 'nullifier_already_spent' });
        continue;
      }
      const known = addedReferences.get(op.reference) ?? stored.existing.get(op.reference);
      if (known !== undefined && known > now) {
        results.push({
          ok: true,
          kind: 'handover',
          reference: op.reference,
          expiresAt: known,
          stored: false,
        });
        continue;
      }
      if (known !== undefined) {
        // Stored but past its time and not pruned yet: the row is kept again with the new time.
        // One row per reference in the group's writes: PostgreSQL's one-statement upsert refuses
        // to touch a row twice (the whole group would fail), so a later op replaces an earlier one.
        const earlier = proofs.findIndex((p) => p.reference === op.reference);
        if (earlier >= 0) proofs.splice(earlier, 1);
        proofs.push(op);
        addedReferences.set(op.reference, op.expiresAt);
        results.push({
          ok: true,
          kind: 'handover',
          reference: op.reference,
          expiresAt: op.expiresAt,
          stored: true,
        });
        continue;
      }
      const rows = proofsOf.get(op.nullifier) ?? 0;
      if (rows >= op.perNullifier) {
        results.push({ ok: false, reason: 'too_many_proofs' });
        continue;
      }
      if (proofRows >= op.capacity) {
        results.push({ ok: false, reason: 'proof_store_full' });
        continue;
      }
      proofs.push(op);
      addedReferences.set(op.reference, op.expiresAt);
      proofsOf.set(op.nullifier, rows + 1);
      proofRows += 1;
      results.push({
        ok: true,
        kind: 'handover',
        reference: op.reference,
        expiresAt: op.expiresAt,
        stored: true,
      });
    } else {
      if (present.has(op.commitment) || seenCommitments.has(op.commitment)) {
        results.push({ ok: false, reason: 'duplicate_commitment' });
        continue;
      }
      if (size + 1 > TREE_CAPACITY) {
        results.push({ ok: false, reason: 'tree_full' });
        continue;
      }
      seenCommitments.add(op.commitment);
      const id = ++eventCount;
      leaves.push({ idx: size, commitment: op.commitment });
      events.push({
        id,
        kind: 'deposit',
        created_at: now,
        amount: op.amount,
        leaf_index: size,
        commitment: op.commitment,
        nullifier: null,
        settlement_id: null,
        recipient: null,
        recipient_note: null,
        nullifier_2: null,
        memo: null,
        refund: null,
      });
      depositTotal += BigInt(op.amount);
      results.push({
        ok: true,
        kind: 'deposit',
        eventId: id,
        index: size,
        commitment: op.commitment,
      });
      size += 1;
    }
  }

  const written =
    leaves.length > 0 || proofs.length > 0 || dropProofsOf.length > 0 || payouts.length > 0;
  if (!written)
    return { results, leaves, nullifiers, events, proofs, dropProofsOf, payouts, head: null };
  const frontier =
    leaves.length === 0
      ? { size: head.size, root: head.root, state: head.frontier }
      : tree.frontierAppend(
          { size: head.size, root: head.root, state: head.frontier },
          leaves.map((leaf) => leaf.commitment),
        );
  if (frontier.size !== size)
    throw new Error(`frontier size ${frontier.size} after the append, expected ${size}`);
  return {
    results,
    leaves,
    nullifiers,
    events,
    proofs,
    dropProofsOf,
    payouts,
    head: {
      size,
      root: frontier.root,
      frontier: frontier.state,
      eventCount,
      checkpointCount: head.checkpointCount,
      depositTotal: depositTotal.toString(),
      proofRows,
      withdrawnTotal: withdrawnTotal.toString(),
      paidOutTotal: paidOutTotal.toString(),
      refundedTotal: refundedTotal.toString(),
    },
  };
}
