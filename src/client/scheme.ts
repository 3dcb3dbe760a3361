/**
 * @module The `priv-stark/v1` scheme for `@x402/core`'s `x402Client`: it builds the payload with a
 * {@link Wallet} and tells x402's spend controls what the asset is (`findDefaultAsset`: the
 * network's one asset and its decimals), so the stock caps apply instead of being switched off.
 */

import type { x402Client } from '@x402/core/client';
import type {
  PaymentPayloadContext,
  PaymentPayloadResult,
  PaymentRequirements,
  SchemeNetworkClient,
} from '@x402/core/types';

import {
  NETWORKS,
  type NetworkProfile,
  type PaymentRequirements as ProfileRequirements,
  SCHEME,
} from '../scheme/index.js';
import type { Wallet } from './wallet.js';

/** What `findDefaultAsset` answers: x402's `DefaultAsset`. */
export interface PrivStarkAsset {
  readonly asset: string;
  readonly decimals: number;
  readonly symbol: string;
}

/**
 * The scheme client. The wallet picks how the proof travels: compactly where the merchant lists
 * `reference` (the proof handed over to the pool node first), inline otherwise.
 * @example
 * const client = new x402Client().register('shielded:devnet', new PrivStarkSchemeClient(wallet));
 * // compactFallback: an inline payment the merchant refuses for its size is sent once more compactly.
 * const pay = wrapFetchWithPayment(compactFallback(wallet), client);
 * await pay('http://127.0.0.1:3000/weather');
 */
export class PrivStarkSchemeClient implements SchemeNetworkClient {
  readonly scheme = SCHEME;
  private readonly networks: readonly NetworkProfile[];

  constructor(
    readonly wallet: Wallet,
    options: { networks?: readonly NetworkProfile[] } = {},
  ) {
    this.networks = options.networks ?? [
      wallet.network,
      ...NETWORKS.filter((n) => n.network !== wallet.network.network),
    ];
  }

  /** The network's one asset (its symbol is its id), so x402's USD cap and allow-list apply. */
  readonly findDefaultAsset = (asset: string, network: string): PrivStarkAsset | undefined => {
    const profile = this.networks.find((n) => n.network === network && n.asset === asset);
    return profile
      ? { asset: profile.asset, decimals: profile.decimals, symbol: profile.asset }
      : undefined;
  };

  async createPaymentPayload(
    x402Version: number,
    requirements: PaymentRequirements,
    context?: PaymentPayloadContext,
  ): Promise<PaymentPayloadResult> {
    if (x402Version !== 2)
      throw new Error(`${SCHEME} is an x402 v2 scheme, got x402Version ${x402Version}`);
    const cap = context?.maxAmountPerPayment;
    const payload = await this.wallet.createPayment(
      requirements as unknown as ProfileRequirements,
      {
        maxAmount: cap === undefined ? undefined : BigInt(cap),
      },
    );
    return { x402Version, payload: { ...payload } };
  }
}

/**
 * Registers the scheme for the wallet's network on an `x402Client`: its payments are compact where
 * the merchant lists `reference`. The fallback of an inline payment refused for its size needs the
 * response's status, which x402's hooks do not see: give the stock wrapper `compactFallback(wallet)`
 * as its fetch (`payingFetch` does both).
 * @returns the client, for chaining
 * @example
 * const pay = wrapFetchWithPayment(compactFallback(wallet), registerPrivStark(new x402Client(), wallet));
 */
export function registerPrivStark(client: x402Client, wallet: Wallet): x402Client {
  return client.register(
    wallet.network.network as `${string}:${string}`,
    new PrivStarkSchemeClient(wallet),
  );
}
