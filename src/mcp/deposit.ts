/**
 * @module `deposit`: the agent funds its wallet from the EVM account the operator configured for
 * the server (`priv-stark mcp --evm-key-file`; never a key from the tool's input), in a pool backed
 * by an escrow on a chain: a deposit by signature through the pool's relayer
 * (`priv-stark/client/chain`, loaded only when the tool runs). Within the policy's caps: the
 * wallet's network and asset allowed, the amount plus the most the relayer may take within
 * `maxPerPayment`, and the deposits of the last 24 hours (the wallet's records) within `maxPer24h`
 * — counted apart from spending, which they fund. One deposit at a time per agent.
 */

import type { Account, PublicClient } from 'viem';

import { parseAmount } from '../scheme/index.js';
import type { AgentContext } from './agent-context.js';
import { PolicyRefusal, ToolError } from './errors.js';
import { checkDeposit } from './policy.js';
import { WINDOW_MS } from './spend-ledger.js';
import type { DepositView } from './views.js';

/** What the operator configured the server with for deposits. */
export interface DepositConfig {
  /** The EVM account that pays (the operator's key file's). */
  readonly account: Account;
  /** The server's own RPC of the pool's chain. */
  readonly rpc: string | PublicClient;
}

/** What `deposit` is asked: atomic units, and the most the relayer may take (default 0). */
export interface DepositInput {
  readonly amount: string;
  readonly max_fee?: string | undefined;
}

/** One deposit at a time per agent: the 24-hour check and the deposit are one step. */
const queues = new WeakMap<AgentContext, Promise<unknown>>();

/**
 * `deposit`: pays `amount` into the pool's escrow from the configured account, by signature.
 * @throws ToolError `deposit_not_configured`, `invalid_amount`, `not_chain_pool`; PolicyRefusal;
 *   the wallet's chain refusals (`fee_above_max`, `token_domain_mismatch`, …) and the relayer's
 */
export function deposit(
  ctx: AgentContext,
  config: DepositConfig | undefined,
  input: DepositInput,
): Promise<DepositView> {
  const run = () => depositNow(ctx, config, input);
  const result = (queues.get(ctx) ?? Promise.resolve()).then(run, run);
  queues.set(
    ctx,
    result.catch(() => undefined),
  );
  return result;
}

async function depositNow(
  ctx: AgentContext,
  config: DepositConfig | undefined,
  input: DepositInput,
): Promise<DepositView> {
  if (!config)
    throw new ToolError(
      'deposit_not_configured',
      "the server holds no EVM account: its operator starts it with --evm-key-file and --chain-rpc (a key is never taken from a tool's input)",
    );
  const amount = parseAmount(input.amount);
  const maxFee = input.max_fee === undefined ? 0n : parseAmount(input.max_fee);
  if (amount === null || amount === 0n || maxFee === null)
    throw new ToolError(
      'invalid_amount',
      'amount and max_fee must be atomic units: decimal integer strings below 2^62, amount positive',
    );
  const { wallet } = ctx;
  const { network, asset } = wallet.network;
  if (!wallet.network.chain)
    throw new ToolError(
      'not_chain_pool',
      "the wallet's pool names no escrow: deposits there are the operator's",
    );
  const policy = await ctx.policy.current();
  const most = amount + maxFee;
  const refusal = checkDeposit(policy, { network, asset, amount: most });
  if (refusal) throw refusal;
  const since = ctx.clock() - WINDOW_MS;
  const counted = wallet
    .chainDeposits()
    .filter((d) => (d.depositedAt ?? 0) > since)
    .reduce((sum, d) => sum + BigInt(d.amount) + BigInt(d.fee), 0n);
  if (counted + most > policy.maxPer24h)
    throw new PolicyRefusal(
      'rolling_24h_limit',
      'maxPer24h',
      `the deposit of ${most} atomic units (with the most the relayer may take) would take the last 24 hours' deposits to ${counted + most}, above the policy's maxPer24h of ${policy.maxPer24h}`,
    );
  const { depositBySignature } = await import('../client/chain.js');
  const receipt = await depositBySignature(wallet, {
    account: config.account,
    rpc: config.rpc,
    amount,
    maxFee,
  });
  return {
    deposit: receipt.depositIndex,
    amount: receipt.ticket.amount,
    fee: receipt.fee.toString(),
    depositor: receipt.depositor,
    transaction: receipt.transaction,
    mined: receipt.mined,
    network,
    asset,
  };
}
