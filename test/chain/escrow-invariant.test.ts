// The escrow's invariants under random call sequences from random accounts, on a node of its own
// (sequences set block times). fast-check draws the calls — deposits on both paths, retried tickets,
// accept/decline batches, reclaims by the depositor and by signature, payouts (new and repeated
// withdrawal ids), pause and unpause, tokens sent to the escrow directly, time passing — and
// whether each should pass is predicted from a model; after every call:
//   the escrow's balance = Σ deposits − Σ payouts − Σ reclaims + Σ direct transfers (from events),
//   no deposit is both accepted and reclaimed, no withdrawal id is paid twice,
//   custody = Σ accepted − Σ paid, and what is owed to depositors = Σ deposits − Σ accepted − Σ reclaimed.

import fc from 'fast-check';
import { type Hex, parseEventLogs, type TransactionReceipt } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';
import { randomDigest } from '../../src/core/witness.js';
import {
  type Chain,
  connect,
  newAccount,
  now,
  revertOf,
  signReclaim,
} from '../../testkit/chain.js';
import {
  balanceOf,
  depositor,
  type EscrowFixture,
  escrowCall,
  escrowFixture,
  escrowRead,
  gaslessArgs,
  tokenCall,
} from './shared.js';

const DAY = 86_400n;

/** One drawn call. `who` and `caller` pick accounts; `ref` picks an earlier deposit. */
type Action =
  | { kind: 'deposit'; who: number; amount: bigint }
  | { kind: 'gasless'; who: number; amount: bigint; fee: bigint; caller: number }
  | { kind: 'retry'; ref: number; gasless: boolean; fee: bigint }
  | { kind: 'accept'; accepted: number[]; declined: number[]; caller: number }
  | { kind: 'reclaim'; ref: number; bySignature: boolean; byDepositor: boolean; caller: number }
  | { kind: 'payout'; repeat: boolean; amount: bigint; caller: number }
  | { kind: 'pause' | 'unpause'; caller: number }
  | { kind: 'direct'; who: number; amount: bigint }
  | { kind: 'time'; seconds: bigint };

const DEPOSITORS = 3;
/** Callers: 0 acceptor, 1 payer, 2 pauser, 3 admin, then the depositors and a relayer. */
const account = fc.nat({ max: 8 });
/** Mostly the role's holder, sometimes anyone. */
const roleHolder = (index: number) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(index) }, { weight: 1, arbitrary: account });
const amount = fc.bigInt({ min: 1n, max: 5_000n });
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('deposit' as const),
      who: fc.nat({ max: DEPOSITORS - 1 }),
      amount,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('gasless' as const),
      who: fc.nat({ max: DEPOSITORS - 1 }),
      amount,
      fee: fc.bigInt({ min: 0n, max: 30n }),
      caller: account,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('retry' as const),
      ref: fc.nat(),
      gasless: fc.boolean(),
      fee: fc.bigInt({ min: 0n, max: 9n }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('accept' as const),
      accepted: fc.array(fc.nat(), { maxLength: 3 }),
      declined: fc.array(fc.nat(), { maxLength: 2 }),
      caller: roleHolder(0),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('reclaim' as const),
      ref: fc.nat(),
      bySignature: fc.boolean(),
      byDepositor: fc.boolean(),
      caller: account,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('payout' as const),
      repeat: fc.boolean(),
      amount,
      caller: roleHolder(1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('pause' as const, 'unpause' as const),
      caller: roleHolder(2),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('direct' as const),
      who: fc.nat({ max: DEPOSITORS - 1 }),
      amount,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('time' as const),
      seconds: fc.constantFrom(60n, DAY - 30n, DAY - 2n, DAY, DAY + 30n, 3n * DAY),
    }),
  },
);

/** What the model knows of one deposit. */
interface ModelDeposit {
  readonly depositor: PrivateKeyAccount;
  readonly amount: bigint;
  readonly pre: Hex;
  readonly reclaimableAt: bigint;
  state: 'Pending' | 'Accepted' | 'Declined' | 'Reclaimed';
}

/** What the events said so far, and what went around the escrow. */
interface Tally {
  deposited: bigint;
  accepted: bigint;
  paid: bigint;
  reclaimed: bigint;
  direct: bigint;
  readonly acceptedIndices: Set<bigint>;
  readonly reclaimedIndices: Set<bigint>;
  readonly paidIds: Set<Hex>;
}

/** A sequence in which every kind of call passes at least once (run first, then random ones). */
const EVERY_KIND: Action[] = [
  { kind: 'deposit', who: 0, amount: 1_000n },
  { kind: 'gasless', who: 1, amount: 2_000n, fee: 10n, caller: 7 },
  { kind: 'deposit', who: 2, amount: 3_000n },
  { kind: 'retry', ref: 1, gasless: false, fee: 0n },
  { kind: 'accept', accepted: [0], declined: [1], caller: 0 },
  { kind: 'reclaim', ref: 1, bySignature: true, byDepositor: false, caller: 7 },
  { kind: 'payout', repeat: false, amount: 400n, caller: 1 },
  { kind: 'payout', repeat: true, amount: 400n, caller: 1 },
  { kind: 'pause', caller: 2 },
  { kind: 'payout', repeat: false, amount: 1n, caller: 1 },
  { kind: 'unpause', caller: 2 },
  { kind: 'direct', who: 0, amount: 7n },
  { kind: 'time', seconds: 3n * DAY },
  { kind: 'reclaim', ref: 2, bySignature: false, byDepositor: true, caller: 0 },
  { kind: 'accept', accepted: [2], declined: [], caller: 0 },
];

let node: LocalNode;
let chain: Chain;
/** How many calls of each kind passed, over every sequence (so the property is not vacuous). */
const passed = new Map<string, number>();

beforeAll(async () => {
  node = await startLocalNode({ accounts: 1 });
  chain = connect(node.url);
  // Block times move by blocks and by the sequences' own time steps, never by the wall clock: a
  // block is one second after the one before (so the model knows each call's block time, however
  // loaded the machine).
  await chain.test.setBlockTimestampInterval({ interval: 1 });
});

afterAll(() => node?.stop());

/** One sequence on a fresh token and escrow. */
async function run(actions: readonly Action[]) {
  const f = await escrowFixture(chain, {
    adminDelay: 0,
    reclaimDelay: DAY,
    minDeposit: 100n,
    payoutCapPerDay: 1n << 100n,
  });
  const depositors: PrivateKeyAccount[] = [];
  for (let i = 0; i < DEPOSITORS; i++) {
    const d = await depositor(f, 1_000_000n);
    await tokenCall(f, d, 'approve', [f.escrow, 1_000_000n]);
    depositors.push(d);
  }
  const merchant = depositors[0]!;
  // Callers: the role holders, the depositors and a relayer with no role.
  const relayer = await newAccount(chain);
  const callers = [f.acceptor, f.payer, f.pauser, f.admin, ...depositors, relayer];
  const caller = (i: number) => callers[i % callers.length]!;
  const deposits: ModelDeposit[] = [];
  const tally: Tally = {
    deposited: 0n,
    accepted: 0n,
    paid: 0n,
    reclaimed: 0n,
    direct: 0n,
    acceptedIndices: new Set(),
    reclaimedIndices: new Set(),
    paidIds: new Set(),
  };
  let paused = false;
  let lastId: Hex | undefined;

  /** Runs a call the model says passes (or, with `refusal`, reverts with that error). */
  async function expectOutcome(
    call: () => Promise<TransactionReceipt>,
    refusal: string | null,
    what: string,
  ) {
    if (refusal === null) {
      record(await call());
      passed.set(what, (passed.get(what) ?? 0) + 1);
    } else {
      const reason = await revertOf(call());
      expect(reason.name, what).toBe(refusal);
    }
  }

  function record(receipt: TransactionReceipt) {
    for (const event of parseEventLogs({ abi: privStarkEscrowAbi, logs: receipt.logs })) {
      const args = event.args as Record<string, unknown>;
      if (event.eventName === 'Deposited') tally.deposited += args.amount as bigint;
      if (event.eventName === 'Accepted') {
        tally.accepted += args.amount as bigint;
        tally.acceptedIndices.add(args.index as bigint);
      }
      if (event.eventName === 'Reclaimed') {
        tally.reclaimed += args.amount as bigint;
        tally.reclaimedIndices.add(args.index as bigint);
      }
      if (event.eventName === 'Paid') {
        expect(tally.paidIds.has(args.withdrawalId as Hex), 'a withdrawal id paid twice').toBe(
          false,
        );
        tally.paidIds.add(args.withdrawalId as Hex);
        tally.paid += args.amount as bigint;
      }
    }
  }

  const refusalOfDeposit = (value: bigint, known: boolean) =>
    paused
      ? 'EnforcedPause'
      : value < 100n
        ? 'DepositBelowMinimum'
        : known
          ? 'DuplicateDeposit'
          : null;

  for (const step of actions) {
    const t = await now(chain);
    switch (step.kind) {
      case 'deposit': {
        const who = depositors[step.who]!;
        const pre = randomDigest();
        const refusal = refusalOfDeposit(step.amount, false);
        await expectOutcome(
          () => escrowCall(f, who, 'deposit', [step.amount, pre]),
          refusal,
          'deposit',
        );
        if (refusal === null) deposits.push(modelDeposit(who, step.amount, pre, await now(chain)));
        break;
      }
      case 'gasless': {
        const who = depositors[step.who]!;
        const pre = randomDigest();
        const args = await gaslessArgs(f, who, {
          amount: step.amount,
          pre,
          value: step.amount + step.fee,
        });
        const refusal = refusalOfDeposit(step.amount, false);
        await expectOutcome(
          () => escrowCall(f, caller(step.caller), 'depositWithAuthorization', args),
          refusal,
          'gasless',
        );
        if (refusal === null) deposits.push(modelDeposit(who, step.amount, pre, await now(chain)));
        break;
      }
      case 'retry': {
        const target = deposits[step.ref % Math.max(deposits.length, 1)];
        if (!target) break;
        const refusal = refusalOfDeposit(target.amount, true);
        const call = step.gasless
          ? async () =>
              escrowCall(
                f,
                depositors[0]!,
                'depositWithAuthorization',
                await gaslessArgs(f, target.depositor, {
                  amount: target.amount,
                  pre: target.pre,
                  value: target.amount + step.fee,
                }),
              )
          : () => escrowCall(f, target.depositor, 'deposit', [target.amount, target.pre]);
        await expectOutcome(call, refusal, 'retry');
        break;
      }
      case 'accept': {
        const pick = (refs: number[]) =>
          [...new Set(refs.map((r) => r % Math.max(deposits.length, 1)))].filter(
            (i) => i < deposits.length,
          );
        const accepted = pick(step.accepted);
        const declined = pick(step.declined).filter((i) => !accepted.includes(i));
        const who = caller(step.caller);
        const allPending = [...accepted, ...declined].every(
          (i) => deposits[i]!.state === 'Pending',
        );
        const refusal =
          who !== f.acceptor
            ? 'AccessControlUnauthorizedAccount'
            : allPending
              ? null
              : 'DepositNotPending';
        await expectOutcome(
          () => escrowCall(f, who, 'acceptDeposits', [accepted.map(BigInt), declined.map(BigInt)]),
          refusal,
          'accept',
        );
        if (refusal === null) {
          for (const i of accepted) deposits[i]!.state = 'Accepted';
          for (const i of declined) deposits[i]!.state = 'Declined';
        }
        break;
      }
      case 'reclaim': {
        const index = step.ref % Math.max(deposits.length, 1);
        const target = deposits[index];
        if (!target) break;
        const who = step.byDepositor ? target.depositor : caller(step.caller);
        // The reclaim is mined in the next block, a second after the latest.
        const due =
          target.state === 'Declined' ||
          (target.state === 'Pending' && t + 1n >= target.reclaimableAt);
        const state =
          target.state === 'Accepted' || target.state === 'Reclaimed'
            ? 'DepositNotReclaimable'
            : due
              ? null
              : 'ReclaimTooEarly';
        const refusal = !step.bySignature && who !== target.depositor ? 'NotDepositor' : state;
        const call = step.bySignature
          ? async () => {
              const deadline = t + 3_600n;
              const signature = await signReclaim(
                chain,
                target.depositor,
                f.escrow,
                BigInt(index),
                deadline,
              );
              return escrowCall(f, who, 'reclaimWithSignature', [
                BigInt(index),
                deadline,
                signature,
              ]);
            }
          : () => escrowCall(f, who, 'reclaim', [BigInt(index)]);
        await expectOutcome(call, refusal, 'reclaim');
        if (refusal === null) target.state = 'Reclaimed';
        break;
      }
      case 'payout': {
        const who = caller(step.caller);
        const id = step.repeat && lastId ? lastId : (randomDigest() as Hex);
        const custody = tally.accepted - tally.paid;
        const refusal =
          who !== f.payer
            ? 'AccessControlUnauthorizedAccount'
            : paused
              ? 'EnforcedPause'
              : tally.paidIds.has(id)
                ? 'WithdrawalAlreadyPaid'
                : step.amount > custody
                  ? 'PayoutExceedsCustody'
                  : null;
        await expectOutcome(
          () => escrowCall(f, who, 'payout', [id, merchant.address, step.amount, t + 3_600n]),
          refusal,
          'payout',
        );
        if (refusal === null) lastId = id;
        break;
      }
      case 'pause':
      case 'unpause': {
        const who = caller(step.caller);
        const refusal =
          who !== f.pauser
            ? 'AccessControlUnauthorizedAccount'
            : step.kind === 'pause'
              ? paused
                ? 'EnforcedPause'
                : null
              : paused
                ? null
                : 'ExpectedPause';
        await expectOutcome(() => escrowCall(f, who, step.kind), refusal, step.kind);
        if (refusal === null) paused = step.kind === 'pause';
        break;
      }
      case 'direct':
        await tokenCall(f, depositors[step.who]!, 'transfer', [f.escrow, step.amount]);
        tally.direct += step.amount;
        break;
      case 'time':
        await chain.test.setNextBlockTimestamp({ timestamp: t + step.seconds });
        await chain.test.mine({ blocks: 1 });
        break;
    }
    await checkInvariants(f, tally);
  }
  // At the end, every deposit's state on chain is the model's, and none is both accepted and reclaimed.
  for (const [i, d] of deposits.entries()) {
    const onChain = await escrowRead<{ state: number }>(f, 'getDeposit', [BigInt(i)]);
    expect(['Pending', 'Accepted', 'Declined', 'Reclaimed'][onChain.state]).toBe(d.state);
  }
}

function modelDeposit(who: PrivateKeyAccount, amount: bigint, pre: Hex, at: bigint): ModelDeposit {
  return { depositor: who, amount, pre, reclaimableAt: at + DAY, state: 'Pending' };
}

async function checkInvariants(f: EscrowFixture, tally: Tally) {
  const [balance, custody, unaccepted] = await Promise.all([
    balanceOf(f, f.escrow),
    escrowRead<bigint>(f, 'custody'),
    escrowRead<bigint>(f, 'unacceptedTotal'),
  ]);
  expect(balance).toBe(tally.deposited - tally.paid - tally.reclaimed + tally.direct);
  for (const index of tally.acceptedIndices)
    expect(tally.reclaimedIndices.has(index), `deposit ${index} accepted and reclaimed`).toBe(
      false,
    );
  expect(custody).toBe(tally.accepted - tally.paid);
  expect(custody >= 0n && custody <= tally.accepted - tally.paid).toBe(true);
  expect(unaccepted).toBe(tally.deposited - tally.accepted - tally.reclaimed);
  expect(balance - custody - unaccepted).toBe(tally.direct);
}

describe('the escrow under random call sequences', () => {
  it('keeps its balance, its states and its payouts in order after every call', async () => {
    await fc.assert(fc.asyncProperty(fc.array(action, { minLength: 8, maxLength: 30 }), run), {
      numRuns: 12,
      endOnFailure: true,
      examples: [[EVERY_KIND]],
    });
    // The sequences did exercise every kind of call that moves funds or states.
    for (const kind of ['deposit', 'gasless', 'accept', 'reclaim', 'payout', 'pause', 'unpause'])
      expect(passed.get(kind) ?? 0, kind).toBeGreaterThan(0);
  }, 240_000);

  it('must-fail twin: the check notices tokens that moved behind the tallies', async () => {
    const f = await escrowFixture(chain);
    const who = await depositor(f, 10_000n);
    await tokenCall(f, who, 'approve', [f.escrow, 10_000n]);
    await escrowCall(f, who, 'deposit', [1_000n, randomDigest()]);
    const tally: Tally = {
      deposited: 1_000n,
      accepted: 0n,
      paid: 0n,
      reclaimed: 0n,
      direct: 0n,
      acceptedIndices: new Set(),
      reclaimedIndices: new Set(),
      paidIds: new Set(),
    };
    await checkInvariants(f, tally);
    await tokenCall(f, who, 'transfer', [f.escrow, 1n]);
    await expect(checkInvariants(f, tally)).rejects.toThrow();
    await checkInvariants(f, { ...tally, direct: 1n });
    // And a deposit both accepted and reclaimed would be caught.
    const both = {
      ...tally,
      direct: 1n,
      acceptedIndices: new Set([0n]),
      reclaimedIndices: new Set([0n]),
    };
    await expect(checkInvariants(f, both)).rejects.toThrow(/accepted and reclaimed/);
  });
});
