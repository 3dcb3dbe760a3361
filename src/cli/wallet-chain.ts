/**
 * @module The wallet's commands in a pool backed by an escrow on a chain (docs/chain.md, "Using
 * it"): `wallet deposit` pays into the escrow from an EVM account — by signature through the
 * pool's relayer (its fee shown, refused above `--max-fee`), or `--direct` with the account's own
 * gas; `wallet reclaim` takes a declined or overdue deposit back; `wallet exit --wait` waits for the
 * payout on chain; and every exit is checked for what would link it to the wallet's deposits
 * (`--yes` to go on). viem loads only here, and only when one of these runs.
 */

import type { ChainDepositReceipt, RefundedWallet } from '../client/chain.js';
import type { StoredNote } from '../client/index.js';
import {
  exitWarnings,
  TooManyOpenTicketsError,
  type Wallet,
  WalletBehindError,
} from '../client/index.js';
import type { NetworkProfile } from '../scheme/index.js';
import { CliFailure, type CliIo } from './cli-io.js';
import { parseTokenAmount } from './token-amount.js';

export const WALLET_CHAIN_USAGE = `  wallet deposit --amount X --evm-key-file FILE [--chain-rpc URL] [--max-fee X] [--direct] [--json]
                    in a pool backed by an escrow: pays X (atomic units, or whole tokens: 10.00) into
                    the escrow from the EVM account of the key file (PRIV_STARK_EVM_KEY_FILE, mode
                    0600), by signature through the pool's relayer — its fee shown, refused above
                    --max-fee (default 0) — or --direct with the account's own gas; the pool's chain
                    facts are checked against your own RPC (--chain-rpc, CHAIN_RPC_URL) before
                    anything is signed; --reissue C pays open ticket #C (a ticket moves funds once)
  wallet reclaim --deposit INDEX --evm-key-file FILE [--chain-rpc URL] [--direct|--relayed] [--json]
                    takes a declined deposit, or one still pending after the reclaim delay, back to
                    the account that paid it: directly when the key has gas, else by signature
                    through the relayer
  wallet exit ... [--yes] [--wait [--timeout-ms T]] [--chain-rpc URL] [--json]
                    an exit of one of the wallet's deposit amounts, or to the account that funded it,
                    is refused unless --yes (both are public on chain and link the two); --wait: in a
                    chain pool, waits for the payout (T ms, 600000) and prints its transaction
  wallet verify-backing [--chain-rpc URL] [--json]
                    syncs, then checks the escrow's latest attestation (read from your own RPC, through
                    the wallet's proxy when it has one) against the wallet's own tree: the attested
                    root at the attested checkpoint, and which unspent notes it covers; exit 0 when the
                    root matches, 1 when it does not or nothing is attested yet; says what it cannot show`;

/** The flags these commands read. */
export interface ChainWalletFlags {
  readonly amount?: string | undefined;
  readonly reissue?: string | undefined;
  readonly 'evm-key-file'?: string | undefined;
  readonly 'chain-rpc'?: string | undefined;
  readonly 'max-fee'?: string | undefined;
  readonly direct?: boolean | undefined;
  readonly relayed?: boolean | undefined;
  readonly deposit?: string | undefined;
  readonly wait?: boolean | undefined;
  readonly yes?: boolean | undefined;
  readonly 'timeout-ms'?: string | undefined;
  readonly json?: boolean | undefined;
}

/** The EVM key file and the wallet's own RPC, from the flags or the environment. */
function chainAccess(values: ChainWalletFlags, env: NodeJS.ProcessEnv) {
  const keyFile = values['evm-key-file'] ?? env.PRIV_STARK_EVM_KEY_FILE;
  if (keyFile === undefined || keyFile === '')
    throw new CliFailure(
      2,
      '--evm-key-file is required in a chain pool (PRIV_STARK_EVM_KEY_FILE: the EVM account that pays)',
    );
  return { keyFile, rpc: rpcOf(values, env) };
}

/** `--chain-rpc`: the wallet's own RPC, an http(s) URL. */
function rpcOf(values: ChainWalletFlags, env: NodeJS.ProcessEnv): string {
  const rpc = values['chain-rpc'] ?? env.CHAIN_RPC_URL;
  if (rpc === undefined || rpc === '')
    throw new CliFailure(
      2,
      "--chain-rpc is required in a chain pool (CHAIN_RPC_URL): the wallet's own RPC, to check the pool's chain facts",
    );
  if (!/^https?:\/\/[^\s]+$/.test(rpc))
    throw new CliFailure(2, '--chain-rpc expects an http(s) URL');
  return rpc;
}

/** The key file's account (refused as keys.ts refuses: exposed, unreadable, malformed: exit 1). */
async function accountOf(keyFile: string) {
  const { KeyError, readKeyFile } = await import('../chain/keys.js');
  try {
    return readKeyFile(keyFile);
  } catch (error) {
    if (error instanceof KeyError) throw new CliFailure(1, `${error.code}: ${error.message}`);
    throw error;
  }
}

/**
 * Runs `work`, turning what the chain's RPC threw into one line: no answer exits 2
 * (`rpc_unreachable`), an answer it refused 1. The wallet's and the pool node's refusals pass.
 */
async function onChain<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const { BaseError } = await import('viem');
    if (!(error instanceof BaseError)) throw error;
    const { chainErrorOf } = await import('../chain/chain-errors.js');
    const failure = chainErrorOf(error, 'the chain');
    throw new CliFailure(
      failure.code === 'rpc_unreachable' ? 2 : 1,
      `${failure.code}: ${failure.message}`,
    );
  }
}

/**
 * `wallet deposit` in a chain pool: the amount parsed (the token's decimals) before anything is
 * read or signed, then a deposit by signature, or `--direct`.
 * @returns the exit code
 */
export async function chainDeposit(
  wallet: Wallet,
  values: ChainWalletFlags,
  io: CliIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { network } = wallet;
  const ticket =
    values.reissue === undefined
      ? undefined
      : await reissued(wallet, values.reissue, values.amount);
  if (ticket === undefined && values.amount === undefined)
    throw new CliFailure(
      2,
      'wallet deposit needs --amount X (atomic units, or whole tokens: 10.00)',
    );
  const amount =
    ticket === undefined
      ? parseTokenAmount('--amount', values.amount!, network.decimals)
      : BigInt(ticket.amount);
  const feeText = values['max-fee'];
  // Zero is a maximum too: no fee at all (the default).
  const maxFee =
    feeText === undefined || /^0+(\.0+)?$/.test(feeText)
      ? 0n
      : parseTokenAmount('--max-fee', feeText, network.decimals);
  const { keyFile, rpc } = chainAccess(values, env);
  const account = await accountOf(keyFile);
  const chain = await import('../client/chain.js');
  const deposit = () =>
    values.direct
      ? chain.depositDirect(wallet, { account, rpc, amount, ticket })
      : chain.depositBySignature(wallet, { account, rpc, amount, maxFee, ticket });
  const receipt = await onChain(() =>
    deposit().catch(async (error: unknown) => {
      // At the bound, or restored and never synced: what the pool shielded since may free a slot.
      if (!(error instanceof TooManyOpenTicketsError || error instanceof WalletBehindError))
        throw error;
      await wallet.sync();
      return deposit();
    }),
  );
  printDeposit(receipt, network, io, values.json === true);
  return 0;
}

/** An open ticket again (`--reissue C`), for a retry. */
async function reissued(wallet: Wallet, counter: string, amount: string | undefined) {
  if (!/^(0|[1-9][0-9]{0,8})$/.test(counter))
    throw new CliFailure(2, '--reissue expects the counter of an open ticket (wallet tickets)');
  const parsed =
    amount === undefined
      ? undefined
      : parseTokenAmount('--amount', amount, wallet.network.decimals);
  return wallet.reissueTicket(Number(counter), parsed?.toString());
}

function printDeposit(
  receipt: ChainDepositReceipt,
  network: NetworkProfile,
  io: CliIo,
  json: boolean,
): void {
  const line = {
    deposit: receipt.depositIndex,
    ticket: receipt.ticket.counter,
    amount: receipt.ticket.amount,
    fee: receipt.fee.toString(),
    depositor: receipt.depositor,
    transaction: receipt.transaction,
    path: receipt.path,
    mined: receipt.mined,
    already: receipt.already,
  };
  if (json) {
    io.out(JSON.stringify(line));
    return;
  }
  const what = `${receipt.ticket.amount} atomic units (${whole(BigInt(receipt.ticket.amount), network.decimals)})`;
  if (receipt.already)
    io.out(`ticket #${receipt.ticket.counter} was deposited already: ${what}, nothing moved now`);
  else
    io.out(
      `deposited ${what} from ${receipt.depositor} ${receipt.path === 'relayed' ? `by signature, relayer's fee ${receipt.fee} atomic units` : 'directly'}`,
    );
  io.out(
    `escrow deposit #${receipt.depositIndex ?? '(not mined yet)'}, transaction ${receipt.transaction ?? '(unknown)'}`,
  );
  io.out('the pool shields it once its acceptance is final; `wallet sync` then finds the note');
}

/** Atomic units as whole tokens (`1500000`, 6 → `1.5`). */
function whole(atomic: bigint, decimals: number): string {
  const digits = atomic.toString().padStart(decimals + 1, '0');
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${digits.slice(0, digits.length - decimals)}${fraction ? `.${fraction}` : ''}`;
}

/**
 * `wallet reclaim --deposit INDEX`: directly when the key has gas (or `--direct`), else by
 * signature through the relayer (or `--relayed`).
 * @returns the exit code
 */
export async function chainReclaim(
  wallet: Wallet,
  values: ChainWalletFlags,
  io: CliIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  if (values.deposit === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(values.deposit))
    throw new CliFailure(
      2,
      "--deposit expects the escrow's index of the deposit (wallet deposit printed it)",
    );
  if (values.direct && values.relayed)
    throw new CliFailure(2, '--direct and --relayed exclude each other');
  const { keyFile, rpc } = chainAccess(values, env);
  const account = await accountOf(keyFile);
  const { reclaimDeposit } = await import('../client/chain.js');
  const via = values.direct ? 'direct' : values.relayed ? 'relayed' : 'auto';
  const receipt = await onChain(() =>
    reclaimDeposit(wallet, { account, rpc, index: Number(values.deposit), via }),
  );
  if (values.json)
    io.out(
      JSON.stringify({
        deposit: receipt.index,
        amount: receipt.amount.toString(),
        to: account.address,
        transaction: receipt.transaction,
        via: receipt.via,
        mined: receipt.mined,
      }),
    );
  else
    io.out(
      `reclaimed deposit #${receipt.index}: ${receipt.amount} atomic units back to ${account.address} (${receipt.via}), transaction ${receipt.transaction}`,
    );
  return 0;
}

/**
 * `wallet verify-backing`: the wallet's notes against the escrow's latest attestation.
 * @returns 0 when the wallet's tree gives the attested root, 1 otherwise
 */
export async function chainVerifyBacking(
  wallet: Wallet,
  values: ChainWalletFlags,
  io: CliIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const rpc = rpcOf(values, env);
  const { verifyBacking } = await import('../client/chain.js');
  const report = await onChain(() => verifyBacking(wallet, { rpc }));
  if (values.json) io.out(JSON.stringify(report));
  else {
    const a = report.attestation;
    io.out(
      report.ok
        ? `backed: checkpoint ${a?.seq} attested on chain with root ${a?.root}, which the wallet's own tree gives at size ${report.checkpoint?.size}`
        : `not shown: ${report.problems.join(', ')}${a ? ` (attestation of checkpoint ${a.seq}, root ${a.root})` : ''}`,
    );
    io.out(
      `notes covered by the attestation: ${report.covered.notes} (${report.covered.value} atomic units); newer: ${report.notYetCovered.notes} (${report.notYetCovered.value})`,
    );
    for (const line of report.cannotShow) io.out(`cannot show: ${line}`);
  }
  return report.ok ? 0 : 1;
}

/**
 * Refuses (exit 1) an exit that links back to the wallet's deposits unless `--yes`; with it, the
 * warnings are said and the exit goes on.
 */
export function checkExitWarnings(
  wallet: Wallet,
  destination: string,
  amount: bigint,
  yes: boolean,
  io: CliIo,
): void {
  const warnings = exitWarnings(wallet, destination, amount);
  for (const warning of warnings) io.err(`warning: ${warning.code}: ${warning.message}`);
  if (warnings.length > 0 && !yes)
    throw new CliFailure(
      1,
      `exit_linkable: this exit links back to the wallet's deposits (${warnings.map((w) => w.code).join(', ')}); run it again with --yes to go on`,
    );
}

/** Where an exit's payout is awaited: the RPC and the chain's head before the exit. */
export interface PayoutStart {
  readonly rpc: string;
  readonly escrow: string;
  readonly fromBlock: bigint;
}

/** Before the exit (with `--wait` in a chain pool): the head to read the payout from. */
export async function payoutStart(
  network: NetworkProfile,
  values: ChainWalletFlags,
  env: NodeJS.ProcessEnv,
): Promise<PayoutStart | null> {
  if (!values.wait) return null;
  if (!network.chain)
    throw new CliFailure(2, '--wait is for a pool backed by an escrow on a chain');
  const rpc = rpcOf(values, env);
  const { publicClientOf } = await import('../client/chain.js');
  const head = await onChain(() => publicClientOf(rpc).getBlockNumber());
  return { rpc, escrow: network.chain.escrow, fromBlock: head };
}

/**
 * Waits for the exit's payout on chain and prints its transaction — or, when the payout failed
 * and the exit's refund note came back (`wallet` synced between reads), says so at once.
 * @returns the exit code: 0 paid, 1 refunded or not paid within the time
 */
export async function waitForExitPayout(
  start: PayoutStart,
  withdrawalId: string,
  values: ChainWalletFlags,
  io: CliIo,
  wallet: RefundedWallet & { sync(): Promise<unknown> },
): Promise<number> {
  const text = values['timeout-ms'];
  if (text !== undefined && !/^[1-9][0-9]{0,9}$/.test(text))
    throw new CliFailure(2, '--timeout-ms expects a positive integer (milliseconds)');
  const timeoutMs = text === undefined ? 600_000 : Number(text);
  const { exitRefund, waitForPayout } = await import('../client/chain.js');
  let refund: ReturnType<typeof exitRefund> = null;
  const refunded = async () => {
    // A pool that does not answer now does not end the wait; the chain is still read.
    if (
      await wallet.sync().then(
        () => true,
        () => false,
      )
    )
      refund = exitRefund(wallet, withdrawalId);
    return refund !== null;
  };
  const paid = await onChain(() =>
    waitForPayout({ ...start, withdrawalId, timeoutMs, pollMs: 500, stopWhen: refunded }),
  );
  if (paid === null && refund !== null) return refundedExit(withdrawalId, refund, values, io);
  if (paid === null) {
    io.err(
      `priv-stark wallet exit: payout_pending: withdrawal ${withdrawalId} is not paid after ${timeoutMs} ms; the operator pays it, or the wallet gets a refund note`,
    );
    return 1;
  }
  if (values.json)
    io.out(
      JSON.stringify({
        withdrawal: withdrawalId,
        payout: paid.transaction,
        to: paid.to,
        amount: paid.amount.toString(),
      }),
    );
  else io.out(`paid: ${paid.amount} atomic units to ${paid.to}, transaction ${paid.transaction}`);
  return 0;
}

/** The payout failed: the exit's value is back in the wallet as its refund note (exit 1). */
function refundedExit(
  withdrawalId: string,
  refund: StoredNote,
  values: ChainWalletFlags,
  io: CliIo,
): number {
  if (values.json)
    io.out(
      JSON.stringify({
        withdrawal: withdrawalId,
        refunded: refund.value,
        refundNote: refund.commitment,
        refundIndex: refund.index,
      }),
    );
  io.err(
    `priv-stark wallet exit: payout_failed: withdrawal ${withdrawalId} was not paid; its ${refund.value} atomic units are back in the wallet as refund note #${refund.index}`,
  );
  return 1;
}
