/**
 * @module The `priv-stark/v1` scheme for `@x402/core`'s `x402ResourceServer` (the merchant side):
 * prices in the network's one asset, and the `upfront` flow by default — the resource server
 * settles before the handler runs, since spending the nullifier *is* the payment. `authorization`
 * (verify, handler, settle) stays available per route through `extra.paymentFlow`.
 */

import type {
  AssetAmount,
  Network,
  PaymentRequirements,
  Price,
  SchemeNetworkServer,
  SupportedKind,
} from '@x402/core/types';

import { isAmount, NETWORKS, type NetworkProfile, SCHEME } from '../scheme/index.js';

/** Converts a decimal amount of whole units to atomic units, refusing more digits than `decimals`. */
export function toAtomic(decimal: string, decimals: number): string {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(decimal);
  if (!match)
    throw new RangeError(`price ${JSON.stringify(decimal.slice(0, 40))} is not a decimal amount`);
  const whole = match[1]!;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals)
    throw new RangeError(`price ${decimal} has more than ${decimals} decimals`);
  const atomic =
    BigInt(whole) * 10n ** BigInt(decimals) + BigInt((fraction || '0').padEnd(decimals, '0'));
  const text = atomic.toString();
  if (!isAmount(text))
    throw new RangeError(`price ${decimal} is outside 0 < amount < 2^62 atomic units`);
  return text;
}

/**
 * The scheme server.
 * @example
 * const server = new x402ResourceServer(facilitatorClient).register('shielded:devnet', new PrivStarkSchemeServer());
 */
export class PrivStarkSchemeServer implements SchemeNetworkServer {
  readonly scheme = SCHEME;
  readonly defaultAssetTransferMethod = 'default';
  readonly paymentFlows = {
    default: { supported: ['upfront', 'authorization'], default: 'upfront' },
  } as const;
  private readonly networks: readonly NetworkProfile[];

  constructor(options: { networks?: readonly NetworkProfile[] } = {}) {
    this.networks = options.networks ?? NETWORKS;
  }

  private profile(network: string): NetworkProfile {
    const profile = this.networks.find((n) => n.network === network);
    if (!profile) throw new Error(`${SCHEME}: unknown network ${network}`);
    return profile;
  }

  /**
   * `"$0.01"`, `"0.01"`, `0.01` or `"0.01 dUSD"` in whole units of the network's asset, or
   * `{ asset, amount }` in atomic units (the asset must be the network's).
   */
  async parsePrice(price: Price, network: Network): Promise<AssetAmount> {
    const profile = this.profile(network);
    if (typeof price === 'object' && price !== null) {
      if (price.asset !== profile.asset)
        throw new Error(
          `${SCHEME}: ${network} has one asset, ${profile.asset}, not ${price.asset}`,
        );
      if (!isAmount(price.amount))
        throw new RangeError(`${SCHEME}: amount must be decimal atomic units, 0 < amount < 2^62`);
      return {
        asset: profile.asset,
        amount: price.amount,
        ...(price.extra ? { extra: price.extra } : {}),
      };
    }
    let text = String(price).trim();
    if (text.startsWith('$')) text = text.slice(1);
    const suffix = ` ${profile.asset}`;
    if (text.endsWith(suffix)) text = text.slice(0, -suffix.length);
    return { asset: profile.asset, amount: toAtomic(text, profile.decimals) };
  }

  getAssetDecimals(asset: string, network: Network): number | undefined {
    const profile = this.networks.find((n) => n.network === network);
    return profile && profile.asset === asset ? profile.decimals : undefined;
  }

  async enhancePaymentRequirements(
    requirements: PaymentRequirements,
    _kind: SupportedKind,
    _extensions: string[],
  ): Promise<PaymentRequirements> {
    const profile = this.profile(requirements.network);
    if (requirements.asset !== profile.asset)
      throw new Error(`${SCHEME}: ${requirements.network} has one asset, ${profile.asset}`);
    return requirements;
  }
}
