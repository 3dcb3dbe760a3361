/**
 * @module What both stores do inside their lock, written once: given the head row and which of a
 * group's nullifiers and deposit commitments the store already holds, decide each op, assign leaf
 * indexes and event ids, and compute the new frontier. One planner per kind of op, each over the
 * group's draft (the rows so far, the head's counters); {@link planGroup} hands every op to its
 * planner in order. The stores only read and write rows around it, so the rules cannot drift
 * apart between SQLite and PostgreSQL.
 */

import { TREE_CAPACITY } from '../core/index.js';
import type { ArchiveRow, ArchiveSource } from './proof-archive.js';
import type {
  DepositOp,
  HandOverOp,
  PayoutOp,
  PayoutStatus,
  SettlementOp,
  StoreOp,
  StoreOpResult,
  TransitionOp,
  TreeHasher,
} from './store.js';
import type { EventRow, Head, KnownWithdrawal } from './store-rows.js';

/** What the store holds of a group's handed-over proofs, read under the lock. */
export interface StoredProofs {
  /**
   * References the group's hand-overs and settlements name that are stored → their expiry (unix
   * ms).
   */
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
  /**
   * Proofs kept in the archive with their events (`proof-archive.ts`); those copied from a stored
   * hand-over are written before {@link dropProofsOf}.
   */
  readonly archive: ArchiveRow[];
  /** Nullifiers whose handed-over proofs go (they settled); after the inserts. */
  readonly dropProofsOf: string[];
  /** Payout rows to insert or update. */
  readonly payouts: { withdrawal_id: string; status: PayoutStatus; updated_at: number }[];
  /** The new head, or `null` when nothing was accepted (no write needed). */
  readonly head: Head | null;
}

/** What the store holds of the group's ops, read under the lock; the group's time. */
interface Known {
  readonly spent: ReadonlySet<string>;
  readonly present: ReadonlySet<string>;
  readonly stored: StoredProofs;
  readonly withdrawals: ReadonlyMap<string, KnownWithdrawal>;
  /** Unix ms, recorded as the events' time. */
  readonly now: number;
}

/** A group's plan as its planners build it, op by op: its rows so far and the head's counters. */
interface Draft extends Omit<Plan, 'results' | 'head'> {
  size: number;
  eventCount: number;
  depositTotal: bigint;
  proofRows: number;
  withdrawnTotal: bigint;
  paidOutTotal: bigint;
  refundedTotal: bigint;
  /** Nullifiers this group spends so far. */
  readonly seenNullifiers: Set<string>;
  /** Deposit commitments this group appends so far. */
  readonly seenCommitments: Set<string>;
  /** Handed-over proofs per nullifier as the group goes: the store's, plus this group's inserts. */
  readonly proofsOf: Map<string, number>;
  /** References this group keeps → their expiry (unix ms). */
  readonly addedReferences: Map<string, number>;
  /** Payout statuses this group records. */
  readonly payoutStatus: Map<string, PayoutStatus | null>;
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
  const known: Known = { spent, present, stored, withdrawals, now };
  const draft = draftOf(head, stored);
  const results = ops.map((op) => planOp(draft, known, op));
  return planOf(tree, head, draft, results);
}

/** Hands an op to the planner of its kind. */
function planOp(draft: Draft, known: Known, op: StoreOp): StoreOpResult {
  switch (op.kind) {
    case 'payout':
      return planPayout(draft, known, op);
    case 'transition':
      return planTransition(draft, known, op);
    case 'settlement':
      return planSettlement(draft, known, op);
    case 'handover':
      return planHandOver(draft, known, op);
    case 'deposit':
      return planDeposit(draft, known, op);
  }
}

/** A payout step: `paying` once, then `paid` or `failed` (which appends the refund note). */
function planPayout(draft: Draft, known: Known, op: PayoutOp): StoreOpResult {
  const withdrawal = known.withdrawals.get(op.withdrawalId);
  if (!withdrawal) return { ok: false, reason: 'unknown_withdrawal' };
  const current = draft.payoutStatus.has(op.withdrawalId)
    ? (draft.payoutStatus.get(op.withdrawalId) ?? null)
    : withdrawal.status;
  if (current === op.status) {
    // The same step again: answered as before, nothing written.
    return { ok: true, kind: 'payout', withdrawalId: op.withdrawalId, status: op.status };
  }
  const allowed = op.status === 'paying' ? current === null : current === 'paying';
  if (!allowed) return { ok: false, reason: 'payout_conflict', status: current };
  let result: StoreOpResult;
  if (op.status === 'failed') {
    if (draft.size + 1 > TREE_CAPACITY) return { ok: false, reason: 'tree_full' };
    result = appendRefund(draft, known, op.withdrawalId, withdrawal);
  } else {
    if (op.status === 'paid') draft.paidOutTotal += BigInt(withdrawal.amount);
    result = { ok: true, kind: 'payout', withdrawalId: op.withdrawalId, status: op.status };
  }
  draft.payoutStatus.set(op.withdrawalId, op.status);
  const earlier = draft.payouts.findIndex((p) => p.withdrawal_id === op.withdrawalId);
  if (earlier >= 0) draft.payouts.splice(earlier, 1);
  draft.payouts.push({ withdrawal_id: op.withdrawalId, status: op.status, updated_at: known.now });
  return result;
}

/** A failed payout's refund: the exit's proven refund note appended for its owner, one event. */
function appendRefund(
  draft: Draft,
  known: Known,
  withdrawalId: string,
  withdrawal: KnownWithdrawal,
): StoreOpResult {
  const id = ++draft.eventCount;
  const index = draft.size;
  draft.leaves.push({ idx: index, commitment: withdrawal.refund });
  draft.events.push({
    id,
    kind: 'refund',
    created_at: known.now,
    amount: withdrawal.amount,
    leaf_index: index,
    commitment: withdrawal.refund,
    nullifier: withdrawal.nullifier,
    settlement_id: withdrawalId,
    recipient: null,
    recipient_note: null,
    nullifier_2: null,
    memo: null,
    refund: null,
  });
  draft.refundedTotal += BigInt(withdrawal.amount);
  draft.size += 1;
  return {
    ok: true,
    kind: 'payout',
    withdrawalId,
    status: 'failed',
    refundIndex: index,
    eventId: id,
  };
}

/** A note transition: both nullifiers, both outputs, one `transition` or `withdrawal` event. */
function planTransition(draft: Draft, known: Known, op: TransitionOp): StoreOpResult {
  const [first, second] = op.nullifiers;
  if ([first, second].some((nf) => known.spent.has(nf) || draft.seenNullifiers.has(nf)))
    return { ok: false, reason: 'nullifier_already_spent' };
  if (first === second) throw new Error('a transition with equal nullifiers reached the store');
  if (draft.size + 2 > TREE_CAPACITY) return { ok: false, reason: 'tree_full' };
  draft.seenNullifiers.add(first);
  draft.seenNullifiers.add(second);
  const id = ++draft.eventCount;
  const index = draft.size;
  draft.leaves.push(
    { idx: index, commitment: op.outputs[0] },
    { idx: index + 1, commitment: op.outputs[1] },
  );
  for (const nullifier of op.nullifiers)
    draft.nullifiers.push({ nullifier, settlement_id: op.transitionId, event_id: id });
  const exit = BigInt(op.exit);
  draft.events.push({
    id,
    kind: exit > 0n ? 'withdrawal' : 'transition',
    created_at: known.now,
    amount: op.exit,
    leaf_index: index,
    commitment: op.outputs[0],
    nullifier: first,
    settlement_id: op.transitionId,
    recipient: exit > 0n ? op.destination : null,
    recipient_note: op.outputs[1],
    nullifier_2: second,
    memo: op.memo.join(','),
    // A merge's or split's refund (a note of 0, never appended) too: a public input of its proof,
    // which the archive serves beside the proof so anyone can verify it (docs/audit.md).
    refund: op.refund,
  });
  const { root, ctx, bytes } = op.proof;
  draft.archive.push({ eventId: id, root, ctx, proof: bytes, reference: null });
  draft.withdrawnTotal += exit;
  draft.size += 2;
  // A handed-over payment proof of a nullifier this transition spends can serve nothing any
  // more; it expires on its own (the payment would be refused as already spent).
  return {
    ok: true,
    kind: 'transition',
    eventId: id,
    transitionId: op.transitionId,
    outputIndexes: [index, index + 1],
  };
}

/**
 * A settlement: its nullifier, the change and recipient notes, one event, its proof archived; its
 * handed-over proofs go.
 */
function planSettlement(draft: Draft, known: Known, op: SettlementOp): StoreOpResult {
  if (known.spent.has(op.nullifier) || draft.seenNullifiers.has(op.nullifier))
    return { ok: false, reason: 'duplicate_settlement', settlementId: op.settlementId };
  if (draft.size + 2 > TREE_CAPACITY) return { ok: false, reason: 'tree_full' };
  const archived = archivedProofOf(draft, known, op);
  if (archived === null) return { ok: false, reason: 'unknown_proof_reference' };
  draft.seenNullifiers.add(op.nullifier);
  const id = ++draft.eventCount;
  draft.archive.push({ ...archived, root: op.proof.root, ctx: op.proof.ctx, eventId: id });
  const index = draft.size;
  draft.leaves.push(
    { idx: index, commitment: op.change },
    { idx: index + 1, commitment: op.recipientNote },
  );
  draft.nullifiers.push({ nullifier: op.nullifier, settlement_id: op.settlementId, event_id: id });
  draft.events.push({
    id,
    kind: 'settlement',
    created_at: known.now,
    amount: op.amount,
    leaf_index: index,
    commitment: op.change,
    nullifier: op.nullifier,
    settlement_id: op.settlementId,
    recipient: op.recipient,
    recipient_note: op.recipientNote,
    nullifier_2: null,
    memo: null,
    refund: null,
  });
  draft.size += 2;
  dropProofsOfSettled(draft, known.stored, op.nullifier);
  return {
    ok: true,
    kind: 'settlement',
    eventId: id,
    settlementId: op.settlementId,
    changeIndex: index,
    recipientIndex: index + 1,
    recipientNote: op.recipientNote,
  };
}

/**
 * What a settlement archives: its inline bytes; for a reference, the bytes of the hand-over this
 * group keeps, or the stored row's (copied by the store); `null` when the row is gone (pruned past
 * its time since the ledger looked) — a settlement whose proof cannot be kept is not applied.
 */
function archivedProofOf(draft: Draft, known: Known, op: SettlementOp): ArchiveSource | null {
  if ('bytes' in op.proof) return { proof: op.proof.bytes, reference: null };
  const { reference } = op.proof;
  const fresh = draft.proofs.find((p) => p.reference === reference);
  if (fresh) return { proof: fresh.proof, reference: null };
  return known.stored.existing.has(reference) ? { proof: null, reference } : null;
}

/**
 * A settled nullifier's handed-over proofs go in the same commit: they can serve nothing any more.
 * Those of this group are not inserted at all (PostgreSQL's delete would not see them).
 */
function dropProofsOfSettled(draft: Draft, stored: StoredProofs, nullifier: string): void {
  const rows = draft.proofsOf.get(nullifier) ?? 0;
  if (rows === 0) return;
  const { proofs } = draft;
  const fresh = proofs.filter((p) => p.nullifier === nullifier);
  const kept = proofs.filter((p) => p.nullifier !== nullifier);
  proofs.length = 0;
  proofs.push(...kept);
  const newRows = fresh.filter((p) => !stored.existing.has(p.reference)).length;
  if (rows > newRows) draft.dropProofsOf.push(nullifier);
  draft.proofRows -= rows;
  draft.proofsOf.set(nullifier, 0);
}

/**
 * A handed-over proof kept: once per reference (again, with its new time, when the stored row is
 * past its time), within the per-nullifier and total limits.
 */
function planHandOver(draft: Draft, known: Known, op: HandOverOp): StoreOpResult {
  if (known.spent.has(op.nullifier) || draft.seenNullifiers.has(op.nullifier))
    return { ok: false, reason: 'nullifier_already_spent' };
  const kept = draft.addedReferences.get(op.reference) ?? known.stored.existing.get(op.reference);
  if (kept !== undefined && kept > known.now)
    return { ok: true, kind: 'handover', reference: op.reference, expiresAt: kept, stored: false };
  if (kept !== undefined) {
    // Stored but past its time and not pruned yet: the row is kept again with the new time.
    // One row per reference in the group's writes: PostgreSQL's one-statement upsert refuses
    // to touch a row twice (the whole group would fail), so a later op replaces an earlier one.
    const earlier = draft.proofs.findIndex((p) => p.reference === op.reference);
    if (earlier >= 0) draft.proofs.splice(earlier, 1);
    draft.proofs.push(op);
    draft.addedReferences.set(op.reference, op.expiresAt);
    return handedOver(op);
  }
  const rows = draft.proofsOf.get(op.nullifier) ?? 0;
  if (rows >= op.perNullifier) return { ok: false, reason: 'too_many_proofs' };
  if (draft.proofRows >= op.capacity) return { ok: false, reason: 'proof_store_full' };
  draft.proofs.push(op);
  draft.addedReferences.set(op.reference, op.expiresAt);
  draft.proofsOf.set(op.nullifier, rows + 1);
  draft.proofRows += 1;
  return handedOver(op);
}

/** A hand-over's answer when its row is written. */
function handedOver(op: HandOverOp): StoreOpResult {
  return {
    ok: true,
    kind: 'handover',
    reference: op.reference,
    expiresAt: op.expiresAt,
    stored: true,
  };
}

/** A deposit: its commitment appended (once: a commitment in the tree is refused), one event. */
function planDeposit(draft: Draft, known: Known, op: DepositOp): StoreOpResult {
  if (known.present.has(op.commitment) || draft.seenCommitments.has(op.commitment))
    return { ok: false, reason: 'duplicate_commitment' };
  if (draft.size + 1 > TREE_CAPACITY) return { ok: false, reason: 'tree_full' };
  draft.seenCommitments.add(op.commitment);
  const id = ++draft.eventCount;
  const index = draft.size;
  draft.leaves.push({ idx: index, commitment: op.commitment });
  draft.events.push({
    id,
    kind: 'deposit',
    created_at: known.now,
    amount: op.amount,
    leaf_index: index,
    commitment: op.commitment,
    nullifier: null,
    settlement_id: null,
    recipient: null,
    recipient_note: null,
    nullifier_2: null,
    memo: null,
    refund: null,
  });
  draft.depositTotal += BigInt(op.amount);
  draft.size += 1;
  return { ok: true, kind: 'deposit', eventId: id, index, commitment: op.commitment };
}

/** A group's draft before its first op: the head's counters, nothing written. */
function draftOf(head: Head, stored: StoredProofs): Draft {
  return {
    leaves: [],
    nullifiers: [],
    events: [],
    proofs: [],
    archive: [],
    dropProofsOf: [],
    payouts: [],
    size: head.size,
    eventCount: head.eventCount,
    depositTotal: BigInt(head.depositTotal),
    proofRows: head.proofRows,
    withdrawnTotal: BigInt(head.withdrawnTotal),
    paidOutTotal: BigInt(head.paidOutTotal),
    refundedTotal: BigInt(head.refundedTotal),
    seenNullifiers: new Set(),
    seenCommitments: new Set(),
    proofsOf: new Map(stored.perNullifier),
    addedReferences: new Map(),
    payoutStatus: new Map(),
  };
}

/** The plan of a decided group: its rows, and the new head with the frontier after its leaves. */
function planOf(tree: TreeHasher, head: Head, draft: Draft, results: StoreOpResult[]): Plan {
  const { leaves, nullifiers, events, proofs, archive, dropProofsOf, payouts, size } = draft;
  const rows = { results, leaves, nullifiers, events, proofs, archive, dropProofsOf, payouts };
  const written =
    leaves.length > 0 || proofs.length > 0 || dropProofsOf.length > 0 || payouts.length > 0;
  if (!written) return { ...rows, head: null };
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
    ...rows,
    head: {
      size,
      root: frontier.root,
      frontier: frontier.state,
      eventCount: draft.eventCount,
      checkpointCount: head.checkpointCount,
      depositTotal: draft.depositTotal.toString(),
      proofRows: draft.proofRows,
      withdrawnTotal: draft.withdrawnTotal.toString(),
      paidOutTotal: draft.paidOutTotal.toString(),
      refundedTotal: draft.refundedTotal.toString(),
    },
  };
}
