/**
 * @module What the payout suites and their child processes share: exits written straight to a
 * store (the exit's proof is the ledger's concern, tested in test/pool-node/; here what is under
 * test is the payout of a recorded withdrawal), the escrow's custody funded by a real deposit the
 * acceptor accepts, and the chain's record of a withdrawal's payouts (its `Paid` events).
 */

import { type Address, type Hex, parseEventLogs } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

import { privStarkEscrowAbi, testUsdcAbi } from '../src/chain/contract-artifacts.js';
import { randomDigest } from '../src/core/index.js';
import type { PoolStore } from '../src/ledger/index.js';
import { transitionId } from '../src/ledger/notes.js';
import { type Chain, newAccount, send } from './chain.js';
import { STAND_IN_PROOF } from './stand-in-proof.js';

/** Records an exit of `amount` to `destination` in `store`; returns its withdrawal id. */
export async function seedWithdrawal(
  store: PoolStore,
  destination: string,
  amount: bigint,
): Promise<Hex> {
  const nullifiers = [randomDigest(), randomDigest()] as const;
  const id = transitionId(nullifiers[0]);
  const [result] = await store.apply(
    [
      {
        kind: 'transition',
        transitionId: id,
        nullifiers,
        outputs: [randomDigest(), randomDigest()],
        memo: ['1', '2'],
        exit: amount.toString(),
        destination,
        refund: randomDigest(),
        proof: STAND_IN_PROOF,
      },
    ],
    Date.now(),
  );
  if (!result?.ok) throw new Error(`the exit was not recorded: ${JSON.stringify(result)}`);
  return id as Hex;
}

/** The contracts a payout pays through, and who holds what. */
export interface PayoutContracts {
  readonly token: Address;
  readonly escrow: Address;
  readonly admin: PrivateKeyAccount;
  /** Holds PAYOUT_ROLE. */
  readonly payer: PrivateKeyAccount;
  readonly pauser: PrivateKeyAccount;
}

/**
 * Puts `amount` in the escrow's custody: a depositor mints and deposits it (direct path), and the
 * acceptor accepts the deposit.
 */
export async function fundCustody(
  chain: Chain,
  contracts: PayoutContracts & { readonly acceptor: PrivateKeyAccount },
  amount: bigint,
): Promise<void> {
  const depositor = await newAccount(chain);
  const token = { address: contracts.token, abi: testUsdcAbi };
  const escrow = { address: contracts.escrow, abi: privStarkEscrowAbi };
  await send(chain, contracts.admin, {
    ...token,
    functionName: 'mint',
    args: [depositor.address, amount],
  });
  await send(chain, depositor, {
    ...token,
    functionName: 'approve',
    args: [contracts.escrow, amount],
  });
  const receipt = await send(chain, depositor, {
    ...escrow,
    functionName: 'deposit',
    args: [amount, randomDigest()],
  });
  const [deposited] = parseEventLogs({
    abi: privStarkEscrowAbi,
    logs: receipt.logs,
    eventName: 'Deposited',
  });
  if (!deposited) throw new Error('no Deposited event');
  await send(chain, contracts.acceptor, {
    ...escrow,
    functionName: 'acceptDeposits',
    args: [[deposited.args.index], []],
  });
}

/** The escrow's `Paid` events for `withdrawalId`: one per payment made (never more than one). */
export async function paidEvents(
  chain: Chain,
  escrow: Address,
  withdrawalId: Hex,
): Promise<{ to: Address; amount: bigint; transactionHash: Hex }[]> {
  const logs = await chain.public.getContractEvents({
    address: escrow,
    abi: privStarkEscrowAbi,
    eventName: 'Paid',
    args: { withdrawalId },
    fromBlock: 0n,
  });
  return logs.map((log) => ({
    to: log.args.to as Address,
    amount: log.args.amount as bigint,
    transactionHash: log.transactionHash,
  }));
}

/** The token balance of `address`. */
export function tokenBalance(chain: Chain, token: Address, address: Address): Promise<bigint> {
  return chain.public.readContract({
    address: token,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  });
}

/** `eip155:<chain id>:<address>` for `address` on `chain`. */
export function caip10(chain: Chain, address: Address): string {
  return `eip155:${chain.chainId}:${address}`;
}
