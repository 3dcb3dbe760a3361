/**
 * @module What an exit would tell a watcher of the chain (docs/chain.md, "What becomes public"):
 * every deposit's address and amount, and every exit's destination and amount, are public; the
 * pool hides only which deposit funded which payment or exit. An exit of exactly a deposit's
 * amount, one that keeps a deposit's odd remainder below a cent, or one to the address that funded
 * the wallet, links the two again. `wallet exit` and MCP `withdraw` warn and need an explicit yes
 * when one of these holds.
 */

import type { ChainDepositRecord, StoredNote } from './store.js';

/**
 * `same_amount_as_deposit`: the exit's amount is one of the wallet's deposits';
 * `deposit_remainder`: the exit's amount has the same remainder below a cent as one of the
 * wallet's deposits, and that remainder is not zero — payments in whole cents leave it in place,
 * so the exit carries it (the linkage test's amount join joins every such pair: docs/privacy.md);
 * `funding_address`: the destination is an account that paid one of the wallet's deposits.
 */
export type ExitWarningCode = 'same_amount_as_deposit' | 'deposit_remainder' | 'funding_address';

/** One reason an exit links back to a deposit. */
export interface ExitWarning {
  readonly code: ExitWarningCode;
  readonly message: string;
}

/**
 * The wallet's side the warnings read: its notes, its deposits into a chain's escrow, and its
 * asset's decimals (a cent is 10^(decimals − 2) atomic units).
 */
export interface DepositHistory {
  allNotes(): StoredNote[];
  chainDeposits(): ChainDepositRecord[];
  readonly network: { readonly decimals: number };
}

/**
 * A cent of the asset in atomic units; none when nothing lies below a cent (two decimals or
 * fewer).
 */
function centOf(decimals: number): bigint | null {
  return decimals > 2 ? 10n ** BigInt(decimals - 2) : null;
}

/**
 * The deposit among `amounts` whose non-zero remainder below a cent `amount` shares, with that
 * remainder — other than an equal amount, which `same_amount_as_deposit` names.
 */
function sharedRemainder(
  amounts: ReadonlySet<string>,
  amount: bigint,
  cent: bigint | null,
): { readonly deposit: string; readonly remainder: bigint } | undefined {
  if (cent === null) return undefined;
  const remainder = amount % cent;
  if (remainder === 0n) return undefined;
  const deposit = [...amounts].find(
    (d) => d !== amount.toString() && BigInt(d) % cent === remainder,
  );
  return deposit === undefined ? undefined : { deposit, remainder };
}

/** The address of a CAIP-10 account id (`eip155:8453:0xAbC…` → `0xabc…`), lowercase. */
function accountOf(destination: string): string {
  return destination.slice(destination.lastIndexOf(':') + 1).toLowerCase();
}

/**
 * Why an exit of `amount` to `destination` would link back to the wallet's deposits (none: `[]`).
 * @example
 * exitWarnings(wallet, 'eip155:8453:0x…', 10_000_000n) // [{ code: 'same_amount_as_deposit', … }]
 */
export function exitWarnings(
  wallet: DepositHistory,
  destination: string,
  amount: bigint,
): ExitWarning[] {
  const warnings: ExitWarning[] = [];
  const deposits = wallet.chainDeposits();
  const amounts = new Set([
    ...wallet
      .allNotes()
      .filter((n) => n.origin === 'deposit')
      .map((n) => n.value),
    ...deposits.map((d) => d.amount),
  ]);
  if (amounts.has(amount.toString()))
    warnings.push({
      code: 'same_amount_as_deposit',
      message: `the exit's amount, ${amount} atomic units, is one of this wallet's deposits: anyone who reads the chain can pair the two`,
    });
  const shared = sharedRemainder(amounts, amount, centOf(wallet.network.decimals));
  if (shared)
    warnings.push({
      code: 'deposit_remainder',
      message: `the exit's amount ends in the same ${shared.remainder} atomic units below a cent as this wallet's deposit of ${shared.deposit}: payments in whole cents leave that remainder in place, so anyone who reads the chain can pair the two (deposit round amounts)`,
    });
  const account = accountOf(destination);
  const funder = deposits.find((d) => d.depositor.toLowerCase() === account);
  if (funder)
    warnings.push({
      code: 'funding_address',
      message: `the destination ${funder.depositor} paid this wallet's deposit${funder.index === null ? '' : ` #${funder.index}`}: the exit goes back to where the funds came from, in view of everyone`,
    });
  return warnings;
}
