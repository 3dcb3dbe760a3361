// The escrow after a deposit, on the shared node (no time moves here: test/chain/escrow-time
// has those): accept and decline in batches, reclaim by the depositor and by signature, payouts
// from custody, pause, the roles, the constructor's refusals, and what the admin cannot do —
// each refusal beside the call that passes.

import {
  type Address,
  encodeFunctionData,
  type Hex,
  parseEventLogs,
  toFunctionSelector,
  zeroAddress,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';

import {
  privStarkEscrowAbi,
  privStarkEscrowBytecode,
  testUsdcAbi,
} from '../../src/chain/contract-artifacts.js';
import {
  deploy,
  deployEscrow,
  newAccount,
  now,
  revertOf,
  send,
  signReclaim,
  TEST_ESCROW_PARAMETERS,
  testArtifact,
} from '../../testkit/chain.js';
import {
  balanceOf,
  depositDirect,
  depositor,
  type EscrowFixture,
  escrowCall,
  escrowFixture,
  escrowRead,
  gaslessArgs,
  readDeposit,
  STATE,
  sharedChain,
  tickets,
  tokenCall,
} from './shared.js';

let f: EscrowFixture;
let pres: Hex[] = [];
const nextPre = (): Hex => {
  const pre = pres.pop();
  if (!pre) throw new Error('out of tickets');
  return pre;
};

beforeAll(async () => {
  f = await escrowFixture(sharedChain());
  pres = (await tickets(Array.from({ length: 64 }, (_, i) => BigInt(1_000 + i)))).map((t) => t.pre);
});

/** `count` Pending deposits of `amount` each by a fresh depositor; their indices. */
async function pending(count: number, amount = 1_000n) {
  const who = await depositor(f, amount * BigInt(count));
  const indices: bigint[] = [];
  for (let i = 0; i < count; i++) indices.push(await depositDirect(f, who, amount, nextPre()));
  return { who, indices };
}

const accept = (accepted: bigint[], declined: bigint[] = [], as: PrivateKeyAccount = f.acceptor) =>
  escrowCall(f, as, 'acceptDeposits', [accepted, declined]);

const unauthorized = (account: Address, role: string) => ({
  name: 'AccessControlUnauthorizedAccount',
  args: [account, role],
});

const roleId = (name: string) => escrowRead<Hex>(f, name);

describe('acceptDeposits', () => {
  it('accepts and declines a batch: custody grows by the accepted, events per deposit', async () => {
    const { indices } = await pending(3, 2_000n);
    const custody = await escrowRead<bigint>(f, 'custody');
    const unaccepted = await escrowRead<bigint>(f, 'unacceptedTotal');
    const receipt = await accept([indices[0]!, indices[2]!], [indices[1]!]);
    const events = parseEventLogs({ abi: privStarkEscrowAbi, logs: receipt.logs });
    expect(events.map((e) => [e.eventName, (e.args as { index: bigint }).index])).toEqual([
      ['Accepted', indices[0]],
      ['Accepted', indices[2]],
      ['Declined', indices[1]],
    ]);
    expect((await readDeposit(f, indices[0]!)).state).toBe(STATE.Accepted);
    expect((await readDeposit(f, indices[1]!)).state).toBe(STATE.Declined);
    expect(await escrowRead(f, 'custody')).toBe(custody + 4_000n);
    expect(await escrowRead(f, 'unacceptedTotal')).toBe(unaccepted - 4_000n);
  });

  it('only the acceptor', async () => {
    const { who, indices } = await pending(1);
    for (const stranger of [who, f.admin, f.payer])
      expect(await revertOf(accept(indices, [], stranger))).toEqual(
        unauthorized(stranger.address, await roleId('ACCEPTOR_ROLE')),
      );
    await accept(indices);
  });

  it('each must be Pending: accepted, declined, twice in a batch, in both lists — the whole batch reverts', async () => {
    const { indices } = await pending(4);
    const [a, b, c, d] = indices as [bigint, bigint, bigint, bigint];
    await accept([a], [b]);
    expect(await revertOf(accept([c, a]))).toEqual({
      name: 'DepositNotPending',
      args: [a, STATE.Accepted],
    });
    expect(await revertOf(accept([], [c, b]))).toEqual({
      name: 'DepositNotPending',
      args: [b, STATE.Declined],
    });
    expect(await revertOf(accept([c, c]))).toEqual({
      name: 'DepositNotPending',
      args: [c, STATE.Accepted],
    });
    expect(await revertOf(accept([c], [c]))).toEqual({
      name: 'DepositNotPending',
      args: [c, STATE.Accepted],
    });
    // Nothing of the reverted batches stuck.
    expect((await readDeposit(f, c)).state).toBe(STATE.Pending);
    await accept([c], [d]);
  });

  it('an unknown index reverts (the last index passes)', async () => {
    const { indices } = await pending(1);
    const count = await escrowRead<bigint>(f, 'depositCount');
    expect(await revertOf(accept([count]))).toEqual({ name: 'UnknownDeposit', args: [count] });
    expect(await revertOf(escrowRead(f, 'getDeposit', [count]))).toEqual({
      name: 'UnknownDeposit',
      args: [count],
    });
    await accept([count - 1n]);
    expect(count - 1n).toBe(indices[0]);
  });
});

describe('reclaim', () => {
  it('a Declined deposit goes back to its depositor at once; a second reclaim is refused', async () => {
    const { who, indices } = await pending(1, 3_000n);
    await accept([], indices);
    const before = await balanceOf(f, who.address);
    const receipt = await escrowCall(f, who, 'reclaim', [indices[0]]);
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Reclaimed',
    });
    expect(event!.args).toEqual({ index: indices[0], depositor: who.address, amount: 3_000n });
    expect(await balanceOf(f, who.address)).toBe(before + 3_000n);
    expect((await readDeposit(f, indices[0]!)).state).toBe(STATE.Reclaimed);
    expect(await revertOf(escrowCall(f, who, 'reclaim', [indices[0]]))).toEqual({
      name: 'DepositNotReclaimable',
      args: [indices[0], STATE.Reclaimed],
    });
  });

  it('a Pending deposit only after its reclaim delay; an Accepted one never', async () => {
    const { who, indices } = await pending(2);
    const record = await readDeposit(f, indices[0]!);
    expect(await revertOf(escrowCall(f, who, 'reclaim', [indices[0]]))).toEqual({
      name: 'ReclaimTooEarly',
      args: [indices[0], BigInt(record.reclaimableAt)],
    });
    await accept([indices[0]!], [indices[1]!]);
    expect(await revertOf(escrowCall(f, who, 'reclaim', [indices[0]]))).toEqual({
      name: 'DepositNotReclaimable',
      args: [indices[0], STATE.Accepted],
    });
    await escrowCall(f, who, 'reclaim', [indices[1]]);
  });

  it('only by the depositor (the funds always go to the depositor)', async () => {
    const { who, indices } = await pending(1);
    await accept([], indices);
    for (const other of [f.admin, f.acceptor, f.payer])
      expect(await revertOf(escrowCall(f, other, 'reclaim', [indices[0]]))).toEqual({
        name: 'NotDepositor',
        args: [indices[0], other.address],
      });
    await escrowCall(f, who, 'reclaim', [indices[0]]);
  });
});

describe('reclaimWithSignature', () => {
  it("anyone carries the depositor's signature; the funds go to the depositor, nothing to the carrier", async () => {
    const agent = await depositor(f, 5_000n);
    const relayer = await newAccount(f.chain);
    const receipt = await escrowCall(
      f,
      relayer,
      'depositWithAuthorization',
      await gaslessArgs(f, agent, { amount: 5_000n, pre: nextPre() }),
    );
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Deposited',
    });
    const index = event!.args.index;
    await accept([], [index]);
    const deadline = (await now(f.chain)) + 600n;
    const signature = await signReclaim(f.chain, agent, f.escrow, index, deadline);
    // Someone else's key, another index or another deadline: not the depositor's signature.
    const stranger = await newAccount(f.chain);
    for (const [list, why] of [
      [
        [index, deadline, await signReclaim(f.chain, stranger, f.escrow, index, deadline)],
        'signer',
      ],
      [
        [index, deadline, await signReclaim(f.chain, agent, f.escrow, index + 1n, deadline)],
        'index',
      ],
      [[index, deadline + 1n, signature], 'deadline'],
      [[index, deadline, await signReclaim(f.chain, agent, f.token, index, deadline)], 'domain'],
    ] as const)
      expect(await revertOf(escrowCall(f, relayer, 'reclaimWithSignature', list)), why).toEqual({
        name: 'InvalidReclaimSignature',
        args: [index],
      });
    expect(
      await revertOf(
        escrowCall(f, relayer, 'reclaimWithSignature', [
          index,
          (await now(f.chain)) - 1n,
          await signReclaim(f.chain, agent, f.escrow, index, (await now(f.chain)) - 1n),
        ]),
      ),
    ).toMatchObject({ name: 'ReclaimSignatureExpired' });
    await escrowCall(f, relayer, 'reclaimWithSignature', [index, deadline, signature]);
    expect(await balanceOf(f, agent.address)).toBe(5_000n);
    expect(await balanceOf(f, relayer.address)).toBe(0n);
    // Replayed: the deposit is Reclaimed.
    expect(
      await revertOf(escrowCall(f, relayer, 'reclaimWithSignature', [index, deadline, signature])),
    ).toEqual({
      name: 'DepositNotReclaimable',
      args: [index, STATE.Reclaimed],
    });
  });

  it('refuses an Accepted deposit and a Pending one before its delay, even when signed', async () => {
    const { who, indices } = await pending(2);
    await accept([indices[0]!]);
    const deadline = (await now(f.chain)) + 600n;
    const relayer = await newAccount(f.chain);
    expect(
      await revertOf(
        escrowCall(f, relayer, 'reclaimWithSignature', [
          indices[0],
          deadline,
          await signReclaim(f.chain, who, f.escrow, indices[0]!, deadline),
        ]),
      ),
    ).toEqual({ name: 'DepositNotReclaimable', args: [indices[0], STATE.Accepted] });
    expect(
      await revertOf(
        escrowCall(f, relayer, 'reclaimWithSignature', [
          indices[1],
          deadline,
          await signReclaim(f.chain, who, f.escrow, indices[1]!, deadline),
        ]),
      ),
    ).toMatchObject({ name: 'ReclaimTooEarly' });
  });

  it('a smart-account depositor (ERC-1271) reclaims by its owner signature', async () => {
    const owner = await newAccount(f.chain);
    const smart = testArtifact('TestSmartAccount');
    const account = await deploy(f.chain, owner, { ...smart, args: [owner.address] });
    const execute = (target: Address, data: Hex) =>
      send(f.chain, owner, {
        address: account,
        abi: smart.abi,
        functionName: 'execute',
        args: [target, data],
      });
    await tokenCall(f, f.admin, 'mint', [account, 2_000n]);
    const pre = nextPre();
    await execute(
      f.token,
      encodeFunctionData({ abi: testUsdcAbi, functionName: 'approve', args: [f.escrow, 2_000n] }),
    );
    await execute(
      f.escrow,
      encodeFunctionData({ abi: privStarkEscrowAbi, functionName: 'deposit', args: [2_000n, pre] }),
    );
    const index = (await escrowRead<bigint>(f, 'depositCount')) - 1n;
    expect((await readDeposit(f, index)).depositor).toBe(account);
    await accept([], [index]);
    const deadline = (await now(f.chain)) + 600n;
    const relayer = await newAccount(f.chain);
    const stranger = await newAccount(f.chain);
    expect(
      await revertOf(
        escrowCall(f, relayer, 'reclaimWithSignature', [
          index,
          deadline,
          await signReclaim(f.chain, stranger, f.escrow, index, deadline),
        ]),
      ),
    ).toEqual({ name: 'InvalidReclaimSignature', args: [index] });
    await escrowCall(f, relayer, 'reclaimWithSignature', [
      index,
      deadline,
      await signReclaim(f.chain, owner, f.escrow, index, deadline),
    ]);
    expect(await balanceOf(f, account)).toBe(2_000n);
  });
});

let serial = 0;
/** A withdrawal id not used before. */
const withdrawal = () => `0x${(++serial).toString(16).padStart(64, '0')}` as Hex;
/** A payout deadline an hour ahead. */
const later = async () => (await now(f.chain)) + 3_600n;

describe('payout', () => {
  /** Accepted funds of `amount` in custody. */
  async function inCustody(amount: bigint) {
    const { indices } = await pending(1, amount);
    await accept(indices);
  }
  it('pays from custody to the address, once per withdrawal id, and emits Paid', async () => {
    await inCustody(10_000n);
    const merchant = await newAccount(f.chain);
    const id = withdrawal();
    const custody = await escrowRead<bigint>(f, 'custody');
    const receipt = await escrowCall(f, f.payer, 'payout', [
      id,
      merchant.address,
      4_000n,
      await later(),
    ]);
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Paid',
    });
    expect(event!.args).toEqual({ withdrawalId: id, to: merchant.address, amount: 4_000n });
    expect(await balanceOf(f, merchant.address)).toBe(4_000n);
    expect(await escrowRead(f, 'custody')).toBe(custody - 4_000n);
    expect(await escrowRead(f, 'isPaid', [id])).toBe(true);
    expect(
      await revertOf(escrowCall(f, f.payer, 'payout', [id, merchant.address, 1n, await later()])),
    ).toEqual({
      name: 'WithdrawalAlreadyPaid',
      args: [id],
    });
    expect(await escrowRead(f, 'isPaid', [withdrawal()])).toBe(false);
  });

  it('only the payout role — not the admin, not the acceptor', async () => {
    await inCustody(1_000n);
    const merchant = await newAccount(f.chain);
    for (const other of [f.admin, f.acceptor, f.pauser])
      expect(
        await revertOf(
          escrowCall(f, other, 'payout', [withdrawal(), merchant.address, 1n, await later()]),
        ),
      ).toEqual(unauthorized(other.address, await roleId('PAYOUT_ROLE')));
    await escrowCall(f, f.payer, 'payout', [withdrawal(), merchant.address, 1n, await later()]);
  });

  it('never to the zero address, the escrow or the token', async () => {
    await inCustody(1_000n);
    for (const to of [zeroAddress, f.escrow, f.token])
      expect(
        await revertOf(escrowCall(f, f.payer, 'payout', [withdrawal(), to, 1n, await later()])),
      ).toEqual({
        name: 'InvalidPayoutRecipient',
        args: [to],
      });
  });

  it('never nothing, never after its deadline', async () => {
    await inCustody(1_000n);
    const merchant = await newAccount(f.chain);
    const id = withdrawal();
    expect(
      await revertOf(escrowCall(f, f.payer, 'payout', [id, merchant.address, 0n, await later()])),
    ).toEqual({
      name: 'ZeroPayout',
      args: [id],
    });
    const past = (await now(f.chain)) - 1n;
    expect(
      await revertOf(escrowCall(f, f.payer, 'payout', [id, merchant.address, 1n, past])),
    ).toEqual({
      name: 'PayoutExpired',
      args: [id, past],
    });
    await escrowCall(f, f.payer, 'payout', [id, merchant.address, 1n, await later()]);
  });

  it('never beyond custody: Pending and Declined funds are the depositors, not payable', async () => {
    // A fresh escrow, so custody is exactly what this test accepts.
    const g = await escrowFixture(f.chain);
    const who = await depositor(g, 9_000n);
    const [t1, t2, t3] = await tickets([3_000n, 3_000n, 3_000n]);
    const a = await depositDirect(g, who, 3_000n, t1!.pre);
    const b = await depositDirect(g, who, 3_000n, t2!.pre);
    await depositDirect(g, who, 3_000n, t3!.pre);
    await escrowCall(g, g.acceptor, 'acceptDeposits', [[a], [b]]);
    expect(await balanceOf(g, g.escrow)).toBe(9_000n);
    const merchant = await newAccount(g.chain);
    expect(
      await revertOf(
        escrowCall(g, g.payer, 'payout', [withdrawal(), merchant.address, 3_001n, await later()]),
      ),
    ).toEqual({
      name: 'PayoutExceedsCustody',
      args: [3_001n, 3_000n],
    });
    await escrowCall(g, g.payer, 'payout', [withdrawal(), merchant.address, 3_000n, await later()]);
    // The declined deposit is still there to reclaim.
    await escrowCall(g, who, 'reclaim', [b]);
  });
});

describe('pause', () => {
  it('the pauser stops deposits (both paths) and payouts; reclaims go on; unpause lets them go on', async () => {
    const g = await escrowFixture(f.chain);
    const who = await depositor(g, 10_000n);
    const [t1, t2, t3, t4] = await tickets([1_000n, 1_001n, 1_002n, 1_003n]);
    const declined = await depositDirect(g, who, 1_000n, t1!.pre);
    const accepted = await depositDirect(g, who, 1_001n, t2!.pre);
    await escrowCall(g, g.acceptor, 'acceptDeposits', [[accepted], [declined]]);
    for (const other of [g.admin, g.acceptor, g.payer])
      expect(await revertOf(escrowCall(g, other, 'pause'))).toMatchObject({
        name: 'AccessControlUnauthorizedAccount',
      });
    await escrowCall(g, g.pauser, 'pause');
    expect(await escrowRead(g, 'paused')).toBe(true);
    await tokenCall(g, who, 'approve', [g.escrow, 1_002n]);
    const merchant = await newAccount(g.chain);
    const payout = [withdrawal(), merchant.address, 1_001n, await later()];
    const gasless = await gaslessArgs(g, who, { amount: 1_003n, pre: t4!.pre });
    const stopped = [
      () => escrowCall(g, who, 'deposit', [1_002n, t3!.pre]),
      () => escrowCall(g, who, 'depositWithAuthorization', gasless),
      () => escrowCall(g, g.payer, 'payout', payout),
    ];
    for (const attempt of stopped)
      expect(await revertOf(attempt())).toEqual({ name: 'EnforcedPause', args: [] });
    // Reclaim is never paused.
    await escrowCall(g, who, 'reclaim', [declined]);
    expect(await revertOf(escrowCall(g, g.admin, 'unpause'))).toMatchObject({
      name: 'AccessControlUnauthorizedAccount',
    });
    await escrowCall(g, g.pauser, 'unpause');
    for (const attempt of stopped) await attempt();
  });
});

describe('roles and the admin', () => {
  it('the admin grants and revokes the hot roles; a revoked key is refused at once', async () => {
    const g = await escrowFixture(f.chain);
    const acceptorRole = await escrowRead<Hex>(g, 'ACCEPTOR_ROLE');
    expect(
      await revertOf(escrowCall(g, g.acceptor, 'grantRole', [acceptorRole, g.payer.address])),
    ).toMatchObject({
      name: 'AccessControlUnauthorizedAccount',
    });
    await escrowCall(g, g.admin, 'revokeRole', [acceptorRole, g.acceptor.address]);
    expect(await revertOf(escrowCall(g, g.acceptor, 'acceptDeposits', [[], []]))).toMatchObject({
      name: 'AccessControlUnauthorizedAccount',
    });
    await escrowCall(g, g.admin, 'grantRole', [acceptorRole, g.acceptor.address]);
    await escrowCall(g, g.acceptor, 'acceptDeposits', [[], []]);
    // The attester role is reserved: a registry read through hasRole, used by no function.
    const attester = await escrowRead<Hex>(g, 'ATTESTER_ROLE');
    await escrowCall(g, g.admin, 'grantRole', [attester, g.pauser.address]);
    expect(await escrowRead(g, 'hasRole', [attester, g.pauser.address])).toBe(true);
  });

  it('the admin role moves only by the delayed transfer; a key renounces only its own role', async () => {
    const g = await escrowFixture(f.chain);
    const admin = await escrowRead<Hex>(g, 'DEFAULT_ADMIN_ROLE');
    // Granted or revoked directly, the admin role is refused: only begin/accept after the delay.
    for (const call of ['grantRole', 'revokeRole'])
      expect(await revertOf(escrowCall(g, g.admin, call, [admin, g.payer.address]))).toEqual({
        name: 'AccessControlEnforcedDefaultAdminRules',
        args: [],
      });
    const acceptorRole = await escrowRead<Hex>(g, 'ACCEPTOR_ROLE');
    expect(
      await revertOf(escrowCall(g, g.acceptor, 'renounceRole', [acceptorRole, g.payer.address])),
    ).toEqual({ name: 'AccessControlBadConfirmation', args: [] });
    // The twin: its own role, renounced; the admin is still the admin.
    await escrowCall(g, g.acceptor, 'renounceRole', [acceptorRole, g.acceptor.address]);
    expect(await escrowRead(g, 'hasRole', [acceptorRole, g.acceptor.address])).toBe(false);
    expect(await escrowRead(g, 'hasRole', [admin, g.admin.address])).toBe(true);
  });

  it('no function moves funds but deposits, reclaims and payouts (the whole writable surface, pinned)', () => {
    const writable = privStarkEscrowAbi
      .filter(
        (item) =>
          item.type === 'function' &&
          item.stateMutability !== 'view' &&
          item.stateMutability !== 'pure',
      )
      .map((item) => toFunctionSelector(item as never))
      .sort();
    const expected = [
      'acceptDefaultAdminTransfer()',
      'acceptDeposits(uint256[],uint256[])',
      'applyParameterChange(uint8)',
      // A claim, no funds (escrow-attest.test.ts).
      'attest(uint64,bytes32,bytes32,uint128[4],bytes32)',
      'beginDefaultAdminTransfer(address)',
      'cancelDefaultAdminTransfer()',
      'cancelParameterChange(uint8)',
      'changeDefaultAdminDelay(uint48)',
      'deposit(uint256,bytes32)',
      'depositWithAuthorization(address,uint256,bytes32,uint256,uint256,uint256,bytes)',
      'depositWithAuthorization(address,uint256,bytes32,uint256,uint256,uint256,uint8,bytes32,bytes32)',
      'grantRole(bytes32,address)',
      'pause()',
      'payout(bytes32,address,uint256,uint64)',
      // Two-key payouts only (escrow-two-key.test.ts).
      'payoutWithProof(bytes32,address,uint256,uint64,bytes32[])',
      'reclaim(uint256)',
      'reclaimWithSignature(uint256,uint256,bytes)',
      'renounceRole(bytes32,address)',
      'revokeRole(bytes32,address)',
      'rollbackDefaultAdminDelay()',
      'scheduleParameterChange(uint8,uint256)',
      'unpause()',
    ];
    expect(writable).toEqual(expected.map((signature) => toFunctionSelector(signature)).sort());
    // No payable function: the escrow never holds ether.
    expect(
      privStarkEscrowAbi.some(
        (item) => (item as { stateMutability?: string }).stateMutability === 'payable',
      ),
    ).toBe(false);
  });
});

describe('the constructor', () => {
  const deployWith = (
    token: Address,
    overrides: Partial<typeof TEST_ESCROW_PARAMETERS>,
    admin = f.admin,
  ) => deployEscrow(f.chain, admin, token, { ...TEST_ESCROW_PARAMETERS, ...overrides });

  it('refuses a token without code, a reclaim delay outside 1–30 days, a minimum of 0 or 2^62', async () => {
    const cases: [
      Address,
      Partial<typeof TEST_ESCROW_PARAMETERS>,
      { name: string; args: unknown[] },
    ][] = [
      [f.admin.address, {}, { name: 'TokenNotContract', args: [f.admin.address] }],
      [f.token, { reclaimDelay: 86_399n }, { name: 'ReclaimDelayOutOfRange', args: [86_399n] }],
      [
        f.token,
        { reclaimDelay: 30n * 86_400n + 1n },
        { name: 'ReclaimDelayOutOfRange', args: [30n * 86_400n + 1n] },
      ],
      [f.token, { minDeposit: 0n }, { name: 'MinDepositOutOfRange', args: [0n] }],
      [f.token, { minDeposit: 1n << 62n }, { name: 'MinDepositOutOfRange', args: [1n << 62n] }],
    ];
    for (const [token, overrides, reason] of cases)
      expect(await revertOf(deployWith(token, overrides), privStarkEscrowAbi)).toEqual(reason);
    // Twins: the bounds themselves pass.
    await deployWith(f.token, { reclaimDelay: 86_400n, minDeposit: (1n << 62n) - 1n });
    await deployWith(f.token, { reclaimDelay: 30n * 86_400n, minDeposit: 1n, payoutCapPerDay: 0n });
  });

  it('refuses the zero admin', async () => {
    const args = (admin: Address) => [f.token, admin, 0, 86_400n, 1n, 1n, false];
    const escrow = (admin: Address) =>
      deploy(f.chain, f.admin, {
        abi: privStarkEscrowAbi,
        bytecode: privStarkEscrowBytecode,
        args: args(admin),
      });
    expect(await revertOf(escrow(zeroAddress), privStarkEscrowAbi)).toEqual({
      name: 'AccessControlInvalidDefaultAdmin',
      args: [zeroAddress],
    });
    await escrow(f.admin.address);
  });

  it('emits the initial parameters for auditors', async () => {
    const g = await escrowFixture(f.chain);
    const logs = await f.chain.public.getContractEvents({
      address: g.escrow,
      abi: privStarkEscrowAbi,
      eventName: 'ParameterChanged',
      fromBlock: 0n,
    });
    expect(logs.map((l) => [l.args.parameter, l.args.previous, l.args.value])).toEqual([
      [0, 0n, TEST_ESCROW_PARAMETERS.reclaimDelay],
      [1, 0n, TEST_ESCROW_PARAMETERS.minDeposit],
      [2, 0n, TEST_ESCROW_PARAMETERS.payoutCapPerDay],
    ]);
  });
});
