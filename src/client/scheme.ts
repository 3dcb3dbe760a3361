/**
 * @module The `priv-stark/v1` scheme for `@x402/core`'s `x402Client`: it builds the payload with a
 * {@link Wallet} and tells x402's spend controls what the asset is (`findDefaultAsset`: the
 * network's one asset and its decimals), so the stock caps apply instead of being switched off.
 */

import type { PaymentCreationContext } from '@x402/core/client';
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

  /** The URL each selected requirements object is being paid for (x402's hook sees it first). */
  private readonly resources = new WeakMap<object, string>();

  /**
   * x402's hook before the payload is built: it remembers the resource's URL, so the wallet can
   * hand the proof over through that origin's relay (older x402 clients without scheme hooks pay
   * without it).
   */
  readonly schemeHooks = {
    onBeforePaymentCreation: async (context: PaymentCreationContext): Promise<void> => {
      const url = context.paymentRequired.resource?.url;
      if (typeof url === 'string') this.resources.set(context.selectedRequirements, url);
    },
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
        resourceUrl: this.resources.get(requirements),
      },
    );
    return { x402Version, payload: { ...payload } };
  }
}

/**
 * What {@link registerPrivStark} needs of an x402 client: `register(network, schemeClient)`. The
 * stock `x402Client` of every tested `@x402/core` has it — 2.27 (this package's, `@x402/fetch`),
 * 2.25 and 2.11 (`@x402/axios` 2.11 brings its own): their `SchemeNetworkClient` is the same shape
 * (`createPaymentPayload(x402Version, requirements, context?)` → `{ x402Version, payload }`),
 * so the scheme client goes into the client of whichever version the caller's wrapper uses,
 * never a 2.27 class into an older wrapper (docs/ecosystem.md).
 */
export interface SchemeClientRegistry {
  register(network: `${string}:${string}`, client: PrivStarkSchemeClient): unknown;
}

/**
 * Registers the scheme for the wallet's network on an `x402Client` (of any tested `@x402/core`):
 * its payments are compact where the merchant lists `reference`. The fallback of an inline payment
 * refused for its size needs the response's status, which x402's hooks do not see: give the stock
 * wrapper `compactFallback(wallet)` as its fetch (`payingFetch` does both).
 * @returns the same client, for chaining
 * @example
 * import { wrapAxiosWithPayment, x402Client } from '@x402/axios'; // its own @x402/core 2.11
 * const api = wrapAxiosWithPayment(axios.create(), registerPrivStark(new x402Client(), wallet));
 */
export function registerPrivStark<Client extends SchemeClientRegistry>(
  client: Client,
  wallet: Wallet,
): Client {
  client.register(
    wallet.network.network as `${string}:${string}`,
    new PrivStarkSchemeClient(wallet),
  );
  return client;
}
