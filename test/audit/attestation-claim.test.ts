// What an attestation claims (src/chain/attester.ts, `claimOfLatest`; docs/audit.md,
// "Attestations"), on a real SQLite store: the latest checkpoint's sequence and root, the log
// digest recorded for it, the totals as of it, and the root of the withdrawals it published that
// are neither paid nor refunded, to accounts on the escrow's chain. And the unpaid root itself
// (src/chain/unpaid-withdrawals.ts): independent of order, each member's proof verifies the way
// OpenZeppelin's MerkleProof computes it; must-fail twins: a changed amount, destination or id,
// a non-member, a proof against another root.

import { getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';

import { extendLogDigests } from '../../src/audit/index.js';
import { claimOfLatest } from '../../src/chain/attester.js';
import {
  EMPTY_UNPAID_ROOT,
  type UnpaidWithdrawal,
  unpaidLeaf,
  unpaidProof,
  unpaidRoot,
  verifyUnpaid,
} from '../../src/chain/unpaid-withdrawals.js';
import { randomDigest } from '../../src/core/index.js';
import { type PoolStore, settlementId, type TransitionOp } from '../../src/ledger/index.js';
import { STAND_IN_PROOF } from '../../testkit/stand-in-proof.js';
import { depositOp } from '../ledger/helpers/ops.js';
import { storeHarness } from '../ledger/helpers/stores.js';

const CHAIN_ID = 31337;
const NOW = 1_800_000_000_000;

const address = (i: number) => getAddress(`0x${(0x1000 + i).toString(16).padStart(40, '0')}`);
const withdrawal = (i: number): UnpaidWithdrawal => ({
  withdrawalId: randomDigest() as Hex,
  to: address(i),
  amount: BigInt(1000 + i),
});

describe('the unpaid withdrawals’ root', () => {
  it('is the zero root of none, the leaf of one, and the same in any order', () => {
    expect(unpaidRoot([])).toBe(EMPTY_UNPAID_ROOT);
    const one = withdrawal(1);
    expect(unpaidRoot([one])).toBe(unpaidLeaf(one));
    const five = [1, 2, 3, 4, 5].map(withdrawal);
    expect(unpaidRoot([...five].reverse())).toBe(unpaidRoot(five));
    expect(unpaidRoot(five.slice(0, 4))).not.toBe(unpaidRoot(five));
  });

  it('proves each member, at every size; must-fail twins refuse a changed one, a stranger, another root', () => {
    for (const size of [1, 2, 3, 5, 8, 13]) {
      const set = Array.from({ length: size }, (_, i) => withdrawal(i));
      const root = unpaidRoot(set);
      for (const member of set) {
        const proof = unpaidProof(set, member)!;
        expect(proof.length).toBeLessThanOrEqual(Math.ceil(Math.log2(size)));
        expect(verifyUnpaid(root, member, proof)).toBe(true);
        expect(verifyUnpaid(root, { ...member, amount: member.amount + 1n }, proof)).toBe(false);
        expect(verifyUnpaid(root, { ...member, to: address(99) }, proof)).toBe(false);
        expect(verifyUnpaid(root, { ...member, withdrawalId: randomDigest() as Hex }, proof)).toBe(
          false,
        );
        expect(verifyUnpaid(unpaidRoot([...set, withdrawal(50)]), member, proof)).toBe(false);
      }
      expect(unpaidProof(set, withdrawal(77))).toBeNull();
    }
  });
});

/** An exit of `amount` to `destination` (a transition the store applies as the ledger would). */
const exitOp = (amount: number, destination: string): TransitionOp => {
  const first = randomDigest();
  return {
    kind: 'transition',
    transitionId: settlementId(first),
    nullifiers: [first, randomDigest()],
    outputs: [randomDigest(), randomDigest()],
    memo: ['1', '2'],
    exit: String(amount),
    destination,
    refund: randomDigest(),
    proof: STAND_IN_PROOF,
  };
};

describe('the claim of the latest checkpoint', () => {
  const h = storeHarness('sqlite');
  const claim = (store: PoolStore) =>
    claimOfLatest({ store, extendLogDigests: () => extendLogDigests(store), chainId: CHAIN_ID });

  it('claims the checkpoint, its recorded digest, its totals and the withdrawals it left unpaid', async () => {
    const { store } = await h.fresh();
    expect(await claim(store)).toBeNull();
    const [a, b, elsewhere] = [
      exitOp(300, `eip155:${CHAIN_ID}:${address(1)}`),
      exitOp(200, `eip155:${CHAIN_ID}:${address(2)}`),
      exitOp(100, `eip155:1:${address(3)}`),
    ];
    await store.apply([depositOp({ amount: '5000' }), depositOp({ amount: '7000' })], NOW);
    await store.apply([a, b, elsewhere], NOW + 1);
    const checkpoint = (await store.checkpoint(NOW + 2, 0))!;
    // Arrived after the checkpoint: not in its claim.
    await store.apply([exitOp(50, `eip155:${CHAIN_ID}:${address(4)}`)], NOW + 3);

    const at = (await claim(store))!;
    const [recorded] = await store.logDigests(checkpoint.seq - 1, 1);
    expect(at.claim).toEqual({
      seq: checkpoint.seq,
      root: checkpoint.root,
      logDigest: recorded!.digest,
      totals: [12_000n, 600n, 0n, 0n],
      unpaidRoot: unpaidRoot([
        { withdrawalId: a.transitionId as Hex, to: address(1), amount: 300n },
        { withdrawalId: b.transitionId as Hex, to: address(2), amount: 200n },
      ]),
    });
    expect(at.unpaid).toBe(2);

    // One paid, one refunded: neither is unpaid any more, and the totals say so.
    await store.apply(
      [{ kind: 'payout', withdrawalId: a.transitionId, status: 'paying' }],
      NOW + 4,
    );
    await store.apply([{ kind: 'payout', withdrawalId: a.transitionId, status: 'paid' }], NOW + 5);
    await store.apply(
      [{ kind: 'payout', withdrawalId: b.transitionId, status: 'paying' }],
      NOW + 6,
    );
    await store.apply(
      [{ kind: 'payout', withdrawalId: b.transitionId, status: 'failed' }],
      NOW + 7,
    );
    await store.checkpoint(NOW + 8, 0);
    const later = (await claim(store))!;
    expect(later.claim.seq).toBe(checkpoint.seq + 1);
    expect(later.claim.totals).toEqual([12_000n, 650n, 300n, 200n]);
    const late = (await store.withdrawals(0, 10)).find((w) => w.amount === '50')!;
    expect(later.claim.unpaidRoot).toBe(
      unpaidRoot([{ withdrawalId: late.withdrawalId as Hex, to: address(4), amount: 50n }]),
    );
    expect(later.unpaid).toBe(1);
  });
});
