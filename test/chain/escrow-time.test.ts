// The escrow's rules in time, on a node of its own (this suite sets block times): a Pending
// deposit reclaimable from its reclaimableAt and not a second before; signature and payout
// deadlines inclusive; the rolling 24-hour payout cap hour by hour; parameter changes in force
// only once the admin delay has passed, and the reclaim delay taken at each deposit.

import { type Hex, parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';
import { connect, newAccount, now, revertOf, signReclaim } from '../../testkit/chain.js';
import {
  depositDirect,
  depositIndexOf,
  depositor,
  type EscrowFixture,
  escrowCall,
  escrowFixture,
  escrowRead,
  gaslessArgs,
  readDeposit,
  tickets,
} from './shared.js';

const HOUR = 3_600n;
const DAY = 86_400n;
const ADMIN_DELAY = 3n * DAY;
const CAP = 1_000n;
const PARAMETER = { ReclaimDelay: 0, MinDeposit: 1, PayoutCapPerDay: 2 } as const;

let node: LocalNode;
let f: EscrowFixture;
let pres: Hex[] = [];
const nextPre = () => pres.pop()!;
let serial = 0;
const withdrawal = () => `0x${(++serial).toString(16).padStart(64, 'a')}` as Hex;

beforeAll(async () => {
  node = await startLocalNode({ accounts: 1 });
  f = await escrowFixture(connect(node.url), {
    adminDelay: Number(ADMIN_DELAY),
    reclaimDelay: DAY,
    minDeposit: 1_000n,
    payoutCapPerDay: CAP,
  });
  pres = (await tickets(Array.from({ length: 24 }, (_, i) => BigInt(50_000 + i)))).map(
    (t) => t.pre,
  );
});

afterAll(() => node?.stop());

/** The next block will be mined at `time`. */
const at = (time: bigint) => f.chain.test.setNextBlockTimestamp({ timestamp: time });

/** The next block at `time`, or a second after the latest block if that is later. */
async function atLeast(time: bigint) {
  const latest = await now(f.chain);
  await at(time > latest ? time : latest + 1n);
}

/** An empty block at `time`, so views read that time. */
async function mineAt(time: bigint) {
  await at(time);
  await f.chain.test.mine({ blocks: 1 });
}

describe('reclaim in time', () => {
  it('a Pending deposit goes back from its reclaimableAt, not a second before', async () => {
    const who = await depositor(f, 1_000n);
    const index = await depositDirect(f, who, 1_000n, nextPre());
    const { reclaimableAt, depositedAt } = await readDeposit(f, index);
    expect(BigInt(reclaimableAt - depositedAt)).toBe(DAY);
    await at(BigInt(reclaimableAt) - 1n);
    expect(await revertOf(escrowCall(f, who, 'reclaim', [index]))).toEqual({
      name: 'ReclaimTooEarly',
      args: [index, BigInt(reclaimableAt)],
    });
    await at(BigInt(reclaimableAt));
    await escrowCall(f, who, 'reclaim', [index]);
  });

  it('by signature likewise, and the signature holds until its deadline, included', async () => {
    const agent = await depositor(f, 2_000n);
    const relayer = await newAccount(f.chain);
    const index = depositIndexOf(
      await escrowCall(
        f,
        relayer,
        'depositWithAuthorization',
        await gaslessArgs(f, agent, { amount: 2_000n, pre: nextPre() }),
      ),
    );
    const { reclaimableAt } = await readDeposit(f, index);
    const deadline = BigInt(reclaimableAt) + 10n;
    const signature = await signReclaim(f.chain, agent, f.escrow, index, deadline);
    await at(BigInt(reclaimableAt) - 1n);
    expect(
      await revertOf(escrowCall(f, relayer, 'reclaimWithSignature', [index, deadline, signature])),
    ).toMatchObject({
      name: 'ReclaimTooEarly',
    });
    await at(deadline + 1n);
    expect(
      await revertOf(escrowCall(f, relayer, 'reclaimWithSignature', [index, deadline, signature])),
    ).toEqual({
      name: 'ReclaimSignatureExpired',
      args: [deadline],
    });
    // A signature whose deadline is this very second still holds.
    const late = deadline + 100n;
    await at(late);
    await escrowCall(f, relayer, 'reclaimWithSignature', [
      index,
      late,
      await signReclaim(f.chain, agent, f.escrow, index, late),
    ]);
  });
});

describe('payouts in time', () => {
  /** Accepted funds of `amount` in custody. */
  async function inCustody(amount: bigint) {
    const who = await depositor(f, amount);
    const index = await depositDirect(f, who, amount, nextPre());
    await escrowCall(f, f.acceptor, 'acceptDeposits', [[index], []]);
  }

  it('a payout holds until its deadline, included', async () => {
    await inCustody(5_000n);
    const merchant = await newAccount(f.chain);
    const deadline = (await now(f.chain)) + 100n;
    const id = withdrawal();
    await at(deadline + 1n);
    expect(
      await revertOf(escrowCall(f, f.payer, 'payout', [id, merchant.address, 10n, deadline])),
    ).toEqual({
      name: 'PayoutExpired',
      args: [id, deadline],
    });
    const next = (await now(f.chain)) + 100n;
    await at(next);
    await escrowCall(f, f.payer, 'payout', [id, merchant.address, 10n, next]);
  });

  it('no 24 hours see more than the cap: a payout counts for the hour it is in and the 24 after', async () => {
    await inCustody(10_000n);
    const merchant = await newAccount(f.chain);
    // Start on a fresh window: more than 25 hours after anything paid so far.
    const hourStart = ((await now(f.chain)) / HOUR + 30n) * HOUR;
    const pay = (amount: bigint) =>
      escrowCall(f, f.payer, 'payout', [
        withdrawal(),
        merchant.address,
        amount,
        hourStart + 100n * DAY,
      ]);
    const allowance = () => escrowRead<bigint>(f, 'payoutAllowance');
    await mineAt(hourStart + 600n);
    expect(await allowance()).toBe(CAP);
    await pay(600n); // hour H
    await at(hourStart + HOUR + 60n);
    await pay(400n); // hour H + 1
    await at(hourStart + HOUR + 120n);
    expect(await revertOf(pay(1n))).toEqual({ name: 'PayoutCapExceeded', args: [1n, 0n] });
    // 24 hours less a second after the first payout: still nothing.
    await mineAt(hourStart + 600n + DAY - 1n);
    expect(await allowance()).toBe(0n);
    await at(hourStart + 600n + DAY);
    expect(await revertOf(pay(1n))).toEqual({ name: 'PayoutCapExceeded', args: [1n, 0n] });
    // Hour H + 25: the 600 of hour H has left the window, the 400 of hour H + 1 has not.
    await mineAt(hourStart + 25n * HOUR);
    expect(await allowance()).toBe(600n);
    await at(hourStart + 25n * HOUR + 1n);
    expect(await revertOf(pay(601n))).toEqual({ name: 'PayoutCapExceeded', args: [601n, 600n] });
    await pay(600n);
    // Hour H + 26: the 400 leaves too.
    await mineAt(hourStart + 26n * HOUR);
    expect(await allowance()).toBe(400n);
    // Quiet for more than 25 hours: the whole cap again.
    await mineAt(hourStart + 60n * HOUR);
    expect(await allowance()).toBe(CAP);
  });
});

describe('parameters: schedule, then apply after the admin delay', () => {
  const schedule = (parameter: number, value: bigint, as = f.admin) =>
    escrowCall(f, as, 'scheduleParameterChange', [parameter, value]);
  const apply = (parameter: number, as = f.admin) =>
    escrowCall(f, as, 'applyParameterChange', [parameter]);
  const cancel = (parameter: number, as = f.admin) =>
    escrowCall(f, as, 'cancelParameterChange', [parameter]);

  it('only the admin, only values in range', async () => {
    const admin = await escrowRead<Hex>(f, 'DEFAULT_ADMIN_ROLE');
    for (const other of [f.acceptor, f.payer, f.pauser])
      expect(await revertOf(schedule(PARAMETER.MinDeposit, 5_000n, other))).toEqual({
        name: 'AccessControlUnauthorizedAccount',
        args: [other.address, admin],
      });
    expect(await revertOf(schedule(PARAMETER.MinDeposit, 0n))).toEqual({
      name: 'MinDepositOutOfRange',
      args: [0n],
    });
    expect(await revertOf(schedule(PARAMETER.ReclaimDelay, DAY - 1n))).toEqual({
      name: 'ReclaimDelayOutOfRange',
      args: [DAY - 1n],
    });
  });

  it('a scheduled minimum is not in force before the delay, and is after', async () => {
    const receipt = await schedule(PARAMETER.MinDeposit, 5_000n);
    const block = await f.chain.public.getBlock({ blockNumber: receipt.blockNumber });
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'ParameterChangeScheduled',
    });
    const effectiveAt = block.timestamp + ADMIN_DELAY;
    expect(event!.args).toEqual({
      parameter: PARAMETER.MinDeposit,
      value: 5_000n,
      effectiveAt: Number(effectiveAt),
    });
    expect(await escrowRead(f, 'scheduledChange', [PARAMETER.MinDeposit])).toEqual({
      value: 5_000n,
      effectiveAt: Number(effectiveAt),
    });
    expect(await revertOf(schedule(PARAMETER.MinDeposit, 6_000n))).toEqual({
      name: 'ParameterChangeAlreadyScheduled',
      args: [PARAMETER.MinDeposit, 5_000n, Number(effectiveAt)],
    });
    // Before: still the old minimum, for deposits as for the view.
    await at(effectiveAt - 1n);
    expect(await revertOf(apply(PARAMETER.MinDeposit))).toEqual({
      name: 'ParameterChangeNotReady',
      args: [PARAMETER.MinDeposit, Number(effectiveAt)],
    });
    expect(await escrowRead(f, 'minDeposit')).toBe(1_000n);
    const who = await depositor(f, 10_000n);
    await depositDirect(f, who, 1_000n, nextPre());
    // After: in force.
    await atLeast(effectiveAt);
    const applied = await apply(PARAMETER.MinDeposit);
    const [changed] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: applied.logs,
      eventName: 'ParameterChanged',
    });
    expect(changed!.args).toEqual({
      parameter: PARAMETER.MinDeposit,
      previous: 1_000n,
      value: 5_000n,
    });
    expect(await escrowRead(f, 'minDeposit')).toBe(5_000n);
    const pre = nextPre();
    expect(await revertOf(depositDirect(f, who, 1_000n, pre))).toEqual({
      name: 'DepositBelowMinimum',
      args: [1_000n, 5_000n],
    });
    await depositDirect(f, who, 5_000n, pre);
    expect(await revertOf(apply(PARAMETER.MinDeposit))).toEqual({
      name: 'NoParameterChangeScheduled',
      args: [PARAMETER.MinDeposit],
    });
  });

  it('a cancelled change never applies', async () => {
    await schedule(PARAMETER.PayoutCapPerDay, 1n);
    expect(await revertOf(cancel(PARAMETER.PayoutCapPerDay, f.pauser))).toMatchObject({
      name: 'AccessControlUnauthorizedAccount',
    });
    const receipt = await cancel(PARAMETER.PayoutCapPerDay);
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'ParameterChangeCancelled',
    });
    expect(event!.args).toEqual({ parameter: PARAMETER.PayoutCapPerDay, value: 1n });
    await atLeast((await now(f.chain)) + ADMIN_DELAY + 1n);
    expect(await revertOf(apply(PARAMETER.PayoutCapPerDay))).toEqual({
      name: 'NoParameterChangeScheduled',
      args: [PARAMETER.PayoutCapPerDay],
    });
    expect(await revertOf(cancel(PARAMETER.PayoutCapPerDay))).toMatchObject({
      name: 'NoParameterChangeScheduled',
    });
    expect(await escrowRead(f, 'payoutCapPerDay')).toBe(CAP);
  });

  it('the reclaim delay is taken at each deposit: a change applies to later deposits only', async () => {
    const who = await depositor(f, 20_000n);
    const before = await depositDirect(f, who, 5_001n, nextPre());
    await schedule(PARAMETER.ReclaimDelay, 2n * DAY);
    await atLeast((await now(f.chain)) + ADMIN_DELAY);
    await apply(PARAMETER.ReclaimDelay);
    const after = await depositDirect(f, who, 5_002n, nextPre());
    const [old, fresh] = [await readDeposit(f, before), await readDeposit(f, after)];
    expect(BigInt(old.reclaimableAt - old.depositedAt)).toBe(DAY);
    expect(BigInt(fresh.reclaimableAt - fresh.depositedAt)).toBe(2n * DAY);
  });

  it('handing over the admin role waits for the same delay (OpenZeppelin’s rules)', async () => {
    const next = await newAccount(f.chain);
    await escrowCall(f, f.admin, 'beginDefaultAdminTransfer', [next.address]);
    const [, schedule_] = await escrowRead<[string, number]>(f, 'pendingDefaultAdmin');
    expect(await revertOf(escrowCall(f, next, 'acceptDefaultAdminTransfer'))).toEqual({
      name: 'AccessControlEnforcedDefaultAdminDelay',
      args: [schedule_],
    });
    await atLeast(BigInt(schedule_) + 1n);
    await escrowCall(f, next, 'acceptDefaultAdminTransfer');
    expect(await escrowRead(f, 'defaultAdmin')).toBe(next.address);
    expect(await revertOf(schedule(PARAMETER.MinDeposit, 1_000n))).toMatchObject({
      name: 'AccessControlUnauthorizedAccount',
    });
    await schedule(PARAMETER.MinDeposit, 1_000n, next);
  });
});
