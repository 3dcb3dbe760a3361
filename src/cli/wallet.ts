/**
 * @module `priv-stark wallet …`: a wallet file (mode 0600) and its pool node.
 *
 *   wallet new [--sk 0x…]         a new wallet (or the wallet of a spending key: restore)
 *   wallet address                 its shielded address (pstark1…)
 *   wallet sync                    reads leaves, events and checkpoints since its cursors
 *   wallet balance [--no-sync]     spendable, pending, unconfirmed, total (atomic units and dUSD)
 *   wallet deposit --amount N      a precommitment for the operator (`priv-stark deposit --amount N --pre …`);
 *                                  at the recovery bound (N tickets open) it syncs first
 *   wallet deposit --reissue C     open ticket #C again, unchanged
 *   wallet tickets                 the deposit tickets handed out and not yet seen shielded
 *   wallet payments                its payment records
 *   wallet transfer --to pstark1… --amount N [--note 0x…]
 *                                  syncs, then moves N atomic units to a shielded address through the
 *                                  pool node (`POST /transfers`: no merchant); prints the transaction
 *   wallet split --amount N [--note 0x…] [--transparent]
 *                                  a private split (a transition) of N and the rest: the note (default:
 *                                  the smallest spendable one holding more than N) becomes two;
 *                                  --transparent: a transfer of N to the wallet's own address
 *   wallet ready --count C --value N [--timeout-ms T]
 *                                  splits in the background (ReadyNotesKeeper) until C notes of at least
 *                                  N are spendable, printing progress; exit 1 when T (60000) passes first
 *
 * Common: `--wallet FILE` (PRIV_STARK_WALLET, ./priv-stark.wallet), `--pool URL` (POOL_URL,
 * http://127.0.0.1:4021), `--pool-mirror URL` (PRIV_STARK_POOL_MIRROR: where the public log is
 * read; writes still go to the pool node). Exit codes: 0 done, 1 refused or failed (a refusal is
 * one line: the error's stable code, then its message), 2 bad flags.
 */

import { parseArgs } from 'node:util';

import {
  PoolNodeError,
  READY_NOTES_MAX,
  ReadyNotesKeeper,
  type StoredNote,
  TooManyOpenTicketsError,
  Wallet,
  WalletBehindError,
  WalletError,
} from '../client/index.js';
import { type DigestHex, loadCore, type PrivStarkCore } from '../core/index.js';
import { checkDestination, DEVNET_NETWORK, parseAmount } from '../scheme/index.js';
import { CliFailure } from './cli-io.js';
import { AmountFlagError, isWholeTokens, parseTokenAmount } from './token-amount.js';
import {
  chainDeposit,
  chainReclaim,
  checkExitWarnings,
  payoutStart,
  WALLET_CHAIN_USAGE,
  waitForExitPayout,
  chainVerifyBacking,
} from './wallet-chain.js';
import { TRANSPORT_FLAGS, TRANSPORT_USAGE, transportOptions } from './transport-flags.js';
import { syncBeforeWrite } from './write-delay.js';
import { walletNetwork } from './wallet-network.js';

export const WALLET_USAGE = `  wallet new|address|sync|balance|deposit|tickets|payments [--wallet FILE] [--pool URL]
                    [--pool-mirror URL] ${TRANSPORT_USAGE}
                    a payer's or merchant's wallet (PRIV_STARK_WALLET, ./priv-stark.wallet; POOL_URL;
                    PRIV_STARK_POOL_MIRROR: a cache or mirror of the pool's public log to read from,
                    checked against the pool node, which still takes the writes):
                    new [--sk 0x…] creates (or restores from a spending key), deposit --amount N prints
                    the precommitment for the operator (--reissue C: open ticket #C again), tickets
                    lists the open ones, balance [--no-sync]
  wallet transfer --to pstark1… --amount N | split --amount N [--note 0x…] [--transparent]
                    moves N atomic units to a shielded address through the pool node, no merchant
                    (split: one note becomes two by a transition that shows the pool neither the
                    amount nor the address, both parts at least 1000; --transparent: a transfer to
                    the wallet's own address, which shows both); prints the transaction
  wallet … --spend-now
                    spends notes younger than their minimum age (two epochs plus a random delay),
                    with a warning: the payment's anchor and time can tie it to the note's making
  wallet merge [--note 0x… --note 0x…]
                    joins two notes into one by a transition (default: the two smallest)
  wallet exit --to CAIP-10 --amount N [--note 0x…]
                    withdraws N atomic units out of the pool to an account (eip155:<chain>:<EIP-55
                    address> or solana:<chain>:<key>); the operator pays it out, or the wallet gets
                    it back as a refund note
  wallet transfer|split|merge|exit ... [--no-delay]
                    a wallet whose state does not cover the pool's current epoch syncs, then waits a
                    random delay of at least one epoch before writing (--no-delay: at once, warned)
${WALLET_CHAIN_USAGE}
  wallet ready --count C --value N [--timeout-ms T]
                    splits notes until C (at most ${READY_NOTES_MAX}) notes of at least N are spendable, for
                    payments at once and back to back; exit 1 when T ms (60000) pass first
  pay <url> [--method M] [--header 'K: V'] [--data BODY] [--no-wait] [--wallet FILE] [--pool URL]
                    [--pool-mirror URL] ${TRANSPORT_USAGE}
                    pays a 402 with the wallet (stock @x402/fetch), prints the response and the settlement;
                    [--no-delay] as for wallet transfer (a sync, then a random wait of an epoch or more)
  --transport private-first|private-only, --pool-proxy URL (PRIV_STARK_TRANSPORT, PRIV_STARK_POOL_PROXY)
                    how writes reach the pool node: the merchant's relay, inline, the proxy (http://,
                    socks5h://…; else HTTPS_PROXY/HTTP_PROXY/ALL_PROXY with NO_PROXY), then directly with
                    a warning on stderr; private-only refuses that last path (no_private_transport)`;

/** Where the CLI writes. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const stdio: CliIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

/**
 * `--wallet`, `--pool` and `--pool-mirror` with their environment defaults: the wallet's options
 * (`Wallet.open({ core, ...where })`).
 */
export function walletLocation(
  values: {
    wallet?: string | undefined;
    pool?: string | undefined;
    'pool-mirror'?: string | undefined;
    transport?: string | undefined;
    'pool-proxy'?: string | undefined;
  },
  env: NodeJS.ProcessEnv = process.env,
) {
  return {
    // How writes reach the pool node: --transport, --pool-proxy (`transport-flags.ts`).
    ...transportOptions(values, env),
    path: values.wallet ?? env.PRIV_STARK_WALLET ?? './priv-stark.wallet',
    pool: values.pool ?? env.POOL_URL ?? `http://127.0.0.1:${env.POOL_PORT ?? '4021'}`,
    // Unset or empty: the wallet reads the pool node itself.
    poolMirror: (values['pool-mirror'] ?? env.PRIV_STARK_POOL_MIRROR) || undefined,
  };
}

/** Atomic units as whole units of the asset (`12345` → `0.012345`). */
export function formatUnits(atomic: bigint, decimals = DEVNET_NETWORK.decimals): string {
  const negative = atomic < 0n;
  const digits = (negative ? -atomic : atomic).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A flag the command cannot use: exit code 2 with the message. */
class FlagError extends Error {}

/** Default of `wallet ready --timeout-ms`. */
export const READY_TIMEOUT_MS = 60_000;

/** `text` as a positive integer at most `max` (a flag's value). */
function positiveInteger(flag: string, text: string | undefined, max: number): number {
  if (text === undefined) throw new FlagError(`${flag} is required`);
  const value = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value <= max)) throw new FlagError(`${flag} expects a positive integer at most ${max}`);
  return value;
}

/** `text` as an amount: decimal atomic units, `0 < amount < 2^62` (a flag's value). */
function amountFlag(flag: string, text: string | undefined): bigint {
  if (text === undefined) throw new FlagError(`${flag} is required (atomic units)`);
  const value = parseAmount(text);
  if (value === null)
    throw new FlagError(
      `${flag} expects decimal atomic units, positive and below 2^62 (no sign, no leading zero)`,
    );
  return value;
}

/** `--note`: a note's commitment, `0x` + 64 hex digits. */
function noteFlag(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (!/^0x[0-9a-f]{64}$/.test(text))
    throw new FlagError("--note expects a note's commitment, 0x and 64 lowercase hex digits");
  return text;
}

/** One `--note` at most (the flag repeats only for `merge`). */
function single(notes: string[] | undefined): string | undefined {
  if (notes !== undefined && notes.length > 1) throw new FlagError('--note is given once here');
  return notes?.[0];
}

/** `--to`: a shielded address. */
function addressFlag(core: PrivStarkCore, text: string | undefined): string {
  if (text === undefined)
    throw new FlagError("--to is required (the recipient's pstark1… address)");
  try {
    core.decodeAddress(text);
  } catch {
    throw new FlagError('--to expects a shielded address (pstark1…)');
  }
  return text;
}

/** A refusal of the wallet or the pool node as one line: its stable code, then its message. */
function refusalLine(error: unknown): string | null {
  if (error instanceof WalletError || error instanceof PoolNodeError)
    return `${error.code}: ${error.message.replace(/\s*\n\s*/g, ' ')}`;
  return null;
}

/**
 * The note `wallet split` splits when none is named: the smallest spendable note holding more
 * than `amount` (a note of exactly `amount` would leave an empty change note).
 * @throws WalletBehindError before the wallet has a checkpoint, or when such a note exists but is
 *   not in a checkpoint synced yet; WalletError `insufficient_funds` when none exists
 */
function noteToSplit(wallet: Wallet, amount: bigint): StoredNote {
  // As a payment says: the public log shows a note with its checkpoint, none before.
  if (!wallet.checkpoint)
    throw new WalletBehindError('the wallet has no checkpoint: sync it with the pool first');
  const locked = wallet.lockedNotes();
  const anchored = wallet.checkpoint?.size ?? 0;
  const usable = wallet.notes().filter((n) => !locked.has(n.commitment));
  const larger = usable.filter((n) => BigInt(n.value) > amount);
  const spendable = larger
    .filter((n) => n.index < anchored)
    .sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1));
  if (spendable[0]) return spendable[0];
  if (larger.length > 0)
    throw new WalletBehindError(
      'the note that would split is not in a checkpoint the wallet has synced yet: run it again after the next checkpoint',
    );
  const largest = usable
    .filter((n) => n.index < anchored)
    .reduce((max, n) => (BigInt(n.value) > max ? BigInt(n.value) : max), 0n);
  throw new WalletError(
    'insufficient_funds',
    `a split of ${amount} atomic units needs a spendable note holding more than that; the largest holds ${largest}`,
  );
}

/** Notes of at least `value` the wallet holds that wait for a checkpoint (not locked). */
function waitingNotes(wallet: Wallet, value: bigint): number {
  const locked = wallet.lockedNotes();
  const anchored = wallet.checkpoint?.size ?? 0;
  return wallet
    .notes()
    .filter((n) => !locked.has(n.commitment) && n.index >= anchored && BigInt(n.value) >= value)
    .length;
}

/**
 * The `wallet` command.
 * @returns the exit code: 0 done, 1 refused or failed, 2 bad flags
 */
export async function walletCommand(
  argv: string[],
  io: CliIo = stdio,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [sub, ...rest] = argv;
  let values: ReturnType<typeof parseWalletArgs>;
  try {
    values = parseWalletArgs(rest);
  } catch (error) {
    io.err(`priv-stark wallet: ${(error as Error).message}\nusage:\n${WALLET_USAGE}`);
    return 2;
  }
  try {
    return await runWallet(sub, values, io, env);
  } catch (error) {
    if (error instanceof FlagError || error instanceof AmountFlagError) {
      io.err(`priv-stark wallet ${sub}: ${error.message}`);
      return 2;
    }
    if (error instanceof CliFailure) {
      io.err(`priv-stark wallet ${sub}: ${error.message}`);
      return error.exitCode;
    }
    const line = refusalLine(error);
    const refusing = [
      'transfer',
      'split',
      'ready',
      'merge',
      'exit',
      'deposit',
      'reclaim',
      'verify-backing',
    ];
    if (line === null || !refusing.includes(sub ?? '')) throw error;
    io.err(`priv-stark wallet ${sub}: ${line}`);
    return 1;
  }
}

function parseWalletArgs(args: string[]) {
  return parseArgs({
    args,
    options: {
      wallet: { type: 'string' },
      pool: { type: 'string' },
      'pool-mirror': { type: 'string' },
      ...TRANSPORT_FLAGS,
      sk: { type: 'string' },
      amount: { type: 'string' },
      reissue: { type: 'string' },
      to: { type: 'string' },
      note: { type: 'string', multiple: true },
      private: { type: 'boolean' },
      transparent: { type: 'boolean' },
      'spend-now': { type: 'boolean' },
      count: { type: 'string' },
      value: { type: 'string' },
      'timeout-ms': { type: 'string' },
      'no-sync': { type: 'boolean' },
      'no-delay': { type: 'boolean' },
      json: { type: 'boolean' },
      'evm-key-file': { type: 'string' },
      'chain-rpc': { type: 'string' },
      'max-fee': { type: 'string' },
      direct: { type: 'boolean' },
      relayed: { type: 'boolean' },
      deposit: { type: 'string' },
      wait: { type: 'boolean' },
      yes: { type: 'boolean' },
    },
    strict: true,
  }).values;
}

async function runWallet(
  sub: string | undefined,
  values: ReturnType<typeof parseWalletArgs>,
  io: CliIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const located = walletLocation(values, env);
  // The devnet pool, or a chain pool's network as its pool node names it (GET /chain).
  const where = {
    ...located,
    network: await walletNetwork(located),
    // Notes younger than their minimum age are spent only on request, with a warning.
    ...(values['spend-now'] ? { notes: { spendNow: true, onWarning: io.err } } : {}),
  };
  const core = await loadCore();
  const asset = where.network.asset;
  // One-shot writes: stored state when it covers the epoch, else a sync and a random wait.
  const beforeWrite = (wallet: Wallet) =>
    syncBeforeWrite(wallet, { noDelay: values['no-delay'] === true, say: io.err });
  switch (sub) {
    case 'new': {
      const wallet = await Wallet.create({
        core,
        ...where,
        ...(values.sk ? { sk: values.sk as DigestHex } : {}),
      });
      io.out(`wallet ${where.path} (mode 0600)`);
      io.out(`address ${wallet.address}`);
      if (values.sk)
        io.out('restored from the spending key: run `priv-stark wallet sync` to find its notes');
      return 0;
    }
    case 'address': {
      const wallet = await Wallet.open({ core, ...where });
      io.out(wallet.address);
      return 0;
    }
    case 'sync': {
      const wallet = await Wallet.open({ core, ...where });
      const started = performance.now();
      const report = await wallet.sync();
      io.out(
        `synced ${report.leaves} leaves, ${report.events} events in ${(performance.now() - started).toFixed(0)} ms: ${report.notesFound} notes found, ${report.settled} payments settled, ${report.released} released; checkpoint ${report.checkpoint ?? 'none'}`,
      );
      return 0;
    }
    case 'balance': {
      const wallet = await Wallet.open({ core, ...where });
      if (!values['no-sync']) await wallet.sync();
      const b = wallet.balance();
      if (values.json) {
        io.out(
          JSON.stringify(Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.toString()]))),
        );
        return 0;
      }
      for (const [name, value] of Object.entries(b) as [string, bigint][])
        io.out(`${name.padEnd(12)}${formatUnits(value).padStart(16)} ${asset}  (${value} atomic)`);
      return 0;
    }
    case 'deposit': {
      const wallet = await Wallet.open({ core, ...where });
      if (where.network.chain) return await chainDeposit(wallet, values, io, env);
      // Whole tokens (a point) as atomic units; an integer as it always was.
      if (values.amount !== undefined && isWholeTokens(values.amount))
        values.amount = parseTokenAmount(
          '--amount',
          values.amount,
          where.network.decimals,
        ).toString();
      let ticket: Awaited<ReturnType<Wallet['depositTicket']>>;
      if (values.reissue !== undefined) {
        if (!/^(0|[1-9][0-9]{0,8})$/.test(values.reissue))
          throw new RangeError('--reissue expects the counter of an open ticket (wallet tickets)');
        ticket = await wallet.reissueTicket(Number(values.reissue), values.amount);
      } else {
        if (!values.amount) throw new RangeError('wallet deposit needs --amount N (atomic units)');
        // At the bound, or restored and never synced: what the pool shielded since may free a slot.
        ticket = await wallet.depositTicket(values.amount).catch(async (error: unknown) => {
          if (!(error instanceof TooManyOpenTicketsError || error instanceof WalletBehindError))
            throw error;
          await wallet.sync();
          return wallet.depositTicket(values.amount!);
        });
      }
      io.out(`deposit #${ticket.counter} of ${ticket.amount} atomic units to ${wallet.address}`);
      io.out(`pre ${ticket.pre}`);
      io.out(`operator: priv-stark deposit --amount ${ticket.amount} --pre ${ticket.pre}`);
      return 0;
    }
    case 'verify-backing': {
      const wallet = await Wallet.open({ core, ...where });
      if (!where.network.chain)
        throw new FlagError('wallet verify-backing is for a pool backed by an escrow on a chain');
      return await chainVerifyBacking(wallet, values, io, env);
    }
    case 'reclaim': {
      const wallet = await Wallet.open({ core, ...where });
      if (!where.network.chain)
        throw new FlagError('wallet reclaim is for a pool backed by an escrow on a chain');
      return await chainReclaim(wallet, values, io, env);
    }
    case 'tickets': {
      const wallet = await Wallet.open({ core, ...where });
      if (!values['no-sync']) await wallet.sync();
      const open = wallet.openTickets();
      if (open.length === 0) io.out('no open deposit tickets');
      for (const t of open)
        io.out(`#${t.counter} ${t.amount ?? '(amount unknown)'} atomic units, pre ${t.pre}`);
      return 0;
    }
    case 'payments': {
      const wallet = await Wallet.open({ core, ...where });
      for (const p of wallet.payments()) {
        io.out(
          `${p.status.padEnd(8)} ${p.amount} to ${p.payTo.slice(0, 20)}… ${p.resourceId || '-'} expiry ${new Date(p.expiry * 1000).toISOString()}${p.settlementId ? ` tx ${p.settlementId}` : ''}`,
        );
      }
      return 0;
    }
    case 'transfer': {
      const to = addressFlag(core, values.to);
      const amount = amountFlag('--amount', values.amount);
      const note = noteFlag(single(values.note));
      const wallet = await Wallet.open({ core, ...where });
      await beforeWrite(wallet);
      const receipt = await wallet.transfer(to, amount, { note });
      // The pool settled it: the next sync reads the settlement and resolves the record.
      await wallet.sync().catch(() => undefined);
      io.out(`transferred ${amount} atomic units (${formatUnits(amount)} ${asset}) to ${to}`);
      io.out(`transaction ${receipt.transaction}`);
      io.out(
        `leaves: recipient #${receipt.recipientIndex}, change #${receipt.changeIndex} (each spendable once a checkpoint covers it)`,
      );
      return 0;
    }
    case 'split': {
      const amount = amountFlag('--amount', values.amount);
      const named = noteFlag(single(values.note));
      const wallet = await Wallet.open({ core, ...where });
      await beforeWrite(wallet);
      // Private (a transition: the pool sees neither the amount nor the address) unless a
      // transparent split is asked for explicitly.
      if (!values.transparent) {
        const chosen = named ?? noteToSplit(wallet, amount).commitment;
        const receipt = await wallet.splitPrivately(chosen, amount);
        await wallet.sync().catch(() => undefined);
        io.out(`split note ${chosen} privately: ${amount} atomic units and the rest`);
        io.out(`transaction ${receipt.transaction}`);
        io.out(
          `leaves: #${receipt.outputIndexes[0]}, #${receipt.outputIndexes[1]}, each spendable once a checkpoint covers it`,
        );
        return 0;
      }
      // A named note the wallet does not hold (or may not spend) is the wallet's refusal to make.
      const chosen =
        named === undefined
          ? noteToSplit(wallet, amount)
          : wallet.notes().find((n) => n.commitment === named);
      if (chosen && BigInt(chosen.value) <= amount)
        throw new WalletError(
          'insufficient_funds',
          `the note holds ${chosen.value} atomic units: a split of ${amount} needs more than that`,
        );
      const note = named ?? chosen!.commitment;
      const receipt = await wallet.splitNote(note, amount);
      await wallet.sync().catch(() => undefined);
      const change = BigInt(chosen!.value) - amount;
      io.out(`split note ${note} into ${amount} + ${change} atomic units`);
      io.out(`transaction ${receipt.transaction}`);
      io.out(
        `leaves: #${receipt.recipientIndex} (${amount}), #${receipt.changeIndex} (${change}), each spendable once a checkpoint covers it`,
      );
      return 0;
    }
    case 'merge': {
      const named = (values.note ?? []).map((n) => noteFlag(n) as string);
      if (named.length !== 0 && named.length !== 2)
        throw new FlagError('--note is given twice (the two notes to merge) or not at all');
      const wallet = await Wallet.open({ core, ...where });
      await beforeWrite(wallet);
      const receipt = await wallet.mergeNotes(
        named.length === 2 ? [named[0] as string, named[1] as string] : undefined,
      );
      await wallet.sync().catch(() => undefined);
      io.out(`merged two notes into one`);
      io.out(`transaction ${receipt.transaction}`);
      io.out(`leaves: #${receipt.outputIndexes[0]} (spendable once a checkpoint covers it)`);
      return 0;
    }
    case 'exit': {
      if (values.to === undefined)
        throw new FlagError('--to is required (a CAIP-10 account id, e.g. eip155:8453:0x…)');
      const checked = checkDestination(values.to);
      if (!checked.ok) throw new FlagError(`--to: ${checked.why}`);
      const amount =
        values.amount !== undefined && isWholeTokens(values.amount)
          ? parseTokenAmount('--amount', values.amount, where.network.decimals)
          : amountFlag('--amount', values.amount);
      const note = noteFlag(single(values.note));
      const wallet = await Wallet.open({ core, ...where });
      await beforeWrite(wallet);
      checkExitWarnings(wallet, values.to, amount, values.yes === true, io);
      const payout = await payoutStart(where.network, values, env);
      const receipt = await wallet.exit(values.to, amount, { note });
      await wallet.sync().catch(() => undefined);
      if (!values.json) {
        io.out(`exit of ${amount} atomic units (${formatUnits(amount)} ${asset}) to ${values.to}`);
        io.out(
          `withdrawal ${receipt.transaction} (the operator pays it out; if that fails, a refund note comes back)`,
        );
      }
      if (payout) return await waitForExitPayout(payout, receipt.transaction, values, io, wallet);
      if (values.json)
        io.out(
          JSON.stringify({ withdrawal: receipt.transaction, amount: `${amount}`, to: values.to }),
        );
      return 0;
    }
    case 'ready': {
      const count = positiveInteger('--count', values.count, READY_NOTES_MAX);
      const value = amountFlag('--value', values.value);
      const timeoutMs =
        values['timeout-ms'] === undefined
          ? READY_TIMEOUT_MS
          : positiveInteger('--timeout-ms', values['timeout-ms'], 2 ** 31 - 1);
      const wallet = await Wallet.open({ core, ...where });
      await wallet.sync();
      let lastError = '';
      const keeper = new ReadyNotesKeeper(
        wallet,
        { count, value },
        {
          onError: (error) => {
            const line = refusalLine(error) ?? String((error as Error)?.message ?? error);
            if (line !== lastError) io.err(`split failed: ${line}`);
            lastError = line;
          },
        },
      );
      let shown = '';
      const progress = () => {
        const pending = wallet.payments().filter((p) => p.status === 'pending').length;
        const line = `ready ${keeper.ready()} of ${count}, ${waitingNotes(wallet, value)} more waiting for a checkpoint${pending > 0 ? `, ${pending} payments or splits pending` : ''}`;
        if (line !== shown) io.out(line);
        shown = line;
      };
      progress();
      const ticker = setInterval(progress, 100);
      keeper.start();
      try {
        await keeper.whenReady(timeoutMs);
      } catch (error) {
        io.err(`priv-stark wallet ready: ${(error as Error).message}`);
        return 1;
      } finally {
        clearInterval(ticker);
        await keeper.stop();
      }
      progress();
      io.out(`${keeper.ready()} ready notes of at least ${value} atomic units (wanted ${count})`);
      return 0;
    }
    default:
      io.err(`usage:\n${WALLET_USAGE}`);
      return 2;
  }
}
