/**
 * @module One simulated wallet: a real `Wallet` of `src/client` doing what its plan says, from
 * its own loopback address — its deposit (the ticket paid in by the bank, from the bank's
 * address), its syncs on its own schedule, its payments through the stock `@x402/fetch` at the
 * merchants, its exit of what is left (and, where the plan says so, of half a note before that).
 * A write the wallet answers "not now" (nothing spendable yet: the change not in a synced
 * checkpoint, a note younger than its minimum age, a note to refresh first) is tried again at a
 * random time one to two epochs later, as the one-shot CLI waits before a write (the wallet does
 * not sync for it: its epoch follower keeps its state current), unless the configuration makes
 * the wallet sync right before each write. A payment the
 * pool node refused after its hand-over left is made at once at a merchant with a relay; a note
 * such a refusal showed is refreshed first, as the wallet's `note_needs_refresh` asks, unless the
 * configuration spends it as it is.
 */

import { getAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

import { depositBySignature } from '../../src/client/chain.js';
import {
  type DepositTicket,
  type EpochFollower,
  followEpochs,
  payingFetch,
  planSplits,
  ReadyNotesKeeper,
  type Wallet,
} from '../../src/client/index.js';
import { type WalletView, walletView } from '../../src/client/ready-notes.js';
import type { PoolNodeClient } from '../../src/pool-node/index.js';
import { type LinkageChain, RELAYER_FEE } from './chain-pool.js';
import type { LinkageConfig } from './config.js';
import type { RunningMerchant } from './merchants.js';
import type { PlannedWallet } from './population.js';
import type { Random } from './random.js';
import { withSourceAddress } from './source-address.js';

/** What a wallet actor did, for the run's report. */
export interface ActorLog {
  paid: number;
  deferred: number;
  /** Why writes waited: the wallet's own reason, by count. */
  waitedFor: Record<string, number>;
  failed: string[];
  /** Payments the pool node refused after their hand-over left (each made again elsewhere). */
  refused: number;
  /** Exits made: partial ones, then the last of what is left. */
  exits: number;
  /** Whether the last exit (of what is left) went through. */
  exited: boolean;
}

/** The parts a wallet actor acts on. */
export interface ActorWorld {
  readonly merchants: readonly RunningMerchant[];
  readonly prices: readonly bigint[];
  /** The bank's client of the pool node (operator token), used from the bank's address. */
  readonly bank: PoolNodeClient;
  readonly bankAddress: string;
  /** The chain, when deposits and exits are on chain. */
  readonly chain?: LinkageChain | undefined;
  /** A client of the pool node without credentials, for reads a wallet makes by hand. */
  readonly reader: PoolNodeClient;
  readonly config: LinkageConfig;
  readonly random: Random;
}

/** How often, and how far apart (real ms), a refill after a payment waits for its note's checkpoint. */
const REFILL_TRIES = 4;
const REFILL_RETRY_MS = 300;

/** An error's message and its cause's, as the stock client wraps the wallet's. */
function messageOf(error: unknown): string {
  return error instanceof Error
    ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`
    : '';
}

/** Whether a payment failed because the pool node refused its hand-over (after it left). */
function refusedByPoolNode(error: unknown): boolean {
  return /too many requests, retry later/.test(messageOf(error));
}

/** A cent of a 6-decimal dollar: partial exits are of whole cents. */
const CENT = 10_000n;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The largest unspent note in the anchored tree, not locked, worth at least `atLeast`. */
function largestSpendable(view: WalletView, atLeast = 0n): WalletView['notes'][number] | undefined {
  return view.notes
    .filter(
      (n) =>
        !n.spent &&
        n.index < view.anchoredSize &&
        !view.locked.has(n.commitment) &&
        BigInt(n.value) >= atLeast,
    )
    .sort((a, b) => Number(BigInt(b.value) - BigInt(a.value)))[0];
}

/**
 * A CAIP-10 destination of the wallet's own (one EVM account per wallet, not the one it deposited
 * from), on `chainId` (the devnet pool records Base's).
 */
export function destinationOf(id: number, chainId = 8453): string {
  return `eip155:${chainId}:${getAddress(`0x${(0xa11ce000 + id).toString(16).padStart(40, '0')}`)}`;
}

export class WalletActor {
  readonly log: ActorLog = {
    paid: 0,
    deferred: 0,
    waitedFor: {},
    failed: [],
    refused: 0,
    exits: 0,
    exited: false,
  };
  /** Schedules a write the wallet answered "not now" to be tried again later (set by the run). */
  retryLater: (write: () => Promise<void>) => void = () => undefined;
  /** The wallet's writes, one at a time (a person's wallet does not race itself). */
  private writes: Promise<void> = Promise.resolve();

  /** The wallet's session: a new one at each scheduled sync (its address moves with it, if so set). */
  private session = 0;
  /** Every address the wallet's connections came from, for the ground truth. */
  readonly addresses = new Set<string>();

  constructor(
    readonly plan: PlannedWallet,
    /** The address of the wallet's session `s` (the same for every `s` unless sessions move it). */
    private readonly addressOf: (session: number) => string,
    readonly wallet: Wallet,
    private readonly world: ActorWorld,
  ) {
    this.addresses.add(addressOf(0));
  }

  /** Where the wallet's connections come from now. */
  get address(): string {
    return this.addressOf(this.session);
  }

  /** The next session: a scheduled sync begins it. */
  private nextSession(): void {
    this.session++;
    this.addresses.add(this.address);
  }

  private act<T>(work: () => Promise<T>): Promise<T> {
    return withSourceAddress(() => this.address, work);
  }

  private fail(what: string, error: unknown): void {
    this.log.failed.push(
      `${what}: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`,
    );
  }

  private keeper: ReadyNotesKeeper | null = null;
  private follower: EpochFollower | null = null;
  /** The wallet's paying fetch, made once the wallet is funded (from the wallet's address). */
  private paying: typeof fetch | null = null;

  /**
   * Once funded: the wallet's paying fetch, which starts its epoch follower as `payingFetch` does
   * by default (its timers run in the wallet's address context) — none for a wallet that syncs
   * right before each write, as the one-shot CLI — and the product's ready-notes keeper if the
   * configuration runs one.
   */
  start(): void {
    withSourceAddress(
      () => this.address,
      () => {
        // The one-shot CLI runs for one command: no follower between its writes.
        if (this.world.config.writes === 'sync-before-write')
          this.paying = payingFetch(this.wallet, { followEpochs: false });
        else {
          this.paying = payingFetch(this.wallet);
          this.follower = followEpochs(this.wallet);
        }
      },
    );
    this.startKeeper();
    if (this.world.config.keeper === 'refill-after-payment') void this.firstSplits();
  }

  /** The first splits, among the wallet's writes (tried again later until the deposit is in a checkpoint). */
  private firstSplits(): Promise<void> {
    return this.queued(async () => {
      const split = await this.refill(1);
      const view = this.view();
      if (split === 0 && !view.notes.some((n) => !n.spent && n.index < view.anchoredSize))
        this.retryLater(() => this.firstSplits());
    });
  }

  private startKeeper(): void {
    if (this.world.config.keeper === 'off' || this.world.config.keeper === 'refill-after-payment')
      return;
    const keeper = new ReadyNotesKeeper(this.wallet, this.readyTarget(), {
      ...(this.world.config.keeper === 'transparent' ? { transparent: true } : {}),
      onError: (error) => this.fail('keeper', error),
    });
    this.keeper = keeper;
    withSourceAddress(
      () => this.address,
      () => keeper.start(),
    );
  }

  /** What a keeper keeps: three notes of the highest price. */
  private readyTarget(): { count: number; value: bigint } {
    let value = 0n;
    for (const price of this.world.prices) if (price > value) value = price;
    return { count: 3, value };
  }

  /**
   * `refill-after-payment`: right after a payment, a top-up of exactly one ready note's value,
   * split in the open from the largest note that holds two, within about a second, as the old
   * keeper did: while nothing can be split yet (the payment's settlement and change not yet in a
   * checkpoint), sync again a little later, {@link REFILL_TRIES} times at most.
   */
  private refillAfterPayment(): Promise<number> {
    return this.refill(REFILL_TRIES, 'top-up');
  }

  /**
   * Syncs and splits — what the keeper's plan wants (`plan`), or one ready note's value (`top-up`)
   * — trying `tries` times; returns the number of splits.
   */
  private async refill(tries: number, what: 'plan' | 'top-up' = 'plan'): Promise<number> {
    if (this.world.config.keeper !== 'refill-after-payment') return 0;
    try {
      return await this.act(async () => {
        for (let attempt = 1; ; attempt++) {
          await this.wallet.sync();
          const view = this.view();
          const plans = what === 'plan' ? planSplits(view, this.readyTarget()) : this.topUp(view);
          for (const plan of plans) await this.wallet.splitNote(plan.note, plan.amount);
          if (plans.length > 0 || attempt >= tries) return plans.length;
          await sleep(REFILL_RETRY_MS);
        }
      });
    } catch (error) {
      if (!this.notYet(error)) this.fail('refill', error);
      return 0;
    }
  }

  /** One split of a ready note's value from the largest spendable note holding two. */
  private topUp(view: WalletView): { note: string; amount: bigint }[] {
    const value = this.readyTarget().value;
    const note = largestSpendable(view, 2n * value);
    return note === undefined ? [] : [{ note: note.commitment, amount: value }];
  }

  /** The wallet's notes as the split planner reads them. */
  private view(): WalletView {
    return walletView(this.wallet);
  }

  /**
   * Whether the wallet syncs on its own schedule between writes: not when it syncs right before
   * each write (the one-shot CLI with `--no-delay`, a process per command).
   */
  syncsInBackground(): boolean {
    return this.world.config.writes !== 'sync-before-write';
  }

  /** Stops the keeper and the epoch follower after what they have under way. */
  async stop(): Promise<void> {
    await this.keeper?.stop();
    await this.follower?.stop();
  }

  /**
   * The devnet pool: the bank pays the wallet's ticket in (the wallet only makes the ticket,
   * offline). On chain: the wallet's own EVM account, funded with test USDC, deposits by signature
   * through the pool's relayer — the wallet sends it, from its address. `which`: 0 the first
   * deposit, 1… its top-ups.
   */
  async deposit(which = 0): Promise<void> {
    const amount = which === 0 ? this.plan.deposit : this.plan.topUps[which - 1]!.amount;
    try {
      const chain = this.world.chain;
      if (chain !== undefined) {
        let onChain = this.onChain.get(which);
        if (onChain === undefined) {
          onChain = {
            account: await chain.depositor(amount),
            ticket: await this.act(() => this.wallet.depositTicket(String(amount))),
          };
          this.onChain.set(which, onChain);
        }
        const { account, ticket } = onChain;
        await this.act(() =>
          depositBySignature(this.wallet, {
            account,
            rpc: chain.rpcUrl,
            amount,
            ticket,
            maxFee: RELAYER_FEE,
          }),
        );
        return;
      }
      const ticket = await this.act(() => this.wallet.depositTicket(String(amount)));
      await withSourceAddress(this.world.bankAddress, () =>
        this.world.bank.deposit(ticket.amount, ticket.pre),
      );
    } catch (error) {
      // The relayer's "retry later" (relay_unavailable) is tried again, with the same ticket.
      if (!/retry later/i.test(error instanceof Error ? error.message : '')) {
        this.fail('deposit', error);
        return;
      }
      this.log.deferred++;
      this.log.waitedFor.relay_unavailable = (this.log.waitedFor.relay_unavailable ?? 0) + 1;
      this.retryLater(() => this.deposit(which));
    }
  }

  /**
   * The account and ticket of each of the wallet's deposits on chain (0: the first, then its
   * top-ups), kept for a retry. Each deposit comes from an account funded for it.
   */
  private readonly onChain = new Map<
    number,
    { readonly account: PrivateKeyAccount; readonly ticket: DepositTicket }
  >();

  /** Where this wallet's last read by exact cursor ended (`exact-cursors` only). */
  private eventCursor = 0;

  /** The wallet's reads by exact cursor, one at a time (a wallet does not race its own cursor). */
  private cursorReads: Promise<void> = Promise.resolve();

  /**
   * A scheduled sync: it begins the wallet's next session, whose reads come from the session's own
   * address even when they finish after the next session has begun.
   */
  async sync(): Promise<void> {
    this.nextSession();
    const address = this.address;
    try {
      await withSourceAddress(address, () => this.wallet.sync());
      if (this.world.config.reads === 'exact-cursors') {
        const read = this.cursorReads.then(() =>
          withSourceAddress(address, () => this.readByCursor()),
        );
        this.cursorReads = read.catch(() => undefined);
        await read;
      }
    } catch (error) {
      this.fail('sync', error);
    }
  }

  /**
   * The events read by exact cursor as wallets read them before fixed pages: the head first, then
   * from where the last read ended up to the head's end, a page (at most 1,000) at a time, each
   * read asking for exactly what is left (`?after=c&limit=n`).
   */
  private async readByCursor(): Promise<void> {
    const end = (await this.world.reader.state()).events;
    while (this.eventCursor < end) {
      const limit = Math.min(1000, end - this.eventCursor);
      const page = await this.world.reader.events(this.eventCursor, limit);
      if (page.events.length === 0 || page.next <= this.eventCursor) return;
      this.eventCursor = page.next;
    }
  }

  /** Runs `write` after the wallet's writes before it. */
  private queued(write: () => Promise<void>): Promise<void> {
    const next = this.writes.then(write);
    this.writes = next.catch(() => undefined);
    return next;
  }

  /** Pays merchant `m`, or waits for the next sync when nothing is spendable. */
  pay(m: number): Promise<void> {
    return this.queued(() => this.payNow(m));
  }

  private async payNow(m: number): Promise<void> {
    const merchant = this.world.merchants[m]!;
    try {
      if (this.world.config.writes === 'sync-before-write')
        await this.act(() => this.wallet.sync());
      const pay = this.paying ?? payingFetch(this.wallet);
      const response = await this.act(() => pay(`${merchant.url}/item`));
      await response.arrayBuffer();
      if (response.status === 200) {
        this.log.paid++;
        await this.refillAfterPayment();
      } else this.fail('pay', new Error(`status ${response.status}`));
    } catch (error) {
      if (refusedByPoolNode(error)) {
        // Refused after its hand-over left: the buyer buys at once at a merchant with a relay
        // instead (one refused there too fails: there is nowhere else to go).
        this.log.refused++;
        const relays = this.world.merchants.filter((r) => r.relay);
        if (relays.length === 0 || merchant.relay) return this.fail('pay', error);
        return this.payNow(relays[this.world.random.below(relays.length)]!.id);
      }
      if (!this.notYet(error)) return this.fail('pay', error);
      // A note a refused payment showed: refreshed as the wallet's error says, then paid again.
      if (/needs_refresh|refreshes them/.test(messageOf(error)))
        await this.act(() => this.wallet.refreshShownNotes()).catch((e) => this.fail('refresh', e));
      this.log.deferred++;
      this.retryLater(() => this.pay(m));
    }
  }

  /**
   * The wallet's own "not now": nothing spendable yet (change not in a synced checkpoint, a note too
   * young, the note in a split of the wallet's keeper under way).
   */
  private notYet(error: unknown): boolean {
    const text = messageOf(error);
    const reason =
      /insufficient funds|not in a checkpoint|no checkpoint|too young|younger than|needs_refresh|split, merge or refresh/i.exec(
        text,
      )?.[0];
    if (reason !== undefined) this.log.waitedFor[reason] = (this.log.waitedFor[reason] ?? 0) + 1;
    return reason !== undefined;
  }

  /**
   * Exits the largest spendable note to the wallet's own account (else after the next sync): all of
   * it, or half of it in whole cents (none when that is under a cent).
   */
  exit(part: 'all' | 'half'): Promise<void> {
    return this.queued(() => this.exitNow(part));
  }

  private async exitNow(part: 'all' | 'half'): Promise<void> {
    try {
      if (this.world.config.writes === 'sync-before-write')
        await this.act(() => this.wallet.sync());
      const note = largestSpendable(this.view());
      if (note === undefined) {
        this.log.deferred++;
        this.retryLater(() => this.exit(part));
        return;
      }
      const amount = part === 'all' ? BigInt(note.value) : (BigInt(note.value) / 2n / CENT) * CENT;
      if (amount === 0n) return;
      await this.act(() =>
        this.wallet.exit(destinationOf(this.plan.id, this.world.chain?.chainId), amount, {
          note: note.commitment,
        }),
      );
      this.log.exits++;
      if (part === 'all') this.log.exited = true;
    } catch (error) {
      if (!this.notYet(error)) return this.fail('exit', error);
      this.log.deferred++;
      this.retryLater(() => this.exit(part));
    }
  }
}
