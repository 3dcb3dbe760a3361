/**
 * @module One simulated wallet: a real `Wallet` of `src/client` doing what its plan says, from
 * its own loopback address — its deposit (the ticket paid in by the bank, from the bank's
 * address), its syncs on its own schedule, its payments through the stock `@x402/fetch` at the
 * merchants, its exit of what is left. A write the wallet answers "not now" (nothing spendable
 * yet: the change not in a synced checkpoint, a note younger than its minimum age, a note to
 * refresh first) waits for the wallet's next scheduled sync and is made a random while after it
 * (the wallet does not sync for it), unless the configuration makes the wallet sync right before
 * each write.
 */

import { getAddress } from 'viem';

import { payingFetch, ReadyNotesKeeper, type Wallet } from '../../src/client/index.js';
import type { PoolNodeClient } from '../../src/pool-node/index.js';
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
  exited: boolean;
}

/** The parts a wallet actor acts on. */
export interface ActorWorld {
  readonly merchants: readonly RunningMerchant[];
  readonly prices: readonly bigint[];
  /** The bank's client of the pool node (operator token), used from the bank's address. */
  readonly bank: PoolNodeClient;
  readonly bankAddress: string;
  readonly config: LinkageConfig;
  readonly random: Random;
}

/** A CAIP-10 destination of the wallet's own (one EVM account per wallet). */
export function destinationOf(id: number): string {
  return `eip155:8453:${getAddress(`0x${(0xa11ce000 + id).toString(16).padStart(40, '0')}`)}`;
}

export class WalletActor {
  readonly log: ActorLog = { paid: 0, deferred: 0, waitedFor: {}, failed: [], exited: false };
  private readonly waiting: (() => Promise<void>)[] = [];
  /** The wallet's writes, one at a time (a person's wallet does not race itself). */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    readonly plan: PlannedWallet,
    readonly address: string,
    readonly wallet: Wallet,
    private readonly world: ActorWorld,
  ) {}

  private act<T>(work: () => Promise<T>): Promise<T> {
    return withSourceAddress(this.address, work);
  }

  private fail(what: string, error: unknown): void {
    this.log.failed.push(
      `${what}: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`,
    );
  }

  private keeper: ReadyNotesKeeper | null = null;

  /** Starts the product's ready-notes keeper, if the configuration runs one (from the wallet's address). */
  startKeeper(): void {
    if (this.world.config.keeper === 'off') return;
    let value = 0n;
    for (const price of this.world.prices) if (price > value) value = price;
    const keeper = new ReadyNotesKeeper(
      this.wallet,
      { count: 3, value },
      {
        ...(this.world.config.keeper === 'transparent' ? { transparent: true } : {}),
        onError: (error) => this.fail('keeper', error),
      },
    );
    this.keeper = keeper;
    withSourceAddress(this.address, () => keeper.start());
  }

  /** Stops the keeper after its round under way. */
  async stopKeeper(): Promise<void> {
    await this.keeper?.stop();
  }

  /** The bank pays the wallet's ticket in (the wallet only makes the ticket, offline). */
  async deposit(): Promise<void> {
    try {
      const ticket = await this.wallet.depositTicket(String(this.plan.deposit));
      await withSourceAddress(this.world.bankAddress, () =>
        this.world.bank.deposit(ticket.amount, ticket.pre),
      );
    } catch (error) {
      this.fail('deposit', error);
    }
  }

  /** A scheduled sync; it answers the writes that waited for it, to be made a while after. */
  async sync(): Promise<(() => Promise<void>)[]> {
    try {
      await this.act(() => this.wallet.sync());
    } catch (error) {
      this.fail('sync', error);
    }
    return this.waiting.splice(0);
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
      const response = await this.act(() => payingFetch(this.wallet)(`${merchant.url}/item`));
      await response.arrayBuffer();
      if (response.status === 200) this.log.paid++;
      else this.fail('pay', new Error(`status ${response.status}`));
    } catch (error) {
      if (!this.notYet(error)) return this.fail('pay', error);
      this.log.deferred++;
      this.waiting.push(() => this.pay(m));
    }
  }

  /** The wallet's own "not now": nothing spendable yet (change not in a synced checkpoint, a note too young). */
  private notYet(error: unknown): boolean {
    const text =
      error instanceof Error
        ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`
        : '';
    const reason =
      /insufficient funds|not in a checkpoint|no checkpoint|too young|younger than|needs_refresh/i.exec(
        text,
      )?.[0];
    if (reason !== undefined) this.log.waitedFor[reason] = (this.log.waitedFor[reason] ?? 0) + 1;
    return reason !== undefined;
  }

  /** Exits the largest spendable note whole to the wallet's own account (else after the next sync). */
  exit(): Promise<void> {
    return this.queued(() => this.exitNow());
  }

  private async exitNow(): Promise<void> {
    try {
      if (this.world.config.writes === 'sync-before-write')
        await this.act(() => this.wallet.sync());
      const anchored = this.wallet.checkpoint?.size ?? 0;
      const locked = this.wallet.lockedNotes();
      const note = this.wallet
        .notes()
        .filter((n) => !n.spent && n.index < anchored && !locked.has(n.commitment))
        .sort((a, b) => Number(BigInt(b.value) - BigInt(a.value)))[0];
      if (note === undefined) {
        this.log.deferred++;
        this.waiting.push(() => this.exit());
        return;
      }
      await this.act(() =>
        this.wallet.exit(destinationOf(this.plan.id), note.value, { note: note.commitment }),
      );
      this.log.exited = true;
    } catch (error) {
      if (!this.notYet(error)) return this.fail('exit', error);
      this.log.deferred++;
      this.waiting.push(() => this.exit());
    }
  }
}
