/**
 * @module A wallet funds itself from an EVM account (docs/chain.md, "Using it"), by either path
 * the escrow takes:
 *
 * - **by signature** ({@link depositBySignature}): the account signs an EIP-3009
 *   `ReceiveWithAuthorization` for the escrow — value `amount + the relayer's fee`, nonce
 *   `keccak256(abi.encode("priv-stark/deposit", amount, pre))` as the escrow computes it, a short
 *   validity window — and the pool's relayer sends it; the account needs no ETH;
 * - **directly** ({@link depositDirect}): the account's own `approve` and `deposit`, paying gas.
 *
 * Everything is checked before anything is signed (`chain-view.ts`: the chain, escrow, token,
 * network and the token's EIP-712 domain; then the fee against the caller's maximum, the minimum
 * deposit, the account's balance). One ticket moves funds once, whatever the path and the retries:
 * the escrow refuses an `(amount, pre)` it holds, and a retried ticket already deposited is answered
 * with its deposit, nothing signed. The account is any viem `Account` that signs locally (a
 * `LocalAccount`, or a custom signer made with `toAccount`). Part of `priv-stark/client/chain`.
 */

import {
  type Account,
  type Address,
  createWalletClient,
  custom,
  defineChain,
  encodeAbiParameters,
  type Hex,
  keccak256,
  parseEventLogs,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';

import { PoolNodeError, type RelayDepositRequest } from '../pool-node/client.js';
import { DEPOSIT_NONCE_DOMAIN, ESCROW_ABI, TOKEN_ABI } from './chain-abi.js';
import {
  type ChainAccess,
  type CheckedChain,
  type ChainWallet,
  checkedChain,
} from './chain-view.js';
import { ChainWalletError } from './chain-wallet-error.js';
import type { DepositTicket } from './deposit-tickets.js';
import type { ChainDepositRecord } from './store.js';

/** The wallet a deposit funds: its chain side, its tickets and its record of deposits. */
export interface DepositingWallet extends ChainWallet {
  depositTicket(amount: string): Promise<DepositTicket>;
  recordChainDeposit(record: ChainDepositRecord): Promise<void>;
}

/** What a deposit is asked. */
export interface ChainDepositOptions extends ChainAccess {
  /** The EVM account that pays (any viem `Account` that signs locally). */
  readonly account: Account;
  /** Atomic units to deposit. */
  readonly amount: bigint;
  /** A ticket of this wallet to deposit again (a retry), instead of a new one for `amount`. */
  readonly ticket?: DepositTicket | undefined;
}

/** A gasless deposit's options. */
export interface SignedDepositOptions extends ChainDepositOptions {
  /** The most the relayer may take, atomic units (default 0: a relayer with a fee is refused). */
  readonly maxFee?: bigint | undefined;
  /** Seconds the authorization stays valid (default 600). */
  readonly validForSeconds?: number | undefined;
}

/** A deposit paid into the escrow. */
export interface ChainDepositReceipt {
  readonly ticket: DepositTicket;
  /** The escrow's index (`null` while the transaction is not mined, or not found for a retry). */
  readonly depositIndex: number | null;
  /** The deposit's transaction (`null` for a retry whose deposit was not found in the logs). */
  readonly transaction: Hex | null;
  /** Atomic units the relayer took (0 on the direct path). */
  readonly fee: bigint;
  readonly depositor: Address;
  readonly path: 'relayed' | 'direct';
  /** Whether the transaction was mined before the answer. */
  readonly mined: boolean;
  /** True when the ticket was deposited before (nothing was signed or sent now). */
  readonly already: boolean;
}

/** The EIP-3009 nonce the escrow computes for the deposit of `amount` to `pre`. */
export function depositNonce(amount: bigint, pre: Hex): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'string' }, { type: 'uint256' }, { type: 'bytes32' }],
      [DEPOSIT_NONCE_DOMAIN, amount, pre],
    ),
  );
}

const RECEIVE_WITH_AUTHORIZATION = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const;

/**
 * Deposits `amount` (or `ticket`) by signature through the pool's relayer.
 * @throws ChainWalletError (before anything is signed): `not_chain_pool`, `chain_mismatch`,
 *   `token_domain_mismatch`, `no_relayer`, `fee_above_max`, `below_minimum`,
 *   `insufficient_token_balance`, `account_cannot_sign`; PoolNodeError for the relayer's refusal
 */
export async function depositBySignature(
  wallet: DepositingWallet,
  options: SignedDepositOptions,
): Promise<ChainDepositReceipt> {
  const { account } = options;
  if (typeof account.signTypedData !== 'function')
    throw new ChainWalletError(
      'account_cannot_sign',
      'the account signs no typed data here: a JSON-RPC account signs through its wallet (use a LocalAccount, or toAccount)',
    );
  const chain = await checkedChain(wallet, options, 'deposit');
  const fee = relayerFee(chain, options.maxFee ?? 0n);
  const amount = options.ticket ? BigInt(options.ticket.amount) : options.amount;
  await checkAmount(chain, account.address, amount, amount + fee);
  const ticket = options.ticket ?? (await wallet.depositTicket(amount.toString()));
  const earlier = await earlierDeposit(chain, ticket, account.address, 'relayed');
  if (earlier) return earlier;
  const body = await signDeposit(chain, account, ticket, fee, options.validForSeconds ?? 600);
  await wallet.recordChainDeposit(record(ticket, account.address, null, '', 'relayed', fee));
  try {
    const receipt = await chain.pool.relayDeposit(body);
    const index = receipt.depositIndex ?? null;
    await wallet.recordChainDeposit(
      record(ticket, account.address, index, receipt.transaction, 'relayed', fee),
    );
    return {
      ticket,
      depositIndex: index,
      transaction: receipt.transaction as Hex,
      fee,
      depositor: account.address,
      path: 'relayed',
      mined: receipt.mined,
      already: false,
    };
  } catch (error) {
    if (error instanceof PoolNodeError && error.code === 'deposit_exists') {
      const found = await earlierDeposit(chain, ticket, account.address, 'relayed');
      if (found) return found;
    }
    throw error;
  }
}

/**
 * The relayer's fee, within what the caller accepts.
 * @throws ChainWalletError `no_relayer`, `fee_above_max`
 */
function relayerFee(chain: CheckedChain, maxFee: bigint): bigint {
  const relayer = chain.facts.relayer;
  if (relayer === null)
    throw new ChainWalletError('no_relayer', 'the pool runs no relayer: deposit directly (gas)');
  const fee = BigInt(relayer.fee);
  if (fee > maxFee)
    throw new ChainWalletError(
      'fee_above_max',
      `the relayer's fee is ${fee} atomic units, above the ${maxFee} accepted: nothing was signed`,
    );
  return fee;
}

/**
 * The account's `ReceiveWithAuthorization` of the ticket's amount plus `fee` to the escrow, with
 * the nonce the escrow computes (checked against the escrow's own), valid from a minute before the
 * chain's latest block to `validFor` seconds after it — the relay route's body.
 * @throws ChainWalletError `chain_mismatch` when the escrow computes another nonce
 */
async function signDeposit(
  chain: CheckedChain,
  account: Account,
  ticket: DepositTicket,
  fee: bigint,
  validFor: number,
): Promise<RelayDepositRequest> {
  const amount = BigInt(ticket.amount);
  const pre = ticket.pre as Hex;
  const nonce = depositNonce(amount, pre);
  const [escrowNonce, block] = await Promise.all([
    chain.client.readContract({
      address: chain.escrow,
      abi: ESCROW_ABI,
      functionName: 'depositNonce',
      args: [amount, pre],
    }),
    chain.client.getBlock(),
  ]);
  if (escrowNonce !== nonce)
    throw new ChainWalletError('chain_mismatch', 'the escrow computes another deposit nonce');
  // The chain's clock, not the wallet's: the token checks the window against block time.
  const now = block.timestamp;
  const validAfter = now > 60n ? now - 60n : 0n;
  const validBefore = now + BigInt(validFor);
  const value = amount + fee;
  const signature = await account.signTypedData!({
    domain: chain.domain,
    types: { ReceiveWithAuthorization: RECEIVE_WITH_AUTHORIZATION },
    primaryType: 'ReceiveWithAuthorization',
    message: { from: account.address, to: chain.escrow, value, validAfter, validBefore, nonce },
  });
  return {
    from: account.address,
    amount: amount.toString(),
    pre,
    value: value.toString(),
    validAfter: validAfter.toString(),
    validBefore: validBefore.toString(),
    signature,
  };
}

/**
 * Deposits `amount` (or `ticket`) with the account's own transactions: `approve` when the allowance
 * is short, then `deposit`. The account pays the gas.
 * @throws ChainWalletError as {@link depositBySignature} (but `no_relayer`, `fee_above_max`), and
 *   `no_gas` when the account holds no ETH
 */
export async function depositDirect(
  wallet: DepositingWallet,
  options: ChainDepositOptions,
): Promise<ChainDepositReceipt> {
  const { account } = options;
  if (account.type !== 'local')
    throw new ChainWalletError(
      'account_cannot_sign',
      'a direct deposit signs transactions: use a LocalAccount (or toAccount)',
    );
  const chain = await checkedChain(wallet, options, 'deposit');
  const amount = options.ticket ? BigInt(options.ticket.amount) : options.amount;
  await checkAmount(chain, account.address, amount, amount);
  if ((await chain.client.getBalance({ address: account.address })) === 0n)
    throw new ChainWalletError(
      'no_gas',
      `${account.address} holds no ETH to pay for the deposit's gas`,
    );
  const ticket = options.ticket ?? (await wallet.depositTicket(amount.toString()));
  const earlier = await earlierDeposit(chain, ticket, account.address, 'direct');
  if (earlier) return earlier;
  const sender = createWalletClient({
    account,
    chain: defineChain({
      id: chain.chainId,
      name: `eip155:${chain.chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [] } },
    }),
    // Through the wallet's own RPC: the account signs here, the node only relays the bytes.
    transport: custom({ request: chain.client.request } as never),
  });
  const send = async (call: Parameters<PublicClient['simulateContract']>[0]) => {
    const { request } = await chain.client.simulateContract({ ...call, account } as never);
    const hash = await sender.writeContract(request as never);
    const mined = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 250 });
    if (mined.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return mined;
  };
  const allowance = await chain.client.readContract({
    address: chain.token,
    abi: TOKEN_ABI,
    functionName: 'allowance',
    args: [account.address, chain.escrow],
  });
  if (allowance < amount)
    await send({
      address: chain.token,
      abi: TOKEN_ABI,
      functionName: 'approve',
      args: [chain.escrow, amount],
    } as never);
  const pre = ticket.pre as Hex;
  await wallet.recordChainDeposit(record(ticket, account.address, null, '', 'direct', 0n));
  const mined = await send({
    address: chain.escrow,
    abi: ESCROW_ABI,
    functionName: 'deposit',
    args: [amount, pre],
  } as never);
  const index = indexIn(mined);
  await wallet.recordChainDeposit(
    record(ticket, account.address, index, mined.transactionHash, 'direct', 0n),
  );
  return {
    ticket,
    depositIndex: index,
    transaction: mined.transactionHash,
    fee: 0n,
    depositor: account.address,
    path: 'direct',
    mined: true,
    already: false,
  };
}

/**
 * The amount against the escrow's minimum, and the account's balance against what leaves it.
 * @throws ChainWalletError `below_minimum`, `insufficient_token_balance`
 */
async function checkAmount(chain: CheckedChain, from: Address, amount: bigint, value: bigint) {
  const minimum = BigInt(chain.facts.minDeposit);
  if (amount < minimum)
    throw new ChainWalletError(
      'below_minimum',
      `the escrow's smallest deposit is ${minimum} atomic units; ${amount} was asked`,
    );
  const balance = await chain.client.readContract({
    address: chain.token,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [from],
  });
  if (balance < value)
    throw new ChainWalletError(
      'insufficient_token_balance',
      `${from} holds ${balance} atomic units of the token; the deposit needs ${value}`,
    );
}

/** The ticket's deposit when the escrow holds it already (a retry): found in the escrow's logs. */
async function earlierDeposit(
  chain: CheckedChain,
  ticket: DepositTicket,
  depositor: Address,
  path: 'relayed' | 'direct',
): Promise<ChainDepositReceipt | null> {
  const amount = BigInt(ticket.amount);
  const pre = ticket.pre as Hex;
  const held = await chain.client.readContract({
    address: chain.escrow,
    abi: ESCROW_ABI,
    functionName: 'isDeposited',
    args: [amount, pre],
  });
  if (!held) return null;
  const logs = await chain.client
    .getContractEvents({
      address: chain.escrow,
      abi: ESCROW_ABI,
      eventName: 'Deposited',
      fromBlock: 'earliest',
    })
    .catch(() => []);
  const log = logs.find((l) => l.args.pre === pre && l.args.amount === amount);
  const fee = log?.args.fee ?? 0n;
  return {
    ticket,
    depositIndex: log ? Number(log.args.index) : null,
    transaction: log?.transactionHash ?? null,
    fee,
    depositor: log?.args.depositor ?? depositor,
    path,
    mined: true,
    already: true,
  };
}

/** The deposit's index from its receipt's `Deposited` event. */
function indexIn(receipt: TransactionReceipt): number | null {
  const [event] = parseEventLogs({ abi: ESCROW_ABI, logs: receipt.logs, eventName: 'Deposited' });
  return event ? Number(event.args.index) : null;
}

function record(
  ticket: DepositTicket,
  depositor: Address,
  index: number | null,
  transaction: string,
  path: 'relayed' | 'direct',
  fee: bigint,
): ChainDepositRecord {
  return {
    counter: ticket.counter,
    amount: ticket.amount,
    pre: ticket.pre,
    index,
    depositor,
    transaction,
    path,
    fee: fee.toString(),
    depositedAt: Date.now(),
  };
}
