/**
 * @module The hot keys' gas: each sending key's balance, read at every poll, against a minimum
 * below which that key's sender stops signing (deposits and payouts wait; nothing is lost) until
 * the operator tops it up. `/health` lists each key with its balance and whether it is sufficient;
 * the metrics export both, so an alert fires before the key runs dry.
 */

import type { Address, PublicClient } from 'viem';

import type { GasKeyStatus } from '../pool-node/deposit-source.js';
import { chainErrorOf } from './chain-errors.js';

/** The default minimum: 0.0005 ETH, about a thousand acceptances or payouts on Base. */
export const DEFAULT_MIN_GAS_BALANCE = 500_000_000_000_000n;

/** A key whose gas is watched. */
export interface GasKey {
  readonly role: string;
  readonly address: Address;
}

/** The balances of the hot keys, as last read. */
export class GasBalances {
  private readonly balances = new Map<string, bigint>();

  constructor(
    private readonly client: PublicClient,
    readonly keys: readonly GasKey[],
    readonly minimum: bigint = DEFAULT_MIN_GAS_BALANCE,
  ) {}

  /**
   * Reads every key's balance; a key that could not be read keeps its last balance.
   * @throws ChainError when the RPC fails (the balances read before stay)
   */
  async refresh(): Promise<void> {
    const read = await Promise.allSettled(
      this.keys.map((key) => this.client.getBalance({ address: key.address })),
    );
    for (const [i, result] of read.entries())
      if (result.status === 'fulfilled') this.balances.set(this.keys[i]!.address, result.value);
    const failed = read.find((r) => r.status === 'rejected');
    if (failed) throw chainErrorOf(failed.reason, 'reading a gas balance');
  }

  /** Whether `role`'s key was read at or above the minimum (a role with no key is not). */
  sufficient(role: string): boolean {
    const key = this.keys.find((k) => k.role === role);
    const balance = key && this.balances.get(key.address);
    return balance !== undefined && balance >= this.minimum;
  }

  /** Each key with its balance against the minimum. */
  status(): GasKeyStatus[] {
    return this.keys.map((key) => {
      const balance = this.balances.get(key.address);
      return {
        role: key.role,
        address: key.address,
        balance: balance === undefined ? null : balance.toString(),
        minimum: this.minimum.toString(),
        sufficient: balance !== undefined && balance >= this.minimum,
      };
    });
  }
}
