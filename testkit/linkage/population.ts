/**
 * @module The simulated population and its schedule, drawn from a seed in simulated seconds:
 * wallets that deposit (once, or more where the shape asks), sync every 30–300 s, pay a Poisson
 * number of times (mean 5) at merchants chosen uniformly, and exit what is left; ten merchants,
 * 30 % of them without a relay. The schedule is what each wallet does and when — never what the
 * operator sees, which the run produces from the real service.
 */

import { Random } from './random.js';

/** How large a population and over how long. */
export interface PopulationShape {
  readonly wallets: number;
  readonly merchants: number;
  /** Share of merchants that mount no relay (0.3). */
  readonly withoutRelay: number;
  /** Mean payments per wallet (Poisson). */
  readonly meanPayments: number;
  /** Sync interval range, simulated seconds ([30, 300]). */
  readonly syncSeconds: readonly [number, number];
  /** Simulated seconds the schedule spans: its deposits, payments and (by default) exits. */
  readonly horizonSeconds: number;
  /** Simulated seconds syncs go on past the horizon, for writes still waiting for one. */
  readonly tailSeconds: number;
  readonly seed: number;
  /**
   * Deposits per simulated minute by people outside the population (the bank pays a crowd
   * wallet's tickets; none are scored), so the public log moves between any two syncs as in a
   * busy pool — where a sync's cursor and the newest checkpoint name one session. Default 0.
   */
  readonly crowdDepositsPerMinute?: number;
  /**
   * Deposits each wallet makes (default 1): the ones after the first top the wallet up at a time
   * drawn between its first deposit and the middle of the horizon, so a run of few wallets still
   * makes 2,000 deposit–exit pairs.
   */
  readonly depositsPerWallet?: number;
  /**
   * When wallets exit, as fractions of the horizon (default [0.88, 0.98]; past 1 the exits run
   * into the tail). A compressed run spreads them wider: forty exits in a tenth of a 20-minute
   * horizon at 20× are forty transitions in 6 real seconds, which starves every wallet's epoch
   * follower of the CPU (anchors two or three epochs old were measured there) — a burst the bench
   * at real time, two hundred exits over six minutes, never makes.
   */
  readonly exitWindow?: readonly [number, number];
  /**
   * Exits each wallet makes before its last (default 0): each of half its largest note, at a time
   * drawn between the middle of the horizon and the last payment's bound (0.85). A run of few
   * wallets has few exits, the rarest item, so its payment–exit AUC has the widest interval; a
   * partial exit per wallet doubles the same-wallet payment–exit pairs.
   */
  readonly partialExits?: number;
  /**
   * Share of wallets that send their writes through a proxy (`poolProxy`, the population's Tor:
   * `tor-proxy.ts`), default 0: their hand-overs at merchants without a relay, their exits and
   * their relayed deposits reach the operator from an exit, not from their own address.
   */
  readonly proxied?: number;
  /**
   * Deposits of odd amounts (default false): each a round amount plus 1–9,999 atomic units, less
   * than the price unit (a cent), a remainder no payment spends, so an exit of what is left keeps
   * it — the amount join's leak on deposit–exit pairs. A wallet that deposits round amounts, as
   * the population's others do, leaves only "the exit is at most the deposit".
   */
  readonly oddDeposits?: boolean;
}

/** The population (the bench's size; CI takes `wallets` from its own budget). */
export const POPULATION_DEFAULTS: PopulationShape = {
  wallets: 200,
  merchants: 10,
  withoutRelay: 0.3,
  meanPayments: 5,
  syncSeconds: [30, 300],
  horizonSeconds: 3600,
  tailSeconds: 300,
  seed: 25,
};

export interface PlannedMerchant {
  readonly id: number;
  readonly relay: boolean;
  /** Price of its one paid route, atomic units. */
  readonly price: bigint;
}

export interface PlannedWallet {
  readonly id: number;
  /** Atomic units deposited once, at {@link depositAt}. */
  readonly deposit: bigint;
  readonly depositAt: number;
  readonly syncEvery: number;
  /** First scheduled sync (after the deposit). */
  readonly firstSyncAt: number;
  readonly payments: readonly { readonly at: number; readonly merchant: number }[];
  /** Deposits after the first, in time order (none unless the shape asks for them). */
  readonly topUps: readonly { readonly at: number; readonly amount: bigint }[];
  /** Partial exits (half the largest note), in time order (none unless the shape asks for them). */
  readonly partialExitsAt: readonly number[];
  readonly exitAt: number;
  /** Whether its writes go through the proxy. */
  readonly proxied: boolean;
}

export interface Population {
  readonly shape: PopulationShape;
  readonly merchants: readonly PlannedMerchant[];
  readonly wallets: readonly PlannedWallet[];
  /** When the crowd deposits, simulated seconds. */
  readonly crowdDeposits: readonly number[];
}

/** Prices a merchant may charge (atomic units of a 6-decimal dollar: $0.01, $0.02, $0.05). */
const PRICES = [10_000n, 20_000n, 50_000n] as const;
/** Deposits people make: $1, $2 or $5. */
const DEPOSITS = [1_000_000n, 2_000_000n, 5_000_000n] as const;

/** How many odd remainders a deposit may carry (1 … 9,999 atomic units: less than a cent). */
const ODD_REMAINDERS = 9_999;

/** Draws a population of `shape`. */
export function drawPopulation(shape: PopulationShape): Population {
  const random = new Random(shape.seed);
  const withoutRelay = Math.round(shape.merchants * shape.withoutRelay);
  const merchants = Array.from({ length: shape.merchants }, (_, id) => ({
    id,
    relay: id >= withoutRelay,
    price: random.pick(PRICES),
  }));
  const h = shape.horizonSeconds;
  const [exitFrom, exitTo] = shape.exitWindow ?? [0.88, 0.98];
  const wallets = Array.from({ length: shape.wallets }, (_, id): PlannedWallet => {
    const depositAt = random.uniform(0, 0.15 * h);
    const syncEvery = random.uniform(shape.syncSeconds[0], shape.syncSeconds[1]);
    const count = random.poisson(shape.meanPayments);
    const first = depositAt + 0.05 * h;
    const last = 0.85 * h;
    const payments = Array.from({ length: count }, () => ({
      at: random.uniform(first, last),
      merchant: random.below(shape.merchants),
    })).sort((a, b) => a.at - b.at);
    return {
      id,
      deposit: random.pick(DEPOSITS),
      depositAt,
      syncEvery,
      firstSyncAt: depositAt + random.uniform(0, syncEvery),
      payments,
      topUps: [],
      partialExitsAt: [],
      proxied: false,
      exitAt: random.uniform(exitFrom * h, exitTo * h),
    };
  });
  // Drawn after the wallets, so a shape without a crowd draws the same population as before.
  const crowdDeposits: number[] = [];
  const rate = (shape.crowdDepositsPerMinute ?? 0) / 60;
  if (rate > 0)
    for (let t = random.exponential(1 / rate); t < h; t += random.exponential(1 / rate))
      crowdDeposits.push(t);
  // Drawn last too, so a shape of one deposit a wallet draws the same population as before.
  const withTopUps = wallets.map((wallet) => ({
    ...wallet,
    topUps: Array.from({ length: (shape.depositsPerWallet ?? 1) - 1 }, () => ({
      at: random.uniform(wallet.depositAt, 0.5 * h),
      amount: random.pick(DEPOSITS),
    })).sort((a, b) => a.at - b.at),
  }));
  // And the partial exits after them, for the same reason.
  const withPartialExits = withTopUps.map((wallet) => ({
    ...wallet,
    partialExitsAt: Array.from({ length: shape.partialExits ?? 0 }, () =>
      random.uniform(0.5 * h, 0.85 * h),
    ).sort((a, b) => a - b),
  }));
  // And which wallets use the proxy, last of all.
  const withProxies = withPartialExits.map((wallet) => ({
    ...wallet,
    proxied: (shape.proxied ?? 0) > 0 && random.uniform(0, 1) < (shape.proxied ?? 0),
  }));
  // And the odd remainders of deposits after everything, so every other shape draws as before.
  const odd = () => 1n + BigInt(random.below(ODD_REMAINDERS));
  const withAmounts = shape.oddDeposits
    ? withProxies.map((wallet) => ({
        ...wallet,
        deposit: wallet.deposit + odd(),
        topUps: wallet.topUps.map((t) => ({ ...t, amount: t.amount + odd() })),
      }))
    : withProxies;
  return { shape, merchants, wallets: withAmounts, crowdDeposits };
}
