// The group plan without a store: one group of every kind of op, where the planners meet — a
// commitment twice, a hand-over then the settlement of its nullifier (its proof never inserted) and
// a hand-over after it, two transitions sharing a nullifier, payout steps of one withdrawal in one
// group, a failed payout's refund, an unknown withdrawal and a step out of order — decided in order,
// with one frontier append for the whole group. Twins: a group of refusals writes nothing, the
// tree's capacity refuses what does not fit and accepts what does, and a stored reference is kept
// again once per group when past its time.

import { describe, expect, it } from 'vitest';

import { type DigestHex, type Frontier, TREE_CAPACITY } from '../../src/core/index.js';
import { planGroup, type StoredProofs } from '../../src/ledger/group-plan.js';
import type {
  HandOverOp,
  PayoutOp,
  StoreOp,
  TransitionOp,
  TreeHasher,
} from '../../src/ledger/store.js';
import type { Head, KnownWithdrawal } from '../../src/ledger/store-rows.js';
import { depositOp, handOverOp } from './helpers/ops.js';
import { STAND_IN_PROOF } from '../../testkit/stand-in-proof.js';

const digest = (label: string, i: number): DigestHex =>
  `0x${label}${i.toString(16).padStart(63, '0')}`;
const [C1, C2, C3, C4, C5, C6, C7] = [1, 2, 3, 4, 5, 6, 7].map((i) => digest('c', i)) as [
  DigestHex,
  DigestHex,
  DigestHex,
  DigestHex,
  DigestHex,
  DigestHex,
  DigestHex,
];
const [N1, N2, N3, N4, N5] = [1, 2, 3, 4, 5].map((i) => digest('a', i)) as [
  DigestHex,
  DigestHex,
  DigestHex,
  DigestHex,
  DigestHex,
];
const [R1, R2] = [1, 2].map((i) => digest('b', i)) as [DigestHex, DigestHex];
const [W1, W2, W3] = [1, 2, 3].map((i) => digest('e', i)) as [string, string, string];
const NOW = 2_000;

/** A tree that records its appends; its root names the leaves appended. */
function recordingTree(): TreeHasher & { appends: string[][] } {
  const appends: string[][] = [];
  return {
    appends,
    emptyFrontier: () => ({ size: 0, root: digest('0', 0), state: new Uint8Array() }),
    frontierAppend: (frontier: Frontier, leaves: readonly string[]): Frontier => {
      appends.push([...leaves]);
      return {
        size: frontier.size + leaves.length,
        root: `0x${leaves.length}` as DigestHex,
        state: new Uint8Array([leaves.length]),
      };
    },
  };
}

function headAt(size: number): Head {
  return {
    size,
    root: digest('d', 0),
    frontier: new Uint8Array(),
    eventCount: 4,
    checkpointCount: 1,
    depositTotal: '100',
    proofRows: 0,
    withdrawnTotal: '0',
    paidOutTotal: '0',
    refundedTotal: '0',
  };
}

const nothingStored: StoredProofs = { existing: new Map(), perNullifier: new Map() };

const transition = (nullifiers: [DigestHex, DigestHex], exit: string): TransitionOp => ({
  kind: 'transition',
  transitionId: `t-${nullifiers[0]}`,
  nullifiers,
  outputs: [C4, C5],
  memo: ['1', '2'],
  exit,
  destination: exit === '0' ? null : 'eip155:1:0x0000000000000000000000000000000000000001',
  refund: C6,
  proof: STAND_IN_PROOF,
});
const payout = (withdrawalId: string, status: PayoutOp['status']): PayoutOp => ({
  kind: 'payout',
  withdrawalId,
  status,
});

describe('the group plan', () => {
  it('decides every kind of op in order, each against the store and the group before it', () => {
    const tree = recordingTree();
    const handOver: HandOverOp = handOverOp({ reference: R1, nullifier: N1, expiresAt: 5_000 });
    const ops: StoreOp[] = [
      depositOp({ amount: '7', commitment: C1 }),
      depositOp({ amount: '7', commitment: C1 }),
      handOver,
      {
        kind: 'settlement',
        nullifier: N1,
        settlementId: 's1',
        change: C2,
        recipientNote: C3,
        recipient: 'payee',
        amount: '3',
        // Settled by the proof handed over earlier in this same group.
        proof: { root: STAND_IN_PROOF.root, ctx: STAND_IN_PROOF.ctx, reference: R1 },
      },
      handOverOp({ reference: R2, nullifier: N1 }),
      transition([N2, N3], '5'),
      transition([N3, N4], '0'),
      payout(W1, 'paying'),
      payout(W1, 'paid'),
      payout(W2, 'failed'),
      payout(W3, 'paying'),
      payout(W1, 'paying'),
    ];
    const withdrawals = new Map<string, KnownWithdrawal>([
      [W1, { status: null, amount: '9', refund: C6, nullifier: N4 }],
      [W2, { status: 'paying', amount: '4', refund: C7, nullifier: N5 }],
    ]);
    const plan = planGroup(
      tree,
      headAt(10),
      ops,
      new Set(),
      new Set(),
      nothingStored,
      NOW,
      withdrawals,
    );
    expect(plan.results).toEqual([
      { ok: true, kind: 'deposit', eventId: 5, index: 10, commitment: C1 },
      { ok: false, reason: 'duplicate_commitment' },
      { ok: true, kind: 'handover', reference: R1, expiresAt: 5_000, stored: true },
      {
        ok: true,
        kind: 'settlement',
        eventId: 6,
        settlementId: 's1',
        changeIndex: 11,
        recipientIndex: 12,
        recipientNote: C3,
      },
      { ok: false, reason: 'nullifier_already_spent' },
      {
        ok: true,
        kind: 'transition',
        eventId: 7,
        transitionId: `t-${N2}`,
        outputIndexes: [13, 14],
      },
      { ok: false, reason: 'nullifier_already_spent' },
      { ok: true, kind: 'payout', withdrawalId: W1, status: 'paying' },
      { ok: true, kind: 'payout', withdrawalId: W1, status: 'paid' },
      {
        ok: true,
        kind: 'payout',
        withdrawalId: W2,
        status: 'failed',
        refundIndex: 15,
        eventId: 8,
      },
      { ok: false, reason: 'unknown_withdrawal' },
      { ok: false, reason: 'payout_conflict', status: 'paid' },
    ]);
    expect(plan.leaves).toEqual([
      { idx: 10, commitment: C1 },
      { idx: 11, commitment: C2 },
      { idx: 12, commitment: C3 },
      { idx: 13, commitment: C4 },
      { idx: 14, commitment: C5 },
      { idx: 15, commitment: C7 },
    ]);
    expect(plan.nullifiers).toEqual([
      { nullifier: N1, settlement_id: 's1', event_id: 6 },
      { nullifier: N2, settlement_id: `t-${N2}`, event_id: 7 },
      { nullifier: N3, settlement_id: `t-${N2}`, event_id: 7 },
    ]);
    expect(plan.events.map((e) => [e.id, e.kind, e.leaf_index, e.amount])).toEqual([
      [5, 'deposit', 10, '7'],
      [6, 'settlement', 11, '3'],
      [7, 'withdrawal', 13, '5'],
      [8, 'refund', 15, '4'],
    ]);
    // The settled nullifier's proof of this group is never inserted, and nothing is left to drop;
    // the settlement archives its bytes, the exit its own proof.
    expect(plan.proofs).toEqual([]);
    const { root, ctx } = STAND_IN_PROOF;
    expect(plan.archive).toEqual([
      { eventId: 6, root, ctx, proof: handOver.proof, reference: null },
      { eventId: 7, root, ctx, proof: STAND_IN_PROOF.bytes, reference: null },
    ]);
    expect(plan.dropProofsOf).toEqual([]);
    // One payout row per withdrawal: its last step.
    expect(plan.payouts).toEqual([
      { withdrawal_id: W1, status: 'paid', updated_at: NOW },
      { withdrawal_id: W2, status: 'failed', updated_at: NOW },
    ]);
    expect(tree.appends).toEqual([[C1, C2, C3, C4, C5, C7]]);
    expect(plan.head).toEqual({
      size: 16,
      root: '0x6',
      frontier: new Uint8Array([6]),
      eventCount: 8,
      checkpointCount: 1,
      depositTotal: '107',
      proofRows: 0,
      withdrawnTotal: '5',
      paidOutTotal: '9',
      refundedTotal: '4',
    });
  });

  it('a group of refusals writes nothing: no head, no append', () => {
    const tree = recordingTree();
    const plan = planGroup(
      tree,
      headAt(10),
      [
        depositOp({ commitment: C1 }),
        {
          kind: 'settlement',
          nullifier: N1,
          settlementId: 's1',
          change: C2,
          recipientNote: C3,
          recipient: 'payee',
          amount: '3',
          proof: STAND_IN_PROOF,
        },
        handOverOp({ nullifier: N1 }),
        payout(W3, 'paying'),
      ],
      new Set([N1]),
      new Set([C1]),
      nothingStored,
      NOW,
    );
    expect(plan.results).toEqual([
      { ok: false, reason: 'duplicate_commitment' },
      { ok: false, reason: 'duplicate_settlement', settlementId: 's1' },
      { ok: false, reason: 'nullifier_already_spent' },
      { ok: false, reason: 'unknown_withdrawal' },
    ]);
    expect(plan.head).toBeNull();
    expect(tree.appends).toEqual([]);
  });

  it("the tree's capacity refuses what does not fit, and accepts what does", () => {
    const plan = planGroup(
      recordingTree(),
      headAt(TREE_CAPACITY - 1),
      [transition([N1, N2], '0'), depositOp({ commitment: C1 }), depositOp({ commitment: C2 })],
      new Set(),
      new Set(),
      nothingStored,
      NOW,
    );
    expect(plan.results.map((r) => (r.ok ? r.kind : r.reason))).toEqual([
      'tree_full',
      'deposit',
      'tree_full',
    ]);
    expect(plan.head?.size).toBe(TREE_CAPACITY);
  });

  it('a stored reference: a live one is answered as kept, one past its time kept again once', () => {
    const stored: StoredProofs = {
      existing: new Map([
        [R1, NOW + 1_000],
        [R2, NOW - 1_000],
      ]),
      perNullifier: new Map([[N1, 2]]),
    };
    const first = handOverOp({ reference: R2, nullifier: N1, expiresAt: 9_000 });
    const again = handOverOp({ reference: R2, nullifier: N1, expiresAt: 9_500 });
    const plan = planGroup(
      recordingTree(),
      headAt(10),
      [handOverOp({ reference: R1, nullifier: N1 }), first, again],
      new Set(),
      new Set(),
      stored,
      NOW,
    );
    expect(plan.results).toEqual([
      { ok: true, kind: 'handover', reference: R1, expiresAt: NOW + 1_000, stored: false },
      { ok: true, kind: 'handover', reference: R2, expiresAt: 9_000, stored: true },
      { ok: true, kind: 'handover', reference: R2, expiresAt: 9_000, stored: false },
    ]);
    expect(plan.proofs).toEqual([first]);
    // Kept again, not added: the per-nullifier limit (2 stored) does not refuse it.
    expect(plan.head?.proofRows).toBe(0);
  });

  it("a settlement by a stored hand-over archives that row's bytes; by a row that is gone, it is refused", () => {
    const settlement = (nullifier: DigestHex, reference: DigestHex): StoreOp => ({
      kind: 'settlement',
      nullifier,
      settlementId: `s-${nullifier}`,
      change: C2,
      recipientNote: C3,
      recipient: 'payee',
      amount: '3',
      proof: { root: STAND_IN_PROOF.root, ctx: STAND_IN_PROOF.ctx, reference },
    });
    const stored: StoredProofs = {
      existing: new Map([[R1, NOW + 1_000]]),
      perNullifier: new Map([[N1, 1]]),
    };
    const kept = planGroup(
      recordingTree(),
      headAt(10),
      [settlement(N1, R1)],
      new Set(),
      new Set(),
      stored,
      NOW,
    );
    expect(kept.results[0]).toMatchObject({ ok: true, kind: 'settlement', eventId: 5 });
    const { root, ctx } = STAND_IN_PROOF;
    expect(kept.archive).toEqual([{ eventId: 5, root, ctx, proof: null, reference: R1 }]);
    expect(kept.dropProofsOf).toEqual([N1]);
    // Its twin: the reference's row was pruned after the ledger looked — no proof to keep, so
    // nothing is applied (a settlement is never written without its proof).
    const gone = planGroup(
      recordingTree(),
      headAt(10),
      [settlement(N1, R2)],
      new Set(),
      new Set(),
      stored,
      NOW,
    );
    expect(gone.results).toEqual([{ ok: false, reason: 'unknown_proof_reference' }]);
    expect(gone.archive).toEqual([]);
    expect(gone.head).toBeNull();
  });
});
