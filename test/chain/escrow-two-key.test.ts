// Two-key payouts (contracts/src/TwoKeyPayouts.sol), on the shared node: an escrow deployed with
// the mode pays only with an inclusion proof of (withdrawalId, to, amount) under the latest
// attestation's unpaid root, built by src/chain/unpaid-withdrawals.ts — each refusal beside the
// call that passes: no attestation yet, a forged sibling, a proof under an older attestation, a
// proof of another id, destination or amount, the plain payout, the wrong role, a pause. The
// mode off: the plain payout as before and `payoutWithProof` refused.

import { type Address, type Hex, parseEventLogs } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import {
  type UnpaidWithdrawal,
  unpaidProof,
  unpaidRoot,
} from '../../src/chain/unpaid-withdrawals.js';
import { randomDigest } from '../../src/core/witness.js';
import { newAccount, now, revertOf, TEST_ESCROW_PARAMETERS } from '../../testkit/chain.js';
import {
  balanceOf,
  depositDirect,
  depositor,
  type EscrowFixture,
  escrowCall,
  escrowFixture,
  escrowRead,
  sharedChain,
  tickets,
} from './shared.js';

let f: EscrowFixture;
let attester: PrivateKeyAccount;
let seq = 0n;

/** Accepted funds of `amount` in the custody of `g`. */
async function inCustody(g: EscrowFixture, amount: bigint): Promise<void> {
  const [ticket] = await tickets([amount]);
  const who = await depositor(g, amount);
  const index = await depositDirect(g, who, amount, ticket!.pre);
  await escrowCall(g, g.acceptor, 'acceptDeposits', [[index], []]);
}

beforeAll(async () => {
  f = await escrowFixture(sharedChain(), { ...TEST_ESCROW_PARAMETERS, twoKeyPayouts: true });
  attester = await newAccount(f.chain);
  const role = await escrowRead<Hex>(f, 'ATTESTER_ROLE');
  await escrowCall(f, f.admin, 'grantRole', [role, attester.address]);
  await inCustody(f, 1_000_000n);
});

let serial = 0;
/** A withdrawal to a fresh address. */
const withdrawal = (amount = 1_000n): UnpaidWithdrawal => ({
  withdrawalId: `0x${(0xabc000 + ++serial).toString(16).padStart(64, '0')}`,
  to: `0x${(0x5000 + serial).toString(16).padStart(40, '0')}` as Address,
  amount,
});
const later = async () => (await now(f.chain)) + 3_600n;

/** Attests the next checkpoint with the unpaid set `set`; its sequence. */
async function attest(set: readonly UnpaidWithdrawal[]): Promise<bigint> {
  seq += 1n;
  const totals = [1n, 2n, 3n, 4n];
  await escrowCall(f, attester, 'attest', [
    seq,
    randomDigest(),
    randomDigest(),
    totals,
    unpaidRoot(set),
  ]);
  return seq;
}

/** `payoutWithProof(w, deadline, proof)` as `as`. */
const payWithProof = async (
  w: UnpaidWithdrawal,
  proof: readonly Hex[],
  as: PrivateKeyAccount = f.payer,
  g: EscrowFixture = f,
) => escrowCall(g, as, 'payoutWithProof', [w.withdrawalId, w.to, w.amount, await later(), proof]);

/** The same call simulated (nothing sent). */
const simulateWithProof = async (w: UnpaidWithdrawal, proof: readonly Hex[]) =>
  f.chain.public.simulateContract({
    address: f.escrow,
    abi: privStarkEscrowAbi,
    functionName: 'payoutWithProof',
    args: [w.withdrawalId as Hex, w.to, w.amount, await later(), proof as Hex[]],
    account: f.payer,
  });

const invalid = (w: UnpaidWithdrawal, at: bigint, set: readonly UnpaidWithdrawal[]) => ({
  name: 'UnpaidProofInvalid',
  args: [w.withdrawalId, at, unpaidRoot(set)],
});

describe('two-key payouts', () => {
  it('the mode is readable and was announced at deployment; off by default', async () => {
    expect(await escrowRead(f, 'twoKeyPayouts')).toBe(true);
    const [event] = await f.chain.public.getContractEvents({
      address: f.escrow,
      abi: privStarkEscrowAbi,
      eventName: 'TwoKeyPayoutsMode',
      fromBlock: 0n,
    });
    expect(event?.args).toEqual({ enabled: true });
    const plain = await escrowFixture(f.chain);
    expect(await escrowRead(plain, 'twoKeyPayouts')).toBe(false);
    const [off] = await f.chain.public.getContractEvents({
      address: plain.escrow,
      abi: privStarkEscrowAbi,
      eventName: 'TwoKeyPayoutsMode',
      fromBlock: 0n,
    });
    expect(off?.args).toEqual({ enabled: false });
  });

  it('no attestation yet: nothing to prove against', async () => {
    const w = withdrawal();
    expect(await revertOf(payWithProof(w, []))).toEqual({
      name: 'NoAttestedUnpaidSet',
      args: [w.withdrawalId],
    });
  });

  it('the TypeScript root and OpenZeppelin’s MerkleProof agree, for every member of sets of 1 to 9', async () => {
    for (let size = 1; size <= 9; size++) {
      const set = Array.from({ length: size }, () => withdrawal(BigInt(1 + serial)));
      await attest(set);
      for (const w of set) await simulateWithProof(w, unpaidProof(set, w)!);
      // Twin: a non-member with the best proof it could borrow fails.
      const stranger = withdrawal();
      expect(await revertOf(simulateWithProof(stranger, unpaidProof(set, set[0]!)!))).toEqual(
        invalid(stranger, seq, set),
      );
    }
  });

  it('pays a withdrawal of the latest unpaid set, once, and emits Paid', async () => {
    const set = [withdrawal(4_000n), withdrawal(), withdrawal()];
    const w = set[0]!;
    await attest(set);
    const custody = await escrowRead<bigint>(f, 'custody');
    const receipt = await payWithProof(w, unpaidProof(set, w)!);
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Paid',
    });
    expect(event?.args).toEqual({ withdrawalId: w.withdrawalId, to: w.to, amount: 4_000n });
    expect(await balanceOf(f, w.to)).toBe(4_000n);
    expect(await escrowRead(f, 'custody')).toBe(custody - 4_000n);
    expect(await revertOf(payWithProof(w, unpaidProof(set, w)!))).toEqual({
      name: 'WithdrawalAlreadyPaid',
      args: [w.withdrawalId],
    });
  });

  it('must-fail twins: a forged sibling, a missing sibling, another id, destination or amount', async () => {
    const set = [withdrawal(), withdrawal(), withdrawal(), withdrawal()];
    const w = set[1]!;
    const at = await attest(set);
    const proof = unpaidProof(set, w)!;
    const forged = [randomDigest() as Hex, ...proof.slice(1)];
    expect(await revertOf(payWithProof(w, forged))).toEqual(invalid(w, at, set));
    expect(await revertOf(payWithProof(w, proof.slice(1)))).toEqual(invalid(w, at, set));
    expect(await revertOf(payWithProof(w, []))).toEqual(invalid(w, at, set));
    const other = [
      { ...w, withdrawalId: randomDigest() as Hex },
      { ...w, to: f.payer.address },
      { ...w, amount: w.amount + 1n },
    ];
    for (const changed of other)
      expect(await revertOf(payWithProof(changed, proof))).toEqual(invalid(changed, at, set));
    await payWithProof(w, proof);
  });

  it('must-fail twin: a proof under an older attestation, though the withdrawal is still unpaid', async () => {
    const w = withdrawal();
    const older = [w, withdrawal(), withdrawal()];
    await attest(older);
    const newer = [w, withdrawal()];
    const at = await attest(newer);
    expect(await revertOf(payWithProof(w, unpaidProof(older, w)!))).toEqual(invalid(w, at, newer));
    // Dropped from the latest set (paid elsewhere, refunded): no proof exists at all.
    const dropped = older[1]!;
    expect(unpaidProof(newer, dropped)).toBeNull();
    expect(await revertOf(payWithProof(dropped, unpaidProof(older, dropped)!))).toEqual(
      invalid(dropped, at, newer),
    );
    await payWithProof(w, unpaidProof(newer, w)!);
  });

  it('must-fail twin: the plain payout, even of an attested withdrawal', async () => {
    const w = withdrawal();
    await attest([w]);
    expect(
      await revertOf(
        escrowCall(f, f.payer, 'payout', [w.withdrawalId, w.to, w.amount, await later()]),
      ),
    ).toEqual({ name: 'UnpaidProofRequired', args: [w.withdrawalId] });
    // A one-leaf set: the root is the leaf, the proof empty.
    await payWithProof(w, []);
  });

  it('only the payout role — the attester key alone cannot pay either; a pause stops it', async () => {
    const w = withdrawal();
    await attest([w]);
    const payoutRole = await escrowRead<Hex>(f, 'PAYOUT_ROLE');
    for (const other of [attester, f.admin, f.acceptor])
      expect(await revertOf(payWithProof(w, [], other))).toEqual({
        name: 'AccessControlUnauthorizedAccount',
        args: [other.address, payoutRole],
      });
    await escrowCall(f, f.pauser, 'pause');
    expect(await revertOf(payWithProof(w, []))).toEqual({ name: 'EnforcedPause', args: [] });
    await escrowCall(f, f.pauser, 'unpause');
    await payWithProof(w, []);
  });

  it('the mode off: the plain payout as before, payoutWithProof refused', async () => {
    const plain = await escrowFixture(f.chain);
    await inCustody(plain, 10_000n);
    const w = withdrawal();
    expect(await revertOf(payWithProof(w, [], plain.payer, plain))).toEqual({
      name: 'TwoKeyPayoutsDisabled',
      args: [],
    });
    await escrowCall(plain, plain.payer, 'payout', [w.withdrawalId, w.to, w.amount, await later()]);
    expect(await balanceOf(plain, w.to)).toBe(w.amount);
  });
});
