/**
 * @module The deposit watcher (docs/chain.md, "The deposit watcher"): the pool node's deposit
 * source for an escrow on an EVM chain. Each poll, in order:
 *
 * 1. reads the head (and checks the RPC still serves the bound chain) and the last final block;
 * 2. compares the hashes of the blocks it acted on with the chain's (`reorg-check.ts`): a
 *    reorganisation that undid nothing shielded makes it read again from below it; one that reached
 *    a shielded deposit's acceptance stops shielding for good (`reorg_beyond_depth`);
 * 3. reads the escrow's events page by page from its cursor (`eth_getLogs` by block range, from the
 *    deployment block at first) and records each page with the cursor in one write;
 * 4. follows the acceptances it sent: one that reverted, or was dropped, is decided again;
 * 5. decides the deposits whose payment is final — declines those the pool cannot shield (its
 *    commitment in the tree, an amount or precommitment no note holds, a depositor on the deny
 *    list), accepts the rest — and sends the batch (`acceptance.ts`), unless the acceptor's gas is
 *    below its minimum;
 * 6. shields each deposit whose acceptance is final, in index order, and records it.
 *
 * Everything is recorded before the next step relies on it, and every step reads its work from
 * the store, so a restart — even a `kill -9` between any two steps — never shields twice
 * (the ledger's deposit event answers for a shield whose record was lost) and never skips a
 * deposit (the chain's events are read again from the recorded cursor). A failed poll changes
 * nothing and the next one starts over; payments never wait on it.
 */

import type { Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

import type {
  DepositSink,
  DepositSource,
  DepositSourceStatus,
  DepositWatchStore,
  WatchBinding,
  WatchDecision,
  WatchedDeposit,
} from '../pool-node/deposit-source.js';
import type { ChainBacking } from '../scheme/index.js';
import { AcceptanceSender } from './acceptance.js';
import { ChainError, chainErrorOf } from './chain-errors.js';
import type { DenyList } from './deny-list.js';
import { readEscrowEvents } from './escrow-events.js';
import { failpoint } from './failpoint.js';
import { finalBlock } from './final-block.js';
import { describeFinality, type Finality } from './finality.js';
import type { GasBalances } from './gas-balances.js';
import { checkReorg } from './reorg-check.js';
import type { ChainClients } from './rpc-client.js';
import type { WatcherLease } from './watcher-lease.js';
import { type LagLimits, type WatcherObservations, watcherStatus } from './watcher-status.js';

/** What the watcher logs through (pino's shape). It never logs a key or a signed transaction. */
export interface WatcherLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Options of {@link DepositWatcher}. */
export interface DepositWatcherOptions {
  readonly clients: ChainClients;
  /** The binding recorded in the store (its source, chain, escrow, token, deployment block). */
  readonly binding: WatchBinding;
  readonly store: DepositWatchStore;
  /** The acceptor's key. */
  readonly acceptor: PrivateKeyAccount;
  readonly finality: Finality;
  /** The hot keys' gas; the acceptor's must be at or above the minimum to send. */
  readonly gas: GasBalances;
  readonly denyList?: DenyList | undefined;
  /** Between polls, ms (default 2000); 0: no timer, polls only on {@link DepositWatcher.poll}. */
  readonly pollIntervalMs?: number | undefined;
  /** Blocks per `eth_getLogs` (default 2000; halved while the RPC refuses a range). */
  readonly pageBlocks?: number | undefined;
  /** Pages per poll at most (default 25): a long catch-up is spread over polls. */
  readonly maxPagesPerPoll?: number | undefined;
  /** Deposits per acceptance transaction at most (default 100). */
  readonly batchSize?: number | undefined;
  /** How far below the head the hashes of shielded and settled deposits are checked (default 256). */
  readonly recheckBlocks?: number | undefined;
  /** An acceptance not mined this many blocks after it was sent is decided again (default 50). */
  readonly resendAfterBlocks?: number | undefined;
  readonly lag?: Partial<LagLimits>;
  /** One watcher at a time over a shared store (`watcher-lease.ts`); none: this one always acts. */
  readonly lease?: WatcherLease | undefined;
  /** Unix ms (default `Date.now`). */
  readonly clock?: () => number;
  readonly log?: WatcherLog;
}

const SILENT: WatcherLog = { info() {}, warn() {}, error() {} };

/** Deposits read from the store per step at most. */
const STEP_LIMIT = 1000;

/** The escrow's deposit watcher. */
export class DepositWatcher implements DepositSource {
  readonly backing: ChainBacking;
  private readonly o: DepositWatcherOptions;
  private readonly acceptance: AcceptanceSender;
  private readonly clock: () => number;
  private readonly log: WatcherLog;
  private readonly limits: LagLimits;
  private pageBlocks: number;
  private seen: WatcherObservations;
  private sink: DepositSink | null = null;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private standing = false;

  constructor(options: DepositWatcherOptions) {
    this.o = options;
    const { binding } = options;
    this.backing = { chainId: binding.chainId, escrow: binding.escrow, token: binding.token };
    this.acceptance = new AcceptanceSender(
      options.clients,
      binding.chainId,
      binding.escrow as Address,
      options.acceptor,
    );
    this.clock = options.clock ?? Date.now;
    this.log = options.log ?? SILENT;
    this.pageBlocks = options.pageBlocks ?? 2000;
    this.limits = {
      maxLagMs: options.lag?.maxLagMs ?? Math.max(60_000, 5 * (options.pollIntervalMs ?? 2000)),
      staleHeadMs: options.lag?.staleHeadMs === undefined ? 300_000 : options.lag.staleHeadMs,
    };
    this.seen = {
      ...this.backing,
      finality: describeFinality(options.finality),
      head: null,
      headTimestamp: null,
      final: null,
      scanned: binding.deployBlock - 1,
      startedAt: this.clock(),
      caughtUpAt: null,
      polls: 0,
      error: null,
      beyondDepth: false,
      deposits: {},
      reorgs: 0,
      active: false,
      keys: options.gas.status(),
    };
  }

  status(): DepositSourceStatus {
    return watcherStatus({ ...this.seen, keys: this.o.gas.status() }, this.limits, this.clock());
  }

  start(sink: DepositSink): void {
    this.sink = sink;
    this.stopped = false;
    if ((this.o.pollIntervalMs ?? 2000) > 0) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.o.lease?.release();
  }

  /** Polls once now (or joins the poll under way). Never throws: a failure is in {@link status}. */
  poll(): Promise<void> {
    const sink = this.sink;
    if (!sink) return Promise.reject(new Error('the deposit watcher is not started'));
    this.running ??= this.pollOnce(sink)
      .then(
        () => this.observe({ error: null }),
        (error: unknown) => this.failed(error),
      )
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => {
      void this.poll().finally(() => {
        if (!this.stopped) this.schedule(this.o.pollIntervalMs ?? 2000);
      });
    }, delay);
    this.timer.unref();
  }

  private observe(change: Partial<WatcherObservations>): void {
    this.seen = { ...this.seen, ...change };
  }

  private failed(error: unknown): void {
    const code =
      error instanceof ChainError
        ? error.code
        : (error as { name?: unknown }).name === 'PoolUnavailableError'
          ? 'store_unavailable'
          : 'internal';
    if (code !== this.seen.error)
      this.log.warn({ code, error: (error as Error).message }, 'deposit watcher poll failed');
    this.observe({ error: code, polls: this.seen.polls + 1 });
  }

  private async pollOnce(sink: DepositSink): Promise<void> {
    const head = await this.readHead();
    const final = await finalBlock(this.o.clients.public, this.o.finality, head.number);
    this.observe({ head: head.number, headTimestamp: head.timestamp, final });
    await this.o.gas.refresh();
    const { source } = this.o.binding;
    if (!(await this.leaseHeld())) {
      // Standing by: what the holder recorded is this instance's view.
      const cursor = await this.o.store.cursor(source);
      this.observe({ scanned: cursor.block, caughtUpAt: this.clock() });
    } else if (!this.seen.beyondDepth && (await this.reorgChecked(head.number))) {
      const caughtUp = await this.scan(head.number);
      await this.followSent(head.number);
      await this.decide(sink, final, head.number);
      await this.shieldFinal(sink, final);
      if (caughtUp) this.observe({ caughtUpAt: this.clock() });
    }
    this.observe({ deposits: await this.o.store.counts(source), polls: this.seen.polls + 1 });
  }

  /** Whether this instance holds the watcher's lease (always, without one); says when that changes. */
  private async leaseHeld(): Promise<boolean> {
    const held = this.o.lease ? await this.o.lease.holds(this.clock()) : true;
    if (held === this.standing)
      this.log.info(
        {},
        held ? 'deposit watcher active (lease taken)' : 'deposit watcher standing by',
      );
    this.standing = !held;
    this.observe({ active: held });
    return held;
  }

  /** The head, after checking the RPC serves the bound chain. */
  private async readHead(): Promise<{ number: number; timestamp: number }> {
    const client = this.o.clients.public;
    let chainId: number;
    let block: { number: bigint | null; timestamp: bigint };
    try {
      [chainId, block] = await Promise.all([
        client.getChainId(),
        client.getBlock({ blockTag: 'latest' }),
      ]);
    } catch (error) {
      throw chainErrorOf(error, 'reading the head');
    }
    if (chainId !== this.o.binding.chainId)
      throw new ChainError(
        'chain_id_mismatch',
        `the RPC now serves chain ${chainId}, the pool is bound to ${this.o.binding.chainId}`,
      );
    if (block.number === null) throw new ChainError('rpc_malformed', 'the head has no number');
    return { number: Number(block.number), timestamp: Number(block.timestamp) };
  }

  /** Step 2. False when shielding has stopped (a reorganisation beyond the depth). */
  private async reorgChecked(head: number): Promise<boolean> {
    const { store, binding } = this.o;
    const from = Math.max(binding.deployBlock, head - (this.o.recheckBlocks ?? 256));
    const [deposits, cursor] = await Promise.all([
      store.recent(binding.source, from),
      store.cursor(binding.source),
    ]);
    const verdict = await checkReorg(this.o.clients.public, deposits, cursor, head, from - 1);
    if (verdict.kind === 'none') return true;
    if (verdict.kind === 'beyond_depth') {
      this.log.error(
        { block: verdict.lowestChanged, deposits: verdict.deposits },
        'a reorganisation replaced a block shielded deposits were accepted in: shielding stopped',
      );
      this.observe({ beyondDepth: true });
      return false;
    }
    this.log.warn(
      { block: verdict.lowestChanged, rewindTo: verdict.rewindTo.block },
      'a reorganisation replaced blocks the watcher read: reading them again',
    );
    await store.rewind(binding.source, verdict.rewindTo, this.clock());
    this.observe({ reorgs: this.seen.reorgs + 1, scanned: verdict.rewindTo.block });
    return true;
  }

  /** Step 3. True when the cursor reached the head. */
  private async scan(head: number): Promise<boolean> {
    const { store, binding, clients } = this.o;
    let cursor = await store.cursor(binding.source);
    for (let page = 0; cursor.block < head && page < (this.o.maxPagesPerPoll ?? 25); page++) {
      const from = cursor.block + 1;
      const to = Math.min(head, from + this.pageBlocks - 1);
      let events: Awaited<ReturnType<typeof readEscrowEvents>>;
      let toBlock: { hash: string | null };
      try {
        [events, toBlock] = await Promise.all([
          readEscrowEvents(clients.public, binding.escrow as Address, from, to),
          clients.public.getBlock({ blockNumber: BigInt(to) }),
        ]);
      } catch (error) {
        const failure = chainErrorOf(error, `reading blocks ${from}..${to}`);
        // A range the RPC will not serve: smaller pages, from the next poll on.
        if (failure.code === 'rpc_error' && this.pageBlocks > 1)
          this.pageBlocks = Math.ceil(this.pageBlocks / 2);
        throw failure;
      }
      const hash = toBlock.hash?.toLowerCase() ?? null;
      // Logs and header from two forks (a reorganisation between the reads): read again later.
      if (hash === null || events.some((e) => e.block === to && e.blockHash !== hash)) return false;
      cursor = { block: to, hash };
      await store.record(binding.source, events, cursor, this.clock());
      this.observe({ scanned: to });
    }
    return cursor.block >= head;
  }

  /** Step 4: acceptances sent that reverted or were dropped are decided again. */
  private async followSent(head: number): Promise<void> {
    const { store, binding } = this.o;
    const pending = await store.deposits(binding.source, ['pending'], STEP_LIMIT);
    const sent = new Map<string, number>();
    for (const d of pending) if (d.sentTx) sent.set(d.sentTx, d.sentBlock ?? head);
    for (const [tx, sentBlock] of sent) {
      const outcome = await this.acceptance.outcome(tx as `0x${string}`);
      const dropped = outcome === 'unknown' && head - sentBlock > (this.o.resendAfterBlocks ?? 50);
      if (outcome === 'reverted' || dropped) {
        this.log.warn({ tx, outcome }, 'an acceptance did not take effect: deciding again');
        await store.clearSent(binding.source, tx, this.clock());
      }
    }
  }

  /** Step 5: the final, undecided deposits, screened and sent in one batch. */
  private async decide(sink: DepositSink, final: number, head: number): Promise<void> {
    const { store, binding } = this.o;
    const ready = (await store.deposits(binding.source, ['pending'], STEP_LIMIT)).filter(
      (d) => d.sentTx === null && d.block <= final,
    );
    if (ready.length === 0) return;
    if (!this.o.gas.sufficient('acceptor')) {
      this.log.warn({ waiting: ready.length }, 'the acceptor key is below its gas minimum');
      return;
    }
    const decisions: WatchDecision[] = [];
    for (const d of ready.slice(0, this.o.batchSize ?? 100)) {
      const reason = this.o.denyList?.denies(d.depositor)
        ? 'denied_depositor'
        : await sink.screen(d);
      decisions.push({ index: d.index, decision: reason ? 'decline' : 'accept', reason });
    }
    const sent = await this.acceptance.send(decisions);
    if (sent.tx === null) return;
    failpoint('watcher:after-accept');
    await store.decide(binding.source, sent.decisions, sent.tx, head, this.clock());
    this.log.info(
      {
        tx: sent.tx,
        accepted: sent.decisions.filter((d) => d.decision === 'accept').length,
        declined: sent.decisions.filter((d) => d.decision === 'decline').length,
      },
      'acceptance sent',
    );
  }

  /** Step 6: accepted deposits whose acceptance is final, shielded in index order. */
  private async shieldFinal(sink: DepositSink, final: number): Promise<void> {
    const { store, binding } = this.o;
    const ready = (await store.deposits(binding.source, ['accepted'], STEP_LIMIT)).filter(
      (d): d is WatchedDeposit & { settledBlock: number } =>
        d.settledBlock !== null && d.settledBlock <= final,
    );
    for (const d of ready) {
      const outcome = await sink.shield(d);
      if (outcome.ok) {
        failpoint('watcher:after-shield');
        await store.markShielded(binding.source, d.index, outcome.leafIndex, this.clock());
        this.log.info({ deposit: d.index, leaf: outcome.leafIndex }, 'deposit shielded');
      } else {
        await store.markUnshieldable(binding.source, d.index, outcome.reason, this.clock());
        this.log.error(
          { deposit: d.index, reason: outcome.reason },
          'an accepted deposit cannot be shielded: left to the operator',
        );
      }
    }
  }
}
