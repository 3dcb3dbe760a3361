// What an exit would tell a watcher of the chain (src/client/exit-warnings.ts): each warning with
// the exit that raises it and its must-pass twin that does not. The remainder rule is the wallet's
// side of the linkage test's amount join (test/privacy/linkage-twin-amount.test.ts): a deposit of
// an odd amount keeps its remainder below a cent through payments in whole cents.

import { describe, expect, it } from 'vitest';

import {
  type ChainDepositRecord,
  type DepositHistory,
  exitWarnings,
  type StoredNote,
} from '../../src/client/index.js';

const DIGEST = `0x${'ab'.repeat(32)}` as const;
const FUNDER = '0x1111111111111111111111111111111111111111';
const ELSEWHERE = 'eip155:8453:0x2222222222222222222222222222222222222222';

/** A wallet's history: deposits by the operator (notes) and on chain, in an asset of `decimals`. */
function history(
  operatorDeposits: readonly bigint[],
  chainDeposits: readonly bigint[] = [],
  decimals = 6,
): DepositHistory {
  const note = (value: bigint, index: number): StoredNote => ({
    commitment: DIGEST,
    value: value.toString(),
    rho: DIGEST,
    index,
    nullifier: DIGEST,
    origin: 'deposit',
  });
  const deposit = (amount: bigint, counter: number): ChainDepositRecord => ({
    counter,
    amount: amount.toString(),
    pre: DIGEST,
    index: counter,
    depositor: FUNDER,
    transaction: DIGEST,
    path: 'relayed',
    fee: '0',
  });
  return {
    allNotes: () => operatorDeposits.map(note),
    chainDeposits: () => chainDeposits.map(deposit),
    network: { decimals },
  };
}

const codes = (h: DepositHistory, destination: string, amount: bigint) =>
  exitWarnings(h, destination, amount).map((w) => w.code);

describe('exit warnings', () => {
  it('deposit_remainder: an exit keeping an odd deposit’s remainder below a cent', () => {
    // $1.234567 deposited; $0.23 paid in whole cents; $1.004567 left and exited.
    const warnings = exitWarnings(history([1_234_567n]), ELSEWHERE, 1_004_567n);
    expect(warnings.map((w) => w.code)).toEqual(['deposit_remainder']);
    expect(warnings[0]!.message).toContain('4567 atomic units below a cent');
    expect(warnings[0]!.message).toContain('1234567');
    // The same from a deposit on chain.
    expect(codes(history([], [1_234_567n]), ELSEWHERE, 4_567n)).toEqual(['deposit_remainder']);
  });

  it('must-pass twins: another remainder, whole cents, round deposits, an asset without cents', () => {
    expect(codes(history([1_234_567n]), ELSEWHERE, 1_004_568n)).toEqual([]);
    expect(codes(history([1_234_567n]), ELSEWHERE, 1_000_000n)).toEqual([]);
    expect(codes(history([2_000_000n]), ELSEWHERE, 1_990_000n)).toEqual([]);
    expect(codes(history([2_000_000n]), ELSEWHERE, 1_990_001n)).toEqual([]);
    // Two decimals: a cent is one atomic unit, nothing lies below it.
    expect(codes(history([12_345n], [], 2), ELSEWHERE, 2_345n)).toEqual([]);
    expect(codes(history([12_345n], [], 0), ELSEWHERE, 2_345n)).toEqual([]);
  });

  it('same_amount_as_deposit names an equal amount, not the remainder too', () => {
    expect(codes(history([1_234_567n]), ELSEWHERE, 1_234_567n)).toEqual(['same_amount_as_deposit']);
    // Equal to one deposit and sharing another's remainder: both.
    expect(codes(history([1_234_567n, 3_004_567n]), ELSEWHERE, 1_234_567n)).toEqual([
      'same_amount_as_deposit',
      'deposit_remainder',
    ]);
  });

  it('funding_address: an exit to the account that paid a deposit, beside the others', () => {
    const funded = history([], [1_234_567n]);
    expect(codes(funded, `eip155:8453:${FUNDER}`, 1_000_000n)).toEqual(['funding_address']);
    expect(codes(funded, `eip155:8453:${FUNDER}`, 1_004_567n)).toEqual([
      'deposit_remainder',
      'funding_address',
    ]);
    expect(codes(funded, ELSEWHERE, 1_000_000n)).toEqual([]);
  });
});
