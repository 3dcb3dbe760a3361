/**
 * @module The `priv-stark/v1` scheme for `@x402/core`'s `x402ResourceServer` (the merchant side):
 * prices in the network's one asset, and the `upfront` flow by default — the resource server
 * settles before the handler runs, since spending the nullifier *is* the payment. `authorization`
 * (verify, handler, settle) stays available per route through `extra.paymentFlow`.
 *
 * A pool backed by an escrow on a chain (a network profile with `chain`, `chainNetworkProfile`)
 * names its chain id, escrow and token in `extra.chain`.
 *
 * It also says how payments may carry their proof (`extra.proofTransports`, outside the proof's
 * context digest): the transports the merchant takes, in its order of preference, that its
 * facilitator supports. By default only `reference` (compact payments: a header of about 2 KB that
 * stock servers and proxies pass); a merchant whose server and proxies take large headers may add
 * `inline`, first if it prefers it. Where compact payments are taken it advertises the merchant's
 * hand-over relay (`extra.handOverRelay`, a path on its own origin: `relay.ts`), so the proof
 * reaches the pool node from the merchant, not from the payer's address.
 */

import type {
  AssetAmount,
  Network,
  PaymentRequirements,
  Price,
  SchemeNetworkServer,
  SupportedKind,
} from '@x402/core/types';

import {
  isAmount,
  NETWORKS,
  type NetworkProfile,
  PROOF_TRANSPORTS,
  type ProofTransport,
  SCHEME,
} from '../scheme/index.js';
import { PRIV_STARK_RELAY_PATH } from './relay.js';

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
  private readonly proofTransports: readonly ProofTransport[];
  private readonly handOverRelay: string | null;

  /**
   * @param options.networks the networks it prices in (default the profile's)
   * @param options.proofTransports what the merchant takes, preferred first (default
   *   `['reference']`; `['inline', 'reference']` for a merchant that takes large headers and
   *   prefers them)
   * @param options.handOverRelay the path of the merchant's hand-over relay that wallets paying
   *   compactly give their proof to (default {@link PRIV_STARK_RELAY_PATH}, which
   *   `privStarkFastify` mounts; `false` advertises none). A path only: wallets use it on the
   *   origin they pay, and one that finds nothing there pays inline or hands over otherwise.
   */
  constructor(
    options: {
      networks?: readonly NetworkProfile[];
      proofTransports?: readonly ProofTransport[];
      handOverRelay?: string | false;
    } = {},
  ) {
    this.networks = options.networks ?? NETWORKS;
    const relay = options.handOverRelay ?? PRIV_STARK_RELAY_PATH;
    if (relay !== false && !/^\/(?![/\\])[\x21-\x7e]{0,255}$/.test(relay))
      throw new RangeError(
        `"handOverRelay" expected a path on the merchant's own origin ("/…"), got ${JSON.stringify(relay).slice(0, 80)}`,
      );
    this.handOverRelay = relay === false ? null : relay;
    const transports = options.proofTransports ?? ['reference'];
    if (
      transports.length === 0 ||
      transports.some((t) => !PROOF_TRANSPORTS.includes(t)) ||
      new Set(transports).size !== transports.length
    ) {
      throw new RangeError(
        `"proofTransports" expected distinct values of ${PROOF_TRANSPORTS.join(', ')}, got ${JSON.stringify(transports).slice(0, 80)}`,
      );
    }
    this.proofTransports = transports;
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
    kind: SupportedKind,
    _extensions: string[],
  ): Promise<PaymentRequirements> {
    const profile = this.profile(requirements.network);
    if (requirements.asset !== profile.asset)
      throw new Error(`${SCHEME}: ${requirements.network} has one asset, ${profile.asset}`);
    // What the facilitator takes (one from before compact payments: inline only), in the
    // merchant's order.
    const offered = kind.extra?.proofTransports;
    const supported = Array.isArray(offered) ? offered : ['inline'];
    const proofTransports = this.proofTransports.filter((t) => supported.includes(t));
    if (proofTransports.length === 0) {
      throw new Error(
        `${SCHEME}: the facilitator takes ${supported.join(', ') || 'no'} proof transport, the merchant ${this.proofTransports.join(', ')}`,
      );
    }
    // A chain pool's requirements name what backs it, so an agent can check it before paying.
    const chain = profile.chain && { ...profile.chain };
    return {
      ...requirements,
      extra: {
        ...requirements.extra,
        proofTransports,
        // The relay only matters to a compact payment (the hand-over).
        ...(this.handOverRelay !== null && proofTransports.includes('reference')
          ? { handOverRelay: this.handOverRelay }
          : {}),
        ...(chain ? { chain } : {}),
      },
    };
  }
}
