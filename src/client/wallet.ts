/**
 * @module The payer's (and the merchant's) wallet for `priv-stark/v1` (priv-stark-v1.md §2, §7):
 * a spending key, its shielded address, the notes it owns, and a copy of the pool tree rebuilt
 * from the pool node's public leaves. It syncs on its own schedule (leaves, events and checkpoints
 * since its cursors), never at payment time and never asking for one path.
 *
 * Money rules:
 * - a payment is recorded as **pending** (nullifier, change, expiry) and written to disk before its
 *   payload is handed out; its note is locked meanwhile;
 * - a pending payment is resolved only from the pool's log: settled when a settlement event names
 *   its nullifier (the change note then joins the wallet), released when the pool's own clock (the
 *   time of its later events and checkpoints) has passed the expiry with no such event — the pool
 *   refuses any transition past its expiry — or, when the pool is idle, once the wallet's clock is
 *   {@link IDLE_RELEASE_GRACE_MS} past it and a full sync shows no settlement. A merchant's
 *   `PAYMENT-RESPONSE`, true or forged, changes nothing;
 * - every note is recoverable from the key and the public log: deposit `rho = H_DEPOSIT_RHO(sk, n)`,
 *   change `rho = H_CHANGE_RHO(sk, nf)`, received `rho = H_RECIPIENT_RHO(nf)` for settlements
 *   paying this wallet's address.
 */

// The core's modules one by one, not its index: the index also loads the native addon (Node only).
import type { DigestHex } from '../core/digest.js';
import type { PrivStarkCore } from '../core/facade.js';
import type {
  EpochGrid,
  NetworkProfile,
  PaymentRequirements,
  PrivStarkPayload,
} from '../scheme/index.js';
import type { PoolNodeClient } from '../pool-node/client.js';
import type { TransferReceipt } from '../pool-node/transfer-schema.js';
import type { TransitionReceipt } from '../pool-node/transition-schema.js';
import type { BackingCheckResult } from './backing-result.js';
import type { DepositTicket, OpenTicket } from './deposit-tickets.js';
import type { PoolWrite } from './pool-transport.js';
import type {
  ChainDepositRecord,
  StoredNote,
  StoredPending,
  WalletState,
  WalletStore,
} from './store.js';
import { coversCurrentEpoch } from './wallet-anchor.js';
import { type WalletContext, walletContext } from './wallet-context.js';
import { type PublishedCheckpoint, publishedCheckpoint } from './published-checkpoint.js';
import { type Balance, balanceOf, lockedNotes, payingNotes } from './wallet-notes.js';
import type { CreateWalletOptions, WalletOptions } from './wallet-options.js';
import {
  createPayment,
  handOver,
  type PaymentTransport,
  transfer,
  transportFor,
} from './wallet-payments.js';
import { merchantOf } from './merchant-relay.js';
import { newWalletState, openStored, pathOf, storeOf } from './wallet-persistence.js';
import { type SyncReport, WalletSync } from './wallet-sync.js';
import { exit, mergeNotes, refreshShownNotes, splitPrivately } from './wallet-transitions.js';
import { backgroundTasks, stopBackground } from './wallet-background.js';
import { lastWriteAt, writesUnderWay } from './wallet-writes.js';

// What this module declared before its parts moved out, still importable from here.
export type { Balance } from './wallet-notes.js';
export type { CreateWalletOptions, WalletOptions } from './wallet-options.js';
export type { PaymentTransport } from './wallet-payments.js';
export { IDLE_RELEASE_GRACE_MS, POOL_CLOCK_MARGIN_MS, type SyncReport } from './wallet-sync.js';

/**
 * A wallet.
 * @example
 * const wallet = await Wallet.create({ core, pool: 'http://127.0.0.1:4021', path: './payer.wallet' });
 * const ticket = await wallet.depositTicket('1000000'); // shield it through the pool node
 * await wallet.sync();
 * const payload = await wallet.createPayment(requirements); // pending until the pool says otherwise
 */
export class Wallet {
  readonly core: PrivStarkCore;
  /** The client of the pool node the wallet syncs from. */
  readonly poolNode: PoolNodeClient;
  readonly network: NetworkProfile;
  readonly owner: DigestHex;
  readonly address: string;
  readonly store: WalletStore | null;
  /** What the wallet's parts share: configuration, state, local tree, tickets, reserved notes. */
  private readonly context: WalletContext;
  /** Its sync: leaves, events and checkpoints since the cursors, then expired payments released. */
  private readonly syncer: WalletSync;

  private constructor(
    options: WalletOptions,
    store: WalletStore | null,
    state: WalletState,
    leaves: readonly DigestHex[],
  ) {
    const context = walletContext(options, store, state, leaves);
    this.context = context;
    this.core = context.core;
    this.poolNode = context.poolNode;
    this.network = context.network;
    this.store = store;
    this.owner = context.owner;
    this.address = context.address;
    this.syncer = new WalletSync(context);
  }

  /**
   * The latest outcome of the background backing check (`checkBackingInBackground` of
   * `priv-stark/client/chain`), `null` before the first or without one.
   */
  get backingCheck(): BackingCheckResult | null {
    return backgroundTasks(this).backing?.last ?? null;
  }

  /**
   * Stops what runs in the background for this wallet: its backing check (nothing more sent) and
   * its epoch follower (after the sync under way; `payingFetch` starts it again).
   */
  async stop(): Promise<void> {
    await stopBackground(this);
  }

  /** Whether a payment, transfer, transition or exit is under way (until the log resolves it). */
  writesUnderWay(): boolean {
    return writesUnderWay(this.context);
  }

  /** When the latest payment, transfer, transition or exit began (unix ms), `null` if unknown. */
  get lastWriteAt(): number | null {
    return lastWriteAt(this.context);
  }

  /**
   * A new wallet with a fresh spending key — or, given `sk`, the wallet of that key, which the
   * next {@link sync} fills from the public log alone.
   * @throws when `path` already exists
   */
  static async create(options: CreateWalletOptions): Promise<Wallet> {
    const state = newWalletState(options);
    const store = storeOf(options);
    const wallet = new Wallet(options, store, state, []);
    await store?.create(structuredClone(state));
    return wallet;
  }

  /**
   * Opens a stored wallet: `store`, or in Node the file at `path` (mode 0600 required).
   * @throws when there is none, or it is for another network
   */
  static async open(
    options: WalletOptions & ({ readonly path: string } | { readonly store: WalletStore }),
  ): Promise<Wallet> {
    const { store, state, leaves } = await openStored(options);
    return new Wallet(options, store, state, leaves);
  }

  /** Node: the wallet file's path, when the wallet is kept in one. */
  get path(): string | undefined {
    return pathOf(this.store);
  }

  /**
   * The `fetch` one write to the pool node goes through, by the wallet's transport settings: the
   * proxy (or the caller's own fetch), else — unless `private-only` — directly, with the
   * `direct_to_pool` warning once (docs/privacy.md, "Transports"). The chain module's relayed
   * deposits and reclaims use it.
   * @throws NoPrivateTransportError in `private-only` mode without a private transport
   */
  poolWriteFetch(write: PoolWrite): Promise<typeof fetch> {
    return this.context.poolTransport.writeFetch(write);
  }

  /**
   * The wallet's proxy to `url` (its `--pool-proxy` or the environment's, `NO_PROXY` honoured), or
   * `null` without one: `wallet verify-backing` reads the user's RPC through it.
   */
  proxiedFetch(url: string): Promise<typeof fetch | null> {
    return this.context.poolTransport.privateFetch(url);
  }

  /** Checkpoint `seq` from the public log's fixed page, with the wallet's own root at its size. */
  publishedCheckpoint(seq: number): Promise<PublishedCheckpoint | null> {
    return publishedCheckpoint(this.context, seq);
  }

  /** The spending key (whoever holds it can spend every note). */
  get spendingKey(): DigestHex {
    return this.context.state.sk;
  }

  /** Leaves of the local tree. */
  get leafCount(): number {
    return this.context.tree.size;
  }

  /** The latest checkpoint synced, `null` before the first. */
  get checkpoint(): WalletState['checkpoint'] {
    return this.context.state.checkpoint;
  }

  /** Unspent notes (copies). */
  notes(): StoredNote[] {
    return this.context.state.notes.filter((n) => !n.spent).map((n) => ({ ...n }));
  }

  /** Every note found, spent ones included (copies), in the order the log created them. */
  allNotes(): StoredNote[] {
    return this.context.state.notes.map((n) => ({ ...n }));
  }

  /** Payment records (copies), newest last. */
  payments(): StoredPending[] {
    return this.context.state.pending.map((p) => ({ ...p }));
  }

  /**
   * Commitments of the notes a new payment may not spend: those of pending payments and those a
   * payment being built has chosen.
   */
  lockedNotes(): Set<string> {
    return lockedNotes(this.context);
  }

  /**
   * Commitments of the notes payments under way hold (a subset of {@link lockedNotes}): chosen by
   * a payment being built, or locked by a pending payment until it settles or expires.
   */
  payingNotes(): Set<string> {
    return payingNotes(this.context);
  }

  /** Commitments of unspent notes below their minimum age (`WalletOptions.notes`). */
  youngNotes(): Set<string> {
    return new Set(
      this.context.state.notes
        .filter((n) => !n.spent && this.context.noteAges.isYoung(n))
        .map((n) => n.commitment),
    );
  }

  /** The balance, from notes and pending records only. */
  balance(): Balance {
    return balanceOf(this.context);
  }

  /**
   * A deposit to this wallet: a counter's precommitment `H_PRE(owner, H_DEPOSIT_RHO(sk, n))` with
   * the amount, saved as an open ticket before it is returned (no two deposits share a `rho`). A
   * wallet hands out a ticket only while fewer than `N` ({@link DEPOSIT_GAP}) are open — issued and
   * not yet seen shielded by a sync — which is what lets a wallet restored from the key find every
   * deposit, whatever order the operator shields them in (docs/client.md, "Recovery").
   * @throws TooManyOpenTicketsError at the bound (sync once one is shielded, or {@link reissueTicket});
   *   WalletBehindError for a wallet restored from its key that has not synced yet
   */
  async depositTicket(amount: string): Promise<DepositTicket> {
    const ticket = this.context.tickets.issue(amount);
    await this.save();
    return ticket;
  }

  /** The deposit tickets handed out and not yet seen shielded, by counter. */
  openTickets(): OpenTicket[] {
    return this.context.tickets.open();
  }

  /**
   * An open ticket again, unchanged (same counter, precommitment and amount), to hand to the
   * operator once more when the first copy went astray: the pool refuses the same commitment
   * twice, so at most one copy is shielded. `amount` only for a ticket issued before the wallet
   * kept amounts (then saved with it).
   * @throws WalletError `ticket_not_open` when the counter is not an open ticket of this wallet
   */
  async reissueTicket(counter: number, amount?: string): Promise<DepositTicket> {
    const ticket = this.context.tickets.reissue(counter, amount);
    await this.save();
    return ticket;
  }

  /** The deposits this wallet paid into its pool's escrow on a chain (copies), oldest first. */
  chainDeposits(): ChainDepositRecord[] {
    return (this.context.state.chainDeposits ?? []).map((d) => ({ ...d }));
  }

  /**
   * Records a deposit paid into the escrow, or completes the record of the same ticket (its index
   * and transaction once mined), and saves.
   */
  async recordChainDeposit(record: ChainDepositRecord): Promise<void> {
    this.context.state.chainDeposits ??= [];
    const records = this.context.state.chainDeposits;
    const known = records.find((d) => d.pre === record.pre && d.amount === record.amount);
    if (known) {
      known.index = record.index ?? known.index;
      known.transaction = record.transaction;
    } else records.push({ ...record });
    await this.save();
  }

  /**
   * Reads what the pool published since the cursors: leaves, events (finding this wallet's notes,
   * spends and received payments), checkpoints; then resolves pending payments. Concurrent calls
   * share one run.
   * @throws PoolMismatchError when the node's pool is not the one the wallet followed
   */
  sync(): Promise<SyncReport> {
    return this.syncer.sync();
  }

  /** The pool's epoch grid as learned from the pool node, `null` before the first sync. */
  get epochGrid(): EpochGrid | null {
    return this.context.state.epoch ?? null;
  }

  /**
   * Whether the stored state covers the current epoch: the wallet's anchor is the checkpoint every
   * wallet anchors to now, so a write needs no sync first (always false without a grid).
   */
  coversCurrentEpoch(): boolean {
    return coversCurrentEpoch(this.context);
  }

  /**
   * Builds the `priv-stark/v1` payload paying `requirements` from one note, anchored to the latest
   * checkpoint synced. The payment is written down as pending before this resolves.
   * @throws UnpayableRequirementsError, InsufficientFundsError, WalletBehindError
   */
  createPayment(
    requirements: PaymentRequirements,
    options: {
      maxAmount?: bigint | undefined;
      transport?: PaymentTransport | undefined;
      /** The URL being paid: its origin's relay, when the merchant advertises one, takes the hand-over. */
      resourceUrl?: string | undefined;
    } = {},
  ): Promise<PrivStarkPayload> {
    return createPayment(this.context, requirements, options);
  }

  /**
   * Transfers `amount` to a shielded address through the pool node (`POST /transfers`): a payment
   * statement bound to the pool's transfer context, settled by the pool itself — no merchant, no
   * facilitator. To this wallet's own address it splits a note in two (what {@link
   * ReadyNotesKeeper} does): the recipient note and the change, both the wallet's, each spendable
   * once a checkpoint covers it. The payment record is written before the proof leaves, as for any
   * payment; the pool's log resolves it.
   * @param options.note the commitment of the note to spend (default: the smallest that covers)
   * @throws UnpayableRequirementsError (amount or address), InsufficientFundsError,
   *   WalletBehindError, PoolNodeError with the pool's reason
   */
  transfer(
    recipient: string,
    amount: bigint | string,
    options: { readonly note?: string | undefined } = {},
  ): Promise<TransferReceipt> {
    return transfer(this.context, recipient, amount, options);
  }

  /**
   * Merges two of this wallet's notes into one (a transition: `POST /transitions` on the pool
   * node, proven here). The pool sees two nullifiers and two new commitments, as for a payment, not
   * that it was a merge. The new note is spendable once a checkpoint covers it.
   * @param commitments the two notes (default: the smallest note and the smallest other one that
   *   brings the pair to at least `MIN_OUTPUT_VALUE`)
   * @throws UnpayableRequirementsError (unknown, spent or locked notes; fewer than two),
   *   WalletBehindError, PoolNodeError with the pool's reason
   */
  mergeNotes(commitments?: readonly [string, string]): Promise<TransitionReceipt> {
    return mergeNotes(this.context, commitments);
  }

  /**
   * Splits one of this wallet's notes in two by a transition (`POST /transitions`): `amount` and
   * the rest, both this wallet's, neither revealed to the pool (unlike {@link splitNote}, whose
   * transfer shows the amount and the wallet's address). Each part must be at least
   * `MIN_OUTPUT_VALUE` (1000).
   * @throws UnpayableRequirementsError (amounts, unknown or locked note), WalletBehindError,
   *   PoolNodeError with the pool's reason
   */
  splitPrivately(commitment: string, amount: bigint | string): Promise<TransitionReceipt> {
    return splitPrivately(this.context, commitment, amount);
  }

  /**
   * Refreshes each note whose nullifier a payment showed without settling (its record expired) by
   * a private transition into one new note of the same value, so no later payment shows that
   * nullifier again; payments skip such notes until then (docs/privacy.md, "Notes"). The
   * ready-notes keeper does it at its rounds. A shown note below `MIN_OUTPUT_VALUE` waits for a merge.
   * @returns the transitions' receipts (none when no note was shown)
   */
  refreshShownNotes(): Promise<TransitionReceipt[]> {
    return refreshShownNotes(this.context);
  }

  /**
   * Exits `amount` from the pool to `destination` (a CAIP-10 account id with its checksum, e.g.
   * `eip155:8453:0xAbC…`), the change staying in the wallet: a transition whose proof binds the
   * amount, the destination, this pool and the expiry. The pool records a withdrawal that its
   * operator pays out; if the payout fails, the exit's proven refund note comes back to this key.
   * The pool sees the amount and the destination (as any payout would), not which note paid.
   * @param options.note the note to spend (default: the smallest whose change is 0 or at least
   *   `MIN_OUTPUT_VALUE`)
   * @throws UnpayableRequirementsError (destination, amount), InsufficientFundsError,
   *   WalletBehindError, PoolNodeError with the pool's reason
   */
  exit(
    destination: string,
    amount: bigint | string,
    options: { readonly note?: string | undefined } = {},
  ): Promise<TransitionReceipt> {
    return exit(this.context, destination, amount, options);
  }

  /**
   * Splits one of this wallet's notes: a {@link transfer} of `amount` to its own address.
   * @returns the settlement; the two notes join the wallet at the next sync
   */
  splitNote(commitment: string, amount: bigint | string): Promise<TransferReceipt> {
    return this.transfer(this.address, amount, { note: commitment });
  }

  /**
   * The transport for requirements among those the merchant lists in `extra.proofTransports`
   * (`inline` when it lists nothing: a merchant from before compact payments): `reference` when the
   * merchant's relay on `resourceUrl`'s origin can take the hand-over, else `inline` when listed,
   * else what it lists — or `inline` first when this wallet prefers it and the merchant takes it.
   */
  transportFor(requirements: PaymentRequirements, resourceUrl?: string): PaymentTransport {
    return transportFor(this.context, requirements, merchantOf(resourceUrl, requirements));
  }

  /**
   * Turns an inline payment of this wallet into a compact one: hands its proof over to the pool
   * node (through the relay of `resourceUrl`'s merchant when it has one, else over the wallet's
   * transport) and returns the payload with the reference instead. The
   * payment's pending record stays as it is: the note is not locked twice. The wallet computes the
   * reference itself and checks the node's answer against it.
   * @throws PoolNodeError with the node's reason; PoolMismatchError when the node answers another
   *   reference
   */
  handOver(
    payload: PrivStarkPayload,
    requirements: PaymentRequirements,
    resourceUrl?: string,
  ): Promise<PrivStarkPayload> {
    return handOver(this.context, payload, requirements, merchantOf(resourceUrl, requirements));
  }

  /** Writes the state to the store (serialised, in call order; a no-op without a store). */
  save(): Promise<void> {
    return this.context.save();
  }
}
