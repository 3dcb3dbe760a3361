/**
 * @module A depositor takes a deposit back from the escrow (docs/chain.md, "Reclaim"): a deposit the
 * pool declined, at once, or one still Pending once its reclaim delay has passed. Directly — the
 * account's own `reclaim` transaction, when it holds ETH for the gas — or by its EIP-712 signature
 * of `Reclaim(index, deadline)`, sent by the pool's relayer (an agent that deposited gaslessly
 * holds no ETH); the funds go to the depositor either way. What the escrow would refuse is refused
 * here first, nothing signed. Part of `priv-stark/client/chain`.
 */

import { type Account, createWalletClient, custom, defineChain, type Hex } from 'viem';

import { DEPOSIT_STATES, ESCROW_ABI, ESCROW_DOMAIN } from './chain-abi.js';
import {
  type ChainAccess,
  type CheckedChain,
  type ChainWallet,
  checkedChain,
} from './chain-view.js';
import { ChainWalletError } from './chain-wallet-error.js';

/** What a reclaim is asked. */
export interface ReclaimOptions extends ChainAccess {
  /** The depositor's account. */
  readonly account: Account;
  /** The escrow's index of the deposit. */
  readonly index: number;
  /** `direct`, `relayed`, or `auto` (default): direct when the account holds ETH for the gas. */
  readonly via?: 'auto' | 'direct' | 'relayed' | undefined;
  /** Seconds a relayed reclaim's signature stays valid (default 600). */
  readonly validForSeconds?: number | undefined;
}

/** A reclaim sent. */
export interface ReclaimReceipt {
  readonly index: number;
  /** Atomic units returned to the depositor. */
  readonly amount: bigint;
  readonly transaction: Hex;
  readonly via: 'direct' | 'relayed';
  readonly mined: boolean;
}

/**
 * Returns the deposit at `index` to its depositor.
 * @throws ChainWalletError `unknown_deposit`, `not_depositor`, `not_reclaimable`,
 *   `reclaim_too_early`, `no_relayer` (relayed without one), `no_gas` (direct without ETH), or
 *   those of `checkedChain`; PoolNodeError for the relayer's refusal
 */
export async function reclaimDeposit(
  wallet: ChainWallet,
  options: ReclaimOptions,
): Promise<ReclaimReceipt> {
  const chain = await checkedChain(wallet, options, 'reclaim');
  const { account, index } = options;
  const amount = await checkReclaimable(chain, account.address, index);
  const via = await pathOf(chain, options);
  if (via === 'direct') {
    if (account.type !== 'local')
      throw new ChainWalletError('account_cannot_sign', 'a direct reclaim needs a LocalAccount');
    const sender = createWalletClient({
      account,
      chain: defineChain({
        id: chain.chainId,
        name: `eip155:${chain.chainId}`,
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [] } },
      }),
      transport: custom({ request: chain.client.request } as never),
    });
    const { request } = await chain.client.simulateContract({
      address: chain.escrow,
      abi: ESCROW_ABI,
      functionName: 'reclaim',
      args: [BigInt(index)],
      account,
    });
    const hash = await sender.writeContract(request as never);
    const mined = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 250 });
    if (mined.status !== 'success') throw new Error(`reclaim ${hash} reverted`);
    return { index, amount, transaction: hash, via, mined: true };
  }
  if (typeof account.signTypedData !== 'function')
    throw new ChainWalletError('account_cannot_sign', 'the account signs no typed data here');
  const now = (await chain.client.getBlock()).timestamp;
  const deadline = now + BigInt(options.validForSeconds ?? 600);
  const signature = await account.signTypedData({
    domain: { ...ESCROW_DOMAIN, chainId: chain.chainId, verifyingContract: chain.escrow },
    types: {
      Reclaim: [
        { name: 'index', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Reclaim',
    message: { index: BigInt(index), deadline },
  });
  const receipt = await chain.pool.relayReclaim({
    index: String(index),
    deadline: deadline.toString(),
    signature,
  });
  return {
    index,
    amount,
    transaction: receipt.transaction as Hex,
    via,
    mined: receipt.mined,
  };
}

/**
 * What the escrow would refuse, refused here: returns the deposit's amount.
 * @throws ChainWalletError `unknown_deposit`, `not_depositor`, `not_reclaimable`, `reclaim_too_early`
 */
async function checkReclaimable(chain: CheckedChain, depositor: Hex, index: number) {
  const count = await chain.client.readContract({
    address: chain.escrow,
    abi: ESCROW_ABI,
    functionName: 'depositCount',
  });
  if (BigInt(index) >= count)
    throw new ChainWalletError('unknown_deposit', `the escrow holds no deposit #${index}`);
  const deposit = await chain.client.readContract({
    address: chain.escrow,
    abi: ESCROW_ABI,
    functionName: 'getDeposit',
    args: [BigInt(index)],
  });
  if (deposit.depositor.toLowerCase() !== depositor.toLowerCase())
    throw new ChainWalletError(
      'not_depositor',
      `deposit #${index} was paid by ${deposit.depositor}, not ${depositor}`,
    );
  const state = DEPOSIT_STATES[deposit.state] ?? 'unknown';
  if (state === 'accepted' || state === 'reclaimed')
    throw new ChainWalletError(
      'not_reclaimable',
      `deposit #${index} is ${state}: ${state === 'accepted' ? 'the pool shields it (spend or exit it from the wallet)' : 'it went back already'}`,
    );
  if (state === 'pending') {
    const now = (await chain.client.getBlock()).timestamp;
    if (now < BigInt(deposit.reclaimableAt))
      throw new ChainWalletError(
        'reclaim_too_early',
        `deposit #${index} is pending: it may be reclaimed from ${new Date(deposit.reclaimableAt * 1000).toISOString()} unless the pool accepts it first`,
      );
  }
  return deposit.amount;
}

/** The path asked, or — `auto` — direct when the account holds ETH for the gas, else relayed. */
async function pathOf(chain: CheckedChain, options: ReclaimOptions): Promise<'direct' | 'relayed'> {
  const via = options.via ?? 'auto';
  if (via === 'relayed' || (via === 'auto' && options.account.type !== 'local')) {
    if (chain.facts.relayer === null)
      throw new ChainWalletError('no_relayer', 'the pool runs no relayer: reclaim directly (gas)');
    return 'relayed';
  }
  const [balance, gas, price] = await Promise.all([
    chain.client.getBalance({ address: options.account.address }),
    chain.client.estimateContractGas({
      address: chain.escrow,
      abi: ESCROW_ABI,
      functionName: 'reclaim',
      args: [BigInt(options.index)],
      account: options.account,
    }),
    chain.client.getGasPrice(),
  ]);
  if (balance >= gas * price * 2n) return 'direct';
  if (via === 'direct')
    throw new ChainWalletError(
      'no_gas',
      `${options.account.address} holds too little ETH for the gas`,
    );
  if (chain.facts.relayer === null)
    throw new ChainWalletError(
      'no_gas',
      'the account holds no ETH for the gas and the pool runs no relayer',
    );
  return 'relayed';
}
