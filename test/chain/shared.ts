// The chain suites' fixture: the shared node (test/chain/shared-node.ts), a token and an escrow
// deployed for the suite alone, their roles given to accounts of its own, and real deposit
// tickets from the wallet's code. Suites sharing the node never share an account or a contract.

import { type Address, type Hex, parseEventLogs, type TransactionReceipt } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { inject } from 'vitest';

import { privStarkEscrowAbi, testUsdcAbi } from '../../src/chain/contract-artifacts.js';
import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import {
  type Chain,
  connect,
  deployEscrow,
  deployTestUsdc,
  depositNonce,
  type EscrowParameters,
  newAccount,
  now,
  send,
  signAuthorization,
  TEST_ESCROW_PARAMETERS,
  vrs,
} from '../../testkit/chain.js';

/** The shared node's clients. */
export function sharedChain(): Chain {
  return connect(inject('chainRpcUrl'));
}

/** A token, an escrow over it and the accounts that hold its roles. */
export interface EscrowFixture {
  readonly chain: Chain;
  readonly token: Address;
  readonly escrow: Address;
  readonly admin: PrivateKeyAccount;
  readonly acceptor: PrivateKeyAccount;
  readonly payer: PrivateKeyAccount;
  readonly pauser: PrivateKeyAccount;
}

/** Deploys the test token and an escrow over it on `chain`, and gives each hot role its own key. */
export async function escrowFixture(
  chain: Chain,
  parameters: EscrowParameters = TEST_ESCROW_PARAMETERS,
): Promise<EscrowFixture> {
  const admin = await newAccount(chain);
  const acceptor = await newAccount(chain);
  const payer = await newAccount(chain);
  const pauser = await newAccount(chain);
  const token = await deployTestUsdc(chain, admin);
  const escrow = await deployEscrow(chain, admin, token, parameters);
  for (const [role, holder] of [
    ['ACCEPTOR_ROLE', acceptor],
    ['PAYOUT_ROLE', payer],
    ['PAUSER_ROLE', pauser],
  ] as const) {
    const id = await chain.public.readContract({
      address: escrow,
      abi: privStarkEscrowAbi,
      functionName: role,
    });
    await send(chain, admin, {
      address: escrow,
      abi: privStarkEscrowAbi,
      functionName: 'grantRole',
      args: [id, holder.address],
    });
  }
  return {
    chain,
    token,
    escrow,
    admin: admin,
    acceptor: acceptor,
    payer: payer,
    pauser: pauser,
  };
}

/** A funded depositor holding `usdc` atomic units of the fixture's token. */
export async function depositor(f: EscrowFixture, usdc: bigint): Promise<PrivateKeyAccount> {
  const account = await newAccount(f.chain);
  await send(f.chain, f.admin, {
    address: f.token,
    abi: testUsdcAbi,
    functionName: 'mint',
    args: [account.address, usdc],
  });
  return account;
}

let core: Promise<PrivStarkCore> | undefined;

/**
 * Real deposit tickets: wallets (fresh keys, no pool node contacted) hand out a ticket per
 * amount, as `wallet deposit` does; their `(amount, pre)` are what the escrow takes. A wallet
 * has at most 8 tickets open, so every 8 tickets come from another wallet.
 */
export async function tickets(amounts: readonly bigint[]): Promise<{ amount: bigint; pre: Hex }[]> {
  core ??= loadCore();
  const out: { amount: bigint; pre: Hex }[] = [];
  let wallet: Wallet | undefined;
  for (const [i, amount] of amounts.entries()) {
    if (i % 8 === 0) wallet = await Wallet.create({ core: await core, pool: 'http://127.0.0.1:9' });
    const ticket = await wallet!.depositTicket(amount.toString());
    out.push({ amount: BigInt(ticket.amount), pre: ticket.pre });
  }
  return out;
}

/** The escrow's token balance. */
export function balanceOf(f: EscrowFixture, address: Address): Promise<bigint> {
  return f.chain.public.readContract({
    address: f.token,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  });
}

/** Sends an escrow call as `account`. */
export function escrowCall(
  f: EscrowFixture,
  account: PrivateKeyAccount,
  functionName: string,
  args: readonly unknown[] = [],
) {
  return send(f.chain, account, { address: f.escrow, abi: privStarkEscrowAbi, functionName, args });
}

/** Reads the escrow. */
export function escrowRead<T>(
  f: EscrowFixture,
  functionName: string,
  args: readonly unknown[] = [],
): Promise<T> {
  return f.chain.public.readContract({
    address: f.escrow,
    abi: privStarkEscrowAbi,
    functionName,
    args,
  } as never) as Promise<T>;
}

/** Sends a token call as `account`. */
export function tokenCall(
  f: EscrowFixture,
  account: PrivateKeyAccount,
  functionName: string,
  args: readonly unknown[] = [],
) {
  return send(f.chain, account, { address: f.token, abi: testUsdcAbi, functionName, args });
}

/** A deposit as the escrow keeps it. */
export interface DepositRecord {
  readonly depositor: Address;
  readonly state: number;
  readonly depositedAt: number;
  readonly reclaimableAt: number;
  readonly amount: bigint;
  readonly pre: Hex;
}

/** The deposit states' numbers (the contract's enum). */
export const STATE = { Pending: 0, Accepted: 1, Declined: 2, Reclaimed: 3 } as const;

/** The deposit at `index`. */
export function readDeposit(f: EscrowFixture, index: bigint): Promise<DepositRecord> {
  return escrowRead<DepositRecord>(f, 'getDeposit', [index]);
}

/** The index of the deposit a receipt recorded. */
export function depositIndexOf(receipt: TransactionReceipt): bigint {
  const [event] = parseEventLogs({
    abi: privStarkEscrowAbi,
    logs: receipt.logs,
    eventName: 'Deposited',
  });
  if (!event) throw new Error('no Deposited event in the receipt');
  return event.args.index;
}

/** Approves and deposits `amount` to `pre` as `account`; returns the deposit's index. */
export async function depositDirect(
  f: EscrowFixture,
  account: PrivateKeyAccount,
  amount: bigint,
  pre: Hex,
): Promise<bigint> {
  await tokenCall(f, account, 'approve', [f.escrow, amount]);
  return depositIndexOf(await escrowCall(f, account, 'deposit', [amount, pre]));
}

/**
 * The arguments of `depositWithAuthorization` for `from`'s gasless deposit of `amount` to `pre`,
 * paying `value` (so `value − amount` to the relayer), signed now, valid for an hour; in the
 * `bytes` form or the `(v, r, s)` form.
 */
export async function gaslessArgs(
  f: EscrowFixture,
  from: PrivateKeyAccount,
  deposit: { amount: bigint; pre: Hex; value?: bigint },
  form: 'bytes' | 'vrs' = 'bytes',
): Promise<unknown[]> {
  const t = await now(f.chain);
  const value = deposit.value ?? deposit.amount;
  const authorization = {
    token: f.token,
    from: from.address,
    to: f.escrow,
    value,
    validAfter: t - 60n,
    validBefore: t + 3600n,
    nonce: depositNonce(deposit.amount, deposit.pre),
  };
  const signature = await signAuthorization(f.chain, from, authorization);
  const head = [
    from.address,
    deposit.amount,
    deposit.pre,
    value,
    authorization.validAfter,
    authorization.validBefore,
  ];
  if (form === 'bytes') return [...head, signature];
  const { v, r, s } = vrs(signature);
  return [...head, v, r, s];
}
