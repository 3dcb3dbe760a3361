// The escrow over a hostile token (contracts/test/HostileToken.sol), on the shared node: a token
// that calls back into the escrow while it moves funds meets the reentrancy guard on every path
// that moves funds (deposit, gasless deposit, reclaim, payout) — and the very same call, made
// when no escrow call is under way, passes (so it is the guard that refused it); a token that
// delivers less than asked is caught by the balance check.

import { type Abi, type Address, encodeFunctionData, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import {
  type Chain,
  deploy,
  deployEscrow,
  newAccount,
  now,
  revertOf,
  send,
  signReclaim,
  testArtifact,
} from '../../testkit/chain.js';
import { sharedChain, tickets } from './shared.js';

const hostile = testArtifact('HostileToken');
let chain: Chain;
let token: Address;
let escrow: Address;
let admin: PrivateKeyAccount;
let acceptor: PrivateKeyAccount;
let payer: PrivateKeyAccount;
let alice: PrivateKeyAccount;
let pres: Hex[] = [];
const nextPre = () => pres.pop()!;
let serial = 0;
const withdrawal = () => `0x${(++serial).toString(16).padStart(64, 'b')}` as Hex;

const tokenCall = (as: PrivateKeyAccount, functionName: string, args: readonly unknown[] = []) =>
  send(chain, as, { address: token, abi: hostile.abi, functionName, args });
const escrowCall = (as: PrivateKeyAccount, functionName: string, args: readonly unknown[] = []) =>
  send(chain, as, { address: escrow, abi: privStarkEscrowAbi, functionName, args });
const balance = (who: Address) =>
  chain.public.readContract({
    address: token,
    abi: hostile.abi as Abi,
    functionName: 'balanceOf',
    args: [who],
  }) as Promise<bigint>;
const count = () =>
  chain.public.readContract({
    address: escrow,
    abi: privStarkEscrowAbi,
    functionName: 'depositCount',
  });
/** The token's next transfer first calls the escrow with `functionName(args)`. */
const arm = (functionName: string, args: readonly unknown[]) =>
  tokenCall(alice, 'arm', [
    escrow,
    encodeFunctionData({ abi: privStarkEscrowAbi, functionName, args } as never),
  ]);
/** A transfer between two strangers: it sets off the armed call outside any escrow call. */
const unrelatedTransfer = async () => {
  const [x, y] = [await newAccount(chain), await newAccount(chain)];
  await tokenCall(x, 'transfer', [y.address, 0n]);
};
const guard = { name: 'ReentrancyGuardReentrantCall', args: [] };

beforeAll(async () => {
  chain = sharedChain();
  admin = await newAccount(chain);
  acceptor = await newAccount(chain);
  payer = await newAccount(chain);
  alice = await newAccount(chain);
  token = await deploy(chain, admin, hostile);
  escrow = await deployEscrow(chain, admin, token);
  for (const [role, holder] of [
    ['ACCEPTOR_ROLE', acceptor.address],
    ['PAYOUT_ROLE', payer.address],
    // The token itself may pay out: so its re-entrant payout is refused by the guard alone.
    ['PAYOUT_ROLE', token],
  ] as const) {
    const id = await chain.public.readContract({
      address: escrow,
      abi: privStarkEscrowAbi,
      functionName: role,
    });
    await escrowCall(admin, 'grantRole', [id, holder]);
  }
  await tokenCall(alice, 'mint', [alice.address, 1_000_000n]);
  await tokenCall(alice, 'approve', [escrow, 1_000_000n]);
  pres = (await tickets(Array.from({ length: 24 }, (_, i) => BigInt(70_000 + i)))).map(
    (t) => t.pre,
  );
});

/** A Declined deposit of alice's and her signature to reclaim it (what the attacker replays). */
async function declinedWithSignature(amount: bigint) {
  await escrowCall(alice, 'deposit', [amount, nextPre()]);
  const index = (await count()) - 1n;
  await escrowCall(acceptor, 'acceptDeposits', [[], [index]]);
  const deadline = (await now(chain)) + 3_600n;
  return [index, deadline, await signReclaim(chain, alice, escrow, index, deadline)] as const;
}

describe('reentrancy', () => {
  it('deposit: a token calling back during transferFrom is refused; the same call alone passes', async () => {
    const reclaim = await declinedWithSignature(1_000n);
    await arm('reclaimWithSignature', reclaim);
    const before = await balance(alice.address);
    expect(await revertOf(escrowCall(alice, 'deposit', [2_000n, nextPre()]))).toEqual(guard);
    expect(await balance(alice.address)).toBe(before);
    // Twin: the armed call set off by an unrelated transfer — not nested — passes.
    await unrelatedTransfer();
    expect(await balance(alice.address)).toBe(before + 1_000n);
  });

  it('gasless deposit: a token calling back during receiveWithAuthorization is refused', async () => {
    const reclaim = await declinedWithSignature(1_100n);
    await arm('reclaimWithSignature', reclaim);
    const relayer = await newAccount(chain);
    const t = await now(chain);
    const gasless = [alice.address, 3_000n, nextPre(), 3_000n, t - 60n, t + 3_600n, '0x'];
    expect(await revertOf(escrowCall(relayer, 'depositWithAuthorization', gasless))).toEqual(guard);
    await unrelatedTransfer();
    await escrowCall(relayer, 'depositWithAuthorization', gasless);
  });

  it('reclaim: a token calling back to reclaim the same deposit again is refused', async () => {
    const reclaim = await declinedWithSignature(1_200n);
    await arm('reclaimWithSignature', reclaim);
    const before = await balance(alice.address);
    expect(await revertOf(escrowCall(alice, 'reclaim', [reclaim[0]]))).toEqual(guard);
    expect(await balance(alice.address)).toBe(before);
    // Alone, once: the deposit goes back once.
    await unrelatedTransfer();
    expect(await balance(alice.address)).toBe(before + 1_200n);
    expect(await revertOf(escrowCall(alice, 'reclaim', [reclaim[0]]))).toMatchObject({
      name: 'DepositNotReclaimable',
    });
  });

  it('payout: a token calling back to pay out again is refused', async () => {
    await escrowCall(alice, 'deposit', [50_000n, nextPre()]);
    await escrowCall(acceptor, 'acceptDeposits', [[(await count()) - 1n], []]);
    const merchant = await newAccount(chain);
    const deadline = (await now(chain)) + 3_600n;
    await arm('payout', [withdrawal(), merchant.address, 7_000n, deadline]);
    expect(
      await revertOf(
        escrowCall(payer, 'payout', [withdrawal(), merchant.address, 5_000n, deadline]),
      ),
    ).toEqual(guard);
    expect(await balance(merchant.address)).toBe(0n);
    await unrelatedTransfer();
    expect(await balance(merchant.address)).toBe(7_000n);
  });
});

describe('a token that delivers less than asked', () => {
  it('is caught on both deposit paths (a token that delivers in full passes)', async () => {
    await tokenCall(alice, 'setSkim', [1n]);
    const before = await balance(escrow);
    const pre = nextPre();
    expect(await revertOf(escrowCall(alice, 'deposit', [1_000n, pre]))).toEqual({
      name: 'UnexpectedBalanceChange',
      args: [1_000n, before, before + 999n],
    });
    const relayer = await newAccount(chain);
    const t = await now(chain);
    const gasless = [alice.address, 1_000n, nextPre(), 1_010n, t - 60n, t + 3_600n, '0x'];
    expect(await revertOf(escrowCall(relayer, 'depositWithAuthorization', gasless))).toEqual({
      name: 'UnexpectedBalanceChange',
      args: [1_010n, before, before + 1_009n],
    });
    await tokenCall(alice, 'setSkim', [0n]);
    await escrowCall(alice, 'deposit', [1_000n, pre]);
    await escrowCall(relayer, 'depositWithAuthorization', gasless);
    expect(await balance(escrow)).toBe(before + 2_000n);
  });
});
