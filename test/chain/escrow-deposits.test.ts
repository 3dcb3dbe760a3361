// The escrow's deposits on the shared node: the direct path after approve and the gasless path
// (EIP-3009 receiveWithAuthorization, both signature forms) with the relayer's fee; a retried
// ticket moves funds once whichever path and fee; every refusal beside the deposit that passes;
// `pre` canonical exactly as the core decides it; and a real wallet ticket's `(amount, pre)`.

import { type Hex, parseEventLogs } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';

import { privStarkEscrowAbi, testUsdcAbi } from '../../src/chain/contract-artifacts.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { commitmentOf, digestElements, elementsDigest } from '../../src/core/witness.js';
import { depositNonce, newAccount, revertOf } from '../../testkit/chain.js';
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

const P = (1n << 64n) - (1n << 32n) + 1n;

/** A digest's wire bytes from its four limbs, each 8 bytes little-endian (the core's encoding). */
function digestOfLimbs(limbs: readonly bigint[]): Hex {
  let hex = '0x';
  for (const limb of limbs)
    for (let byte = 0; byte < 8; byte++)
      hex += ((limb >> BigInt(8 * byte)) & 0xffn).toString(16).padStart(2, '0');
  return hex as Hex;
}

let f: EscrowFixture;
let core: PrivStarkCore;
let serial = 0;
/** A canonical `pre` not used before in this suite. */
const freshPre = (): Hex => digestOfLimbs([BigInt(++serial), 7n, 8n, BigInt(Date.now())]);

beforeAll(async () => {
  core = await loadCore();
  f = await escrowFixture(sharedChain(), {
    adminDelay: 0,
    reclaimDelay: 86_400n,
    minDeposit: 1_000n,
    payoutCapPerDay: 10n ** 12n,
  });
});

describe('deposit (direct, after approve)', () => {
  it('moves the amount in, records a Pending deposit and emits Deposited', async () => {
    const alice = await depositor(f, 5_000n);
    const pre = freshPre();
    const before = await balanceOf(f, f.escrow);
    const count = await escrowRead<bigint>(f, 'depositCount');
    await tokenCall(f, alice, 'approve', [f.escrow, 2_500n]);
    const receipt = await escrowCall(f, alice, 'deposit', [2_500n, pre]);
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Deposited',
    });
    expect(event!.args).toEqual({
      index: count,
      depositor: alice.address,
      amount: 2_500n,
      pre,
      relayer: alice.address,
      fee: 0n,
    });
    const block = await f.chain.public.getBlock({ blockNumber: receipt.blockNumber });
    expect(await readDeposit(f, count)).toEqual({
      depositor: alice.address,
      state: STATE.Pending,
      depositedAt: Number(block.timestamp),
      reclaimableAt: Number(block.timestamp) + 86_400,
      amount: 2_500n,
      pre,
    });
    expect(await balanceOf(f, f.escrow)).toBe(before + 2_500n);
    expect(await balanceOf(f, alice.address)).toBe(2_500n);
    expect(await escrowRead(f, 'isDeposited', [2_500n, pre])).toBe(true);
    expect(await escrowRead(f, 'isDeposited', [2_501n, pre])).toBe(false);
  });

  it('refuses an amount below the minimum (the minimum passes)', async () => {
    const alice = await depositor(f, 10_000n);
    await tokenCall(f, alice, 'approve', [f.escrow, 10_000n]);
    expect(await revertOf(escrowCall(f, alice, 'deposit', [999n, freshPre()]))).toEqual({
      name: 'DepositBelowMinimum',
      args: [999n, 1_000n],
    });
    await escrowCall(f, alice, 'deposit', [1_000n, freshPre()]);
  });

  it('refuses 2^62 or more (2^62 − 1 passes)', async () => {
    const whale = await depositor(f, 1n << 62n);
    await tokenCall(f, whale, 'approve', [f.escrow, 1n << 62n]);
    expect(await revertOf(escrowCall(f, whale, 'deposit', [1n << 62n, freshPre()]))).toEqual({
      name: 'DepositTooLarge',
      args: [1n << 62n],
    });
    await escrowCall(f, whale, 'deposit', [(1n << 62n) - 1n, freshPre()]);
  });

  it('refuses an (amount, pre) deposited before, even after other deposits (another amount passes)', async () => {
    const alice = await depositor(f, 10_000n);
    const pre = freshPre();
    await depositDirect(f, alice, 1_500n, pre);
    await depositDirect(f, alice, 1_600n, freshPre());
    await tokenCall(f, alice, 'approve', [f.escrow, 1_500n]);
    expect(await revertOf(escrowCall(f, alice, 'deposit', [1_500n, pre]))).toEqual({
      name: 'DuplicateDeposit',
      args: [1_500n, pre],
    });
    // The same pre with another amount is another note.
    await tokenCall(f, alice, 'approve', [f.escrow, 1_501n]);
    await escrowCall(f, alice, 'deposit', [1_501n, pre]);
  });

  it('without an allowance the token refuses (the escrow moves nothing it was not given)', async () => {
    const alice = await depositor(f, 10_000n);
    expect(await revertOf(escrowCall(f, alice, 'deposit', [1_000n, freshPre()]))).toEqual({
      name: 'Error',
      args: ['ERC20: transfer amount exceeds allowance'],
    });
  });
});

describe('pre: canonical exactly as the core decides', () => {
  /** Whether the escrow takes `pre` (a simulated deposit with the allowance in place). */
  let accepts: (pre: Hex) => Promise<boolean>;

  beforeAll(async () => {
    const alice = await depositor(f, 1_000_000n);
    await tokenCall(f, alice, 'approve', [f.escrow, 1_000_000n]);
    accepts = async (pre) => {
      try {
        await f.chain.public.simulateContract({
          account: alice,
          address: f.escrow,
          abi: privStarkEscrowAbi,
          functionName: 'deposit',
          args: [1_234n, pre],
        });
        return true;
      } catch (error) {
        const reason = await revertOf(Promise.reject(error));
        expect(reason).toEqual({ name: 'NonCanonicalPre', args: [pre] });
        return false;
      }
    };
  });

  const coreAccepts = (pre: Hex) => {
    try {
      core.parseDigest(pre);
      return true;
    } catch {
      return false;
    }
  };

  it('agrees with the core on every limb at the modulus boundary', async () => {
    const edges = [
      0n,
      1n,
      P - 1n,
      P,
      P + 1n,
      0xffff_ffff_0000_0000n,
      0x0000_0000_ffff_ffffn,
      (1n << 64n) - 1n,
    ];
    let refused = 0;
    for (let limb = 0; limb < 4; limb++)
      for (const value of edges) {
        const limbs = [3n, 5n, 7n, 11n];
        limbs[limb] = value;
        const pre = digestOfLimbs(limbs);
        const expected = value < P;
        expect(coreAccepts(pre), `core, limb ${limb} = ${value}`).toBe(expected);
        expect(await accepts(pre), `escrow, limb ${limb} = ${value}`).toBe(expected);
        if (!expected) refused++;
      }
    expect(refused).toBe(4 * 3);
  });

  it("the byte order is the core's: each limb little-endian, as in the digests the core makes", () => {
    const limbs = [0x0102030405060708n, 9n, P - 1n, 0xfedcba98n];
    expect(digestOfLimbs(limbs)).toBe(elementsDigest(limbs));
    const digest = core.hashElements('PRE', limbs);
    expect(digestOfLimbs(digestElements(digest))).toBe(digest);
    // Must-fail twin: p read big-endian is a canonical limb; the core refuses p little-endian.
    const bigEndianP = `0x${P.toString(16).padStart(16, '0')}${'00'.repeat(24)}` as Hex;
    expect(coreAccepts(bigEndianP)).toBe(true);
    expect(coreAccepts(digestOfLimbs([P, 0n, 0n, 0n]))).toBe(false);
  });

  it('agrees with the core on random digests near and far from the modulus', async () => {
    const limb = fc.oneof(
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      fc.bigInt({ min: P - 3n, max: P + 3n }),
      fc.bigInt({ min: (1n << 64n) - (1n << 32n) - 2n, max: (1n << 64n) - 1n }),
    );
    await fc.assert(
      fc.asyncProperty(fc.tuple(limb, limb, limb, limb), async (limbs) => {
        const pre = digestOfLimbs(limbs);
        expect(await accepts(pre)).toBe(coreAccepts(pre));
      }),
      { numRuns: 60 },
    );
  });
});

describe('depositWithAuthorization (gasless)', () => {
  for (const form of ['bytes', 'vrs'] as const)
    it(`(${form}) takes the amount from the signer, pays the fee to the relayer, records the signer as depositor`, async () => {
      const agent = await depositor(f, 10_000n);
      const relayer = await newAccount(f.chain);
      const pre = freshPre();
      const args = await gaslessArgs(f, agent, { amount: 3_000n, pre, value: 3_050n }, form);
      const before = await balanceOf(f, f.escrow);
      const receipt = await escrowCall(f, relayer, 'depositWithAuthorization', args);
      const [event] = parseEventLogs({
        abi: privStarkEscrowAbi,
        logs: receipt.logs,
        eventName: 'Deposited',
      });
      expect(event!.args).toMatchObject({
        depositor: agent.address,
        amount: 3_000n,
        pre,
        relayer: relayer.address,
        fee: 50n,
      });
      expect(await balanceOf(f, agent.address)).toBe(10_000n - 3_050n);
      expect(await balanceOf(f, relayer.address)).toBe(50n);
      expect(await balanceOf(f, f.escrow)).toBe(before + 3_000n);
      expect((await readDeposit(f, event!.args.index)).depositor).toBe(agent.address);
      // The token's nonce is the one the escrow computes from (amount, pre).
      expect(await escrowRead(f, 'depositNonce', [3_000n, pre])).toBe(depositNonce(3_000n, pre));
      expect(
        await f.chain.public.readContract({
          address: f.token,
          abi: testUsdcAbi,
          functionName: 'authorizationState',
          args: [agent.address, depositNonce(3_000n, pre)],
        }),
      ).toBe(true);
    });

  it('refuses a value below the amount (value = amount passes, no fee)', async () => {
    const agent = await depositor(f, 10_000n);
    const relayer = await newAccount(f.chain);
    const pre = freshPre();
    expect(
      await revertOf(
        escrowCall(
          f,
          relayer,
          'depositWithAuthorization',
          await gaslessArgs(f, agent, { amount: 2_000n, pre, value: 1_999n }),
        ),
      ),
    ).toEqual({ name: 'ValueBelowAmount', args: [1_999n, 2_000n] });
    await escrowCall(
      f,
      relayer,
      'depositWithAuthorization',
      await gaslessArgs(f, agent, { amount: 2_000n, pre }),
    );
    expect(await balanceOf(f, relayer.address)).toBe(0n);
  });

  it('a relayer can change neither the amount, the pre nor the fee: the signature no longer holds', async () => {
    const agent = await depositor(f, 10_000n);
    const relayer = await newAccount(f.chain);
    const pre = freshPre();
    const args = await gaslessArgs(f, agent, { amount: 2_000n, pre, value: 2_010n });
    const altered = [
      [args[0], 1_990n, ...args.slice(2)], // a smaller deposit, a larger fee
      [args[0], args[1], freshPre(), ...args.slice(3)], // another note
      [...args.slice(0, 3), 2_020n, ...args.slice(4)], // a larger fee
    ];
    for (const list of altered)
      expect(await revertOf(escrowCall(f, relayer, 'depositWithAuthorization', list))).toEqual({
        name: 'Error',
        args: ['FiatTokenV2: invalid signature'],
      });
    await escrowCall(f, relayer, 'depositWithAuthorization', args);
  });

  it('the canonical-pre, minimum and 2^62 rules hold on this path too', async () => {
    const agent = await depositor(f, 10_000n);
    const bad = digestOfLimbs([P, 0n, 0n, 0n]);
    expect(
      await revertOf(
        escrowCall(
          f,
          agent,
          'depositWithAuthorization',
          await gaslessArgs(f, agent, { amount: 2_000n, pre: bad }),
        ),
      ),
    ).toEqual({
      name: 'NonCanonicalPre',
      args: [bad],
    });
    expect(
      await revertOf(
        escrowCall(
          f,
          agent,
          'depositWithAuthorization',
          await gaslessArgs(f, agent, { amount: 10n, pre: freshPre() }),
        ),
      ),
    ).toEqual({
      name: 'DepositBelowMinimum',
      args: [10n, 1_000n],
    });
    expect(
      await revertOf(
        escrowCall(
          f,
          agent,
          'depositWithAuthorization',
          await gaslessArgs(f, agent, { amount: 1n << 62n, pre: freshPre() }),
        ),
      ),
    ).toEqual({ name: 'DepositTooLarge', args: [1n << 62n] });
  });
});

describe('a retried ticket moves funds once, whichever path and fee', () => {
  it('gasless then gasless with another fee, then direct: refused, the depositor paid once', async () => {
    const agent = await depositor(f, 10_000n);
    const [relayer1, relayer2] = [await newAccount(f.chain), await newAccount(f.chain)];
    const pre = freshPre();
    await escrowCall(
      f,
      relayer1,
      'depositWithAuthorization',
      await gaslessArgs(f, agent, { amount: 4_000n, pre, value: 4_010n }),
    );
    const again = await gaslessArgs(f, agent, { amount: 4_000n, pre, value: 4_100n }, 'vrs');
    expect(await revertOf(escrowCall(f, relayer2, 'depositWithAuthorization', again))).toEqual({
      name: 'DuplicateDeposit',
      args: [4_000n, pre],
    });
    await tokenCall(f, agent, 'approve', [f.escrow, 4_000n]);
    expect(await revertOf(escrowCall(f, agent, 'deposit', [4_000n, pre]))).toMatchObject({
      name: 'DuplicateDeposit',
    });
    expect(await balanceOf(f, agent.address)).toBe(10_000n - 4_010n);
    // Even past the escrow, the token would not spend the same (amount, pre) nonce twice.
    expect(
      await f.chain.public.readContract({
        address: f.token,
        abi: testUsdcAbi,
        functionName: 'authorizationState',
        args: [agent.address, depositNonce(4_000n, pre)],
      }),
    ).toBe(true);
  });

  it('direct then gasless: refused, the depositor paid once', async () => {
    const agent = await depositor(f, 10_000n);
    const pre = freshPre();
    await depositDirect(f, agent, 5_000n, pre);
    expect(
      await revertOf(
        escrowCall(
          f,
          agent,
          'depositWithAuthorization',
          await gaslessArgs(f, agent, { amount: 5_000n, pre, value: 5_001n }),
        ),
      ),
    ).toEqual({ name: 'DuplicateDeposit', args: [5_000n, pre] });
    expect(await balanceOf(f, agent.address)).toBe(5_000n);
  });
});

describe("a real wallet ticket's (amount, pre)", () => {
  it('deposits as it is, and the pool computes the same commitment from what the chain shows', async () => {
    const [ticket] = await tickets([1_000_000n]);
    const agent = await depositor(f, 1_000_000n);
    const relayer = await newAccount(f.chain);
    const receipt = await escrowCall(
      f,
      relayer,
      'depositWithAuthorization',
      await gaslessArgs(f, agent, { amount: ticket!.amount, pre: ticket!.pre }),
    );
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Deposited',
    });
    expect(event!.args.pre).toBe(ticket!.pre);
    expect(core.parseDigest(event!.args.pre)).toBe(ticket!.pre);
    expect(commitmentOf(core, event!.args.amount.toString(), event!.args.pre)).toBe(
      commitmentOf(core, ticket!.amount.toString(), ticket!.pre),
    );
    // Must-fail twin: one byte of pre changed on the way is another note, which the wallet would
    // never find (and so it must be exactly the ticket's bytes that the chain carries).
    const tampered =
      `${ticket!.pre.slice(0, -2)}${ticket!.pre.endsWith('00') ? '01' : '00'}` as Hex;
    expect(commitmentOf(core, ticket!.amount.toString(), tampered)).not.toBe(
      commitmentOf(core, ticket!.amount.toString(), ticket!.pre),
    );
  });
});
