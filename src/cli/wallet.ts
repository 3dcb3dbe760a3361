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
 *
 * Common: `--wallet FILE` (PRIV_STARK_WALLET, ./priv-stark.wallet), `--pool URL` (POOL_URL,
 * http://127.0.0.1:4021).
 */

import { parseArgs } from 'node:util';

import { TooManyOpenTicketsError, Wallet, WalletBehindError } from '../client/index.js';
import { type DigestHex, loadCore } from '../core/index.js';
import { DEVNET_NETWORK } from '../scheme/index.js';

export const WALLET_USAGE = `  wallet new|address|sync|balance|deposit|tickets|payments [--wallet FILE] [--pool URL]
                    a payer's or merchant's wallet (PRIV_STARK_WALLET, ./priv-stark.wallet; POOL_URL):
                    new [--sk 0x…] creates (or restores from a spending key), deposit --amount N prints
                    the precommitment for the operator (--reissue C: open ticket #C again), tickets
                    lists the open ones, balance [--no-sync]
  pay <url> [--method M] [--header 'K: V'] [--data BODY] [--no-wait] [--wallet FILE] [--pool URL]
                    pays a 402 with the wallet (stock @x402/fetch), prints the response and the settlement`;

/** Where the CLI writes. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const stdio: CliIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

/** `--wallet` and `--pool` with their environment defaults. */
export function walletLocation(
  values: { wallet?: string | undefined; pool?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
) {
  return {
    path: values.wallet ?? env.PRIV_STARK_WALLET ?? './priv-stark.wallet',
    pool: values.pool ?? env.POOL_URL ?? `http://127.0.0.1:${env.POOL_PORT ?? '4021'}`,
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

/**
 * The `wallet` command.
 * @returns the exit code
 */
export async function walletCommand(
  argv: string[],
  io: CliIo = stdio,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      wallet: { type: 'string' },
      pool: { type: 'string' },
      sk: { type: 'string' },
      amount: { type: 'string' },
      reissue: { type: 'string' },
      'no-sync': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const where = walletLocation(values, env);
  const core = await loadCore();
  const asset = DEVNET_NETWORK.asset;
  switch (sub) {
    case 'new': {
      const wallet = await Wallet.create({
        core,
        pool: where.pool,
        path: where.path,
        ...(values.sk ? { sk: values.sk as DigestHex } : {}),
      });
      io.out(`wallet ${where.path} (mode 0600)`);
      io.out(`address ${wallet.address}`);
      if (values.sk)
        io.out('restored from the spending key: run `priv-stark wallet sync` to find its notes');
      return 0;
    }
    case 'address': {
      const wallet = await Wallet.open({ core, pool: where.pool, path: where.path });
      io.out(wallet.address);
      return 0;
    }
    case 'sync': {
      const wallet = await Wallet.open({ core, pool: where.pool, path: where.path });
      const started = performance.now();
      const report = await wallet.sync();
      io.out(
        `synced ${report.leaves} leaves, ${report.events} events in ${(performance.now() - started).toFixed(0)} ms: ${report.notesFound} notes found, ${report.settled} payments settled, ${report.released} released; checkpoint ${report.checkpoint ?? 'none'}`,
      );
      return 0;
    }
    case 'balance': {
      const wallet = await Wallet.open({ core, pool: where.pool, path: where.path });
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
      const wallet = await Wallet.open({ core, pool: where.pool, path: where.path });
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
    case 'tickets': {
      const wallet = await Wallet.open({ core, pool: where.pool, path: where.path });
      if (!values['no-sync']) await wallet.sync();
      const open = wallet.openTickets();
      if (open.length === 0) io.out('no open deposit tickets');
      for (const t of open)
        io.out(`#${t.counter} ${t.amount ?? '(amount unknown)'} atomic units, pre ${t.pre}`);
      return 0;
    }
    case 'payments': {
      const wallet = await Wallet.open({ core, pool: where.pool, path: where.path });
      for (const p of wallet.payments()) {
        io.out(
          `${p.status.padEnd(8)} ${p.amount} to ${p.payTo.slice(0, 20)}… ${p.resourceId || '-'} expiry ${new Date(p.expiry * 1000).toISOString()}${p.settlementId ? ` tx ${p.settlementId}` : ''}`,
        );
      }
      return 0;
    }
    default:
      io.err(`usage:\n${WALLET_USAGE}`);
      return 2;
  }
}
