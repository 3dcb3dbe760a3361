/**
 * @module The Merkle root of the withdrawals not yet paid, which each attestation carries
 * (docs/audit.md, "Unpaid withdrawals"). A leaf is OpenZeppelin's standard leaf of the escrow's
 * `payout` arguments, `keccak256(keccak256(abi.encode(bytes32 withdrawalId, address to, uint256
 * amount)))` (hashed twice, so no leaf is ever read as an inner node); the leaves are sorted, and
 * each level hashes pairs in sorted order (`MerkleProof.verify`'s commutative hash), an odd last
 * node rising unpaired. No withdrawal: the zero root. Anyone rebuilds it from the public log and
 * the chain, and a proof of one withdrawal verifies with OpenZeppelin's `MerkleProof`.
 */

import { type Address, concat, encodeAbiParameters, type Hex, keccak256 } from 'viem';

/** A withdrawal as the escrow's `payout` would pay it. */
export interface UnpaidWithdrawal {
  readonly withdrawalId: Hex;
  readonly to: Address;
  readonly amount: bigint;
}

/** The root of no withdrawal. */
export const EMPTY_UNPAID_ROOT: Hex = `0x${'0'.repeat(64)}`;

const LEAF_TYPES = [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }] as const;

/** The leaf of one withdrawal. */
export function unpaidLeaf(withdrawal: UnpaidWithdrawal): Hex {
  return keccak256(
    keccak256(
      encodeAbiParameters(LEAF_TYPES, [withdrawal.withdrawalId, withdrawal.to, withdrawal.amount]),
    ),
  );
}

/** Hex digests of one length compare as their numbers. */
const pairHash = (a: Hex, b: Hex): Hex =>
  keccak256(a.toLowerCase() < b.toLowerCase() ? concat([a, b]) : concat([b, a]));

/** Every level of the tree, the sorted leaves first and the root's level last. */
function levels(withdrawals: readonly UnpaidWithdrawal[]): Hex[][] {
  const leaves = withdrawals
    .map(unpaidLeaf)
    .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
  const out = [leaves];
  while (out.at(-1)!.length > 1) {
    const below = out.at(-1)!;
    const level: Hex[] = [];
    for (let i = 0; i < below.length; i += 2)
      level.push(i + 1 < below.length ? pairHash(below[i]!, below[i + 1]!) : below[i]!);
    out.push(level);
  }
  return out;
}

/** The root over `withdrawals` (in any order), {@link EMPTY_UNPAID_ROOT} for none. */
export function unpaidRoot(withdrawals: readonly UnpaidWithdrawal[]): Hex {
  if (withdrawals.length === 0) return EMPTY_UNPAID_ROOT;
  return levels(withdrawals).at(-1)![0]!;
}

/**
 * The proof that `withdrawal` is among `withdrawals`: the siblings from its leaf up, for
 * `MerkleProof.verify(proof, root, leaf)`. `null` when it is not among them.
 */
export function unpaidProof(
  withdrawals: readonly UnpaidWithdrawal[],
  withdrawal: UnpaidWithdrawal,
): Hex[] | null {
  const tree = levels(withdrawals);
  let index = tree[0]!.indexOf(unpaidLeaf(withdrawal));
  if (index < 0) return null;
  const proof: Hex[] = [];
  for (const level of tree.slice(0, -1)) {
    const sibling = index ^ 1;
    if (sibling < level.length) proof.push(level[sibling]!);
    index >>= 1;
  }
  return proof;
}

/** Whether `proof` shows `withdrawal` under `root` (what `MerkleProof.verify` computes). */
export function verifyUnpaid(
  root: Hex,
  withdrawal: UnpaidWithdrawal,
  proof: readonly Hex[],
): boolean {
  let node = unpaidLeaf(withdrawal);
  for (const sibling of proof) node = pairHash(node, sibling);
  return node.toLowerCase() === root.toLowerCase();
}
