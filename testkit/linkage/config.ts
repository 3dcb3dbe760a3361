/**
 * @module The switches of a linkage run: the default configuration (whatever the product does by
 * default when the run starts) and each leak the must-fail twins re-enable, one at a time, and the
 * time compression. A leak the product keeps no switch for is re-enacted by the harness and says
 * so (exact cursors, millisecond public times).
 */

/** One run's configuration. */
export interface LinkageConfig {
  /** A short name for reports. */
  readonly name: string;
  /**
   * `default`: merchants as the product sets them up (with a relay where the plan says so);
   * `direct`: no merchant mounts a relay or takes inline proofs, so every hand-over goes to the
   * pool node from the wallet itself (the leak of issue 25, item 1).
   */
  readonly handOvers: 'default' | 'direct';
  /**
   * `default`: the wallet's own behaviour; `sync-before-write`: the wallet syncs right before each
   * payment and exit and at no other time, as the one-shot CLI with `--no-delay` does — a process
   * per command, so no epoch follower and no background syncs (timing join's leak).
   */
  readonly writes: 'default' | 'sync-before-write';
  /**
   * Each wallet runs the product's ready-notes keeper (three notes of the highest price):
   * `product` with its default options; `transparent` with its explicit `transparent: true` —
   * splits by transfers to the wallet's own address, amount and address in the open, on the
   * keeper's Poisson schedule; `refill-after-payment`: no keeper, but right after each payment the
   * wallet syncs and tops up by the same transparent splits (`planSplits`, `wallet.splitNote`), as
   * the keeper did before its rounds ran on their own schedule (the leak of issue 25, item 3) —
   * and, as that keeper did, also right after the deposit (the first splits, once the deposit is
   * in a checkpoint) and with no minimum note age (`notes: { spendNow: true }`), which came with
   * its Poisson schedule; `off`: no keeper.
   */
  readonly keeper: 'product' | 'transparent' | 'refill-after-payment' | 'off';
  /**
   * `default`: the product's anchors (the epoch grid, compressed, where the service has one);
   * `last-sync`: no grid (`epoch` E = 1 ms, D = 0 — a checkpoint whenever the timer asks, and the
   * wallet anchors to the newest it synced: the leak of issue 25, item 2).
   */
  readonly anchors: 'default' | 'last-sync';
  /**
   * `default`: the wallet's own sync (fixed pages, the same URLs for every wallet); `exact-cursors`:
   * after each sync the wallet also reads the events by exact cursor from where its last read
   * ended, as wallets did before fixed pages (the pool node still answers `?after=` for them) — the
   * cursor chain's leak (issue 25, item 4), re-enacted with the pool node's own client from the
   * wallet's address since the product's wallet no longer reads that way.
   */
  readonly reads: 'default' | 'exact-cursors';
  /**
   * `per-wallet`: each wallet on one loopback address for the whole run (one machine per wallet);
   * `per-session`: a fresh address at each of the wallet's scheduled syncs, kept by its reads and
   * writes until the next (a wallet behind a proxy that changes circuit per session, or a phone
   * that changes network) — where the address joins one session only and what chains sessions
   * (exact cursors) shows.
   */
  readonly addresses: 'per-wallet' | 'per-session';
  /**
   * Where the money comes from and goes: `operator`, the devnet pool — a bank pays each wallet's
   * deposit ticket in with the operator's token, from the bank's address, and exits are recorded
   * only; `chain`, the pool backed by an escrow on a local chain — each wallet's own EVM account
   * (test USDC, no ETH) deposits by signature through the pool's relayer, from the wallet's
   * address, the watcher shields it, and exits are paid out on chain to an account of the
   * wallet's own (`chain-pool.ts`).
   */
  readonly deposits: 'operator' | 'chain';
  /**
   * `default`: a note whose nullifier a payment that did not settle showed is refreshed by a private
   * transition before it pays again (the wallet's rule); `spend-shown`: it pays again at once with
   * the same nullifier (`notes: { spendShown: true }`) — the re-shown nullifier's leak (issue 25,
   * item 4).
   */
  readonly notes: 'default' | 'spend-shown';
  /**
   * `accepted`: the pool node takes wallets' writes under its default per-client limit;
   * `refused`: it takes none straight from a wallet (that limit at 0) — a payment at a merchant
   * without a relay is refused after its hand-over showed the nullifier, and the wallet pays at a
   * merchant with a relay instead. Not a leak: where refused payments come from, for the re-shown
   * nullifier's twin (a loaded or strict pool node refuses some in earnest).
   */
  readonly directWrites: 'accepted' | 'refused';
  /**
   * The public log's event times as a network observer reads them: `checkpoint`, each event at the
   * time of the checkpoint that published it, as the pool publishes them; `arrival`, each at its
   * arrival in milliseconds, as the pool published them before issue 25 (the millisecond-times
   * leak, item 4). Re-enacted in the measure from the arrival times the database holds — the pool
   * keeps no switch back — so one run's traffic is measured both ways; the traffic does not read
   * them, but for a note's minimum age, counted from its public time (up to an epoch earlier with
   * arrival times). Absent in files written before it: `checkpoint`.
   */
  readonly publicTimes?: 'checkpoint' | 'arrival';
  /** Simulated seconds per real second. */
  readonly compression: number;
}

/** The default configuration: the product as it is. */
export const DEFAULT_CONFIG: LinkageConfig = {
  name: 'default',
  handOvers: 'default',
  writes: 'default',
  // A library wallet runs no keeper unless its user starts one (with the product's keeper, the
  // population paid 1 of 35 planned payments in a measured run: docs/privacy.md).
  keeper: 'off',
  anchors: 'default',
  reads: 'default',
  addresses: 'per-wallet',
  deposits: 'chain',
  notes: 'default',
  directWrites: 'accepted',
  publicTimes: 'checkpoint',
  compression: 40,
};
