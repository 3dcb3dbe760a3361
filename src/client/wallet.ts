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
import { changeRhoOf, commitmentOf, precommitmentOf, randomDigest } from '../core/witness.js';
import { MIN_OUTPUT_VALUE, type TransitionWitness } from '../core/transition.js';
import {
  decodeProof,
  encodeProof,
  expiryFor,
  isAmount,
  type NetworkProfile,
  paymentContext,
  type PaymentRequirements,
  PROOF_TRANSPORTS,
  type PrivStarkPayload,
  type ProofTransport,
  resourceIdOf,
  SCHEME,
  TRANSFER_MAX_TIMEOUT_SECONDS,
  TRANSFER_RESOURCE_ID,
  checkDestination,
  exitContext,
  transitionContext,
} from '../scheme/index.js';
import {
  type PoolNodeClient,
  PoolNodeError,
  type TransferReceipt,
  type TransitionReceipt,
} from '../pool-node/client.js';
import type { DepositTicket, OpenTicket } from './deposit-tickets.js';
import {
  InsufficientFundsError,
  PoolMismatchError,
  UnpayableRequirementsError,
  WalletBehindError,
} from './errors.js';
import type { StoredNote, StoredPending, WalletState, WalletStore } from './store.js';
import { type WalletContext, walletContext } from './wallet-context.js';
import {
  type Balance,
  balanceOf,
  coveringNote,
  lockedNotes,
  ownNote,
  spendableNotes,
} from './wallet-notes.js';
import type { CreateWalletOptions, WalletOptions } from './wallet-options.js';
import { newWalletState, openStored, pathOf, storeOf } from './wallet-persistence.js';
import { type SyncReport, WalletSync } from './wallet-sync.js';

/** How {@link Wallet.createPayment} carries the proof. */
export type PaymentTransport = ProofTransport;

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

  /**
   * Reads what the pool published since the cursors: leaves, events (finding this wallet's notes,
   * spends and received payments), checkpoints; then resolves pending payments. Concurrent calls
   * share one run.
   * @throws PoolMismatchError when the node's pool is not the one the wallet followed
   */
  sync(): Promise<SyncReport> {
    return this.syncer.sync();
  }

  /**
   * Builds the `priv-stark/v1` payload paying `requirements` from one note, anchored to the latest
   * checkpoint synced. The payment is written down as pending before this resolves.
   * @throws UnpayableRequirementsError, InsufficientFundsError, WalletBehindError
   */
  async createPayment(
    requirements: PaymentRequirements,
    options: { maxAmount?: bigint | undefined; transport?: PaymentTransport | undefined } = {},
  ): Promise<PrivStarkPayload> {
    // 1. Requirements this wallet can pay.
    if (requirements.scheme !== SCHEME)
      throw new UnpayableRequirementsError(`scheme ${requirements.scheme} is not ${SCHEME}`);
    if (requirements.network !== this.network.network)
      throw new UnpayableRequirementsError(
        `network ${requirements.network} is not the wallet's ${this.network.network}`,
      );
    if (requirements.asset !== this.network.asset)
      throw new UnpayableRequirementsError(
        `asset ${requirements.asset} is not the network's ${this.network.asset}`,
      );
    if (!isAmount(requirements.amount))
      throw new UnpayableRequirementsError(
        `amount ${requirements.amount.slice(0, 32)} is not decimal atomic units below 2^62`,
      );
    if (options.maxAmount !== undefined && BigInt(requirements.amount) > options.maxAmount) {
      throw new UnpayableRequirementsError(
        `amount ${requirements.amount} is above the spend cap of ${options.maxAmount}`,
      );
    }
    try {
      this.core.decodeAddress(requirements.payTo);
    } catch {
      throw new UnpayableRequirementsError(`payTo is not a shielded address`);
    }
    if (
      !Number.isSafeInteger(requirements.maxTimeoutSeconds) ||
      requirements.maxTimeoutSeconds < 1
    ) {
      throw new UnpayableRequirementsError('maxTimeoutSeconds must be a positive integer');
    }
    // The pool's transfer context is not a merchant's: a proof for it settles at the pool node
    // without the merchant's facilitator, and the wallet tells its transfers by it.
    if (resourceIdOf(requirements) === TRANSFER_RESOURCE_ID)
      throw new UnpayableRequirementsError(
        `resourceId ${TRANSFER_RESOURCE_ID} is the pool's transfer context, not a merchant's route`,
      );
    const note = coveringNote(this.context, BigInt(requirements.amount));
    return this.payFrom(note, requirements, options.transport ?? this.transportFor(requirements));
  }

  /**
   * Pays `requirements` from `note` (chosen synchronously by the caller, so no other payment takes
   * it): the statement, the pending record written before anything leaves, the proof, then the
   * payload — inline, or handed over for a reference.
   */
  private async payFrom(
    note: StoredNote,
    requirements: PaymentRequirements,
    transport: PaymentTransport,
  ): Promise<PrivStarkPayload> {
    const checkpoint = this.context.state.checkpoint!;
    const amount = BigInt(requirements.amount);
    this.context.reserved.add(note.commitment);
    try {
      // 3. The statement: context, anchor path, change.
      const expiry = expiryFor(
        Math.floor(this.context.clock() / 1000),
        requirements.maxTimeoutSeconds,
      );
      const ctx = this.core.contextDigest(paymentContext(requirements, expiry));
      // The path's root is checked against the checkpoint once the proof's public inputs exist
      // (they hash it anyway; the sync already matched the tree's root to the checkpoint's).
      const path = this.context.tree.path(note.index, checkpoint.size);
      const changeValue = (BigInt(note.value) - amount).toString();
      const changeRho = changeRhoOf(this.core, this.context.state.sk, note.nullifier);
      const change = commitmentOf(
        this.core,
        changeValue,
        precommitmentOf(this.core, this.owner, changeRho),
      );

      // 4. Pending before anything leaves.
      const pending: StoredPending = {
        nullifier: note.nullifier,
        note: note.commitment,
        amount: requirements.amount,
        payTo: requirements.payTo,
        resourceId: resourceIdOf(requirements),
        change,
        changeValue,
        expiry,
        createdAt: this.context.clock(),
        status: 'pending',
      };
      this.context.state.pending.push(pending);
      const recorded = this.save();

      // 5. The proof, built while the record is written: the payload leaves only once both are done.
      const proving = Promise.resolve().then(() =>
        this.core.proveSpend({
          sk: this.context.state.sk,
          value: note.value,
          rho: note.rho,
          index: note.index,
          path,
          amount: requirements.amount,
          ctx,
        }),
      );
      const [saved, built] = await Promise.allSettled([recorded, proving]);
      const failure =
        saved.status === 'rejected'
          ? saved.reason
          : built.status === 'rejected'
            ? built.reason
            : built.value.publicInputs.nullifier !== note.nullifier ||
                built.value.publicInputs.change !== change ||
                built.value.publicInputs.root !== checkpoint.root
              ? new PoolMismatchError(
                  `the proof does not prove the payment the wallet recorded against checkpoint ${checkpoint.seq}: the wallet's copy of the tree is damaged`,
                )
              : null;
      if (failure !== null || built.status === 'rejected') {
        // Nothing left the wallet: forget the record (a copy already written only locks the note
        // until its expiry).
        this.context.state.pending.splice(this.context.state.pending.indexOf(pending), 1);
        await this.save().catch(() => undefined);
        throw failure;
      }
      const proved = built.value;
      const inline: PrivStarkPayload = {
        scheme: SCHEME,
        network: requirements.network,
        root: checkpoint.root,
        nullifier: note.nullifier,
        commitment: change,
        proof: encodeProof(proved.proof),
        amount: requirements.amount,
        recipient: requirements.payTo,
        expiry,
      };
      if (transport === 'inline') return inline;
      try {
        return await this.handOver(inline, requirements);
      } catch (error) {
        // A refusal (4xx) means the node kept nothing and nothing left the wallet: forget the
        // record. Without a clear answer the node may hold the proof: the record stays, pending
        // until the pool's log resolves it.
        if (error instanceof PoolNodeError && error.status >= 400 && error.status < 500) {
          this.context.state.pending.splice(this.context.state.pending.indexOf(pending), 1);
          await this.save().catch(() => undefined);
        }
        throw error;
      }
    } finally {
      this.context.reserved.delete(note.commitment);
    }
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
  async transfer(
    recipient: string,
    amount: bigint | string,
    options: { readonly note?: string | undefined } = {},
  ): Promise<TransferReceipt> {
    const value = typeof amount === 'bigint' ? amount.toString() : amount;
    if (!isAmount(value))
      throw new UnpayableRequirementsError(
        `amount ${value.slice(0, 32)} is not decimal atomic units below 2^62`,
      );
    try {
      this.core.decodeAddress(recipient);
    } catch {
      throw new UnpayableRequirementsError('the recipient is not a shielded address');
    }
    const note =
      options.note === undefined
        ? coveringNote(this.context, BigInt(value))
        : ownNote(this.context, options.note);
    if (BigInt(note.value) < BigInt(value))
      throw new InsufficientFundsError(BigInt(value), BigInt(note.value), BigInt(note.value));
    const requirements = transferRequirements(this.network, recipient, value);
    const payload = await this.payFrom(note, requirements, 'inline');
    try {
      return await this.context.handOverNode.transfer({
        scheme: payload.scheme,
        network: payload.network,
        root: payload.root,
        nullifier: payload.nullifier,
        commitment: payload.commitment,
        proof: payload.proof!,
        amount: payload.amount,
        recipient: payload.recipient,
        expiry: payload.expiry,
      });
    } catch (error) {
      // A refusal means nothing was applied: forget the record. `duplicate_settlement` says the
      // note was spent (by another copy of this key, or this very transfer retried): the log
      // resolves the record. Without a clear answer the transfer may have settled: it stays.
      if (
        error instanceof PoolNodeError &&
        error.status >= 400 &&
        error.status < 500 &&
        error.code !== 'duplicate_settlement'
      ) {
        const at = this.context.state.pending.findIndex((p) => p.nullifier === payload.nullifier);
        if (at !== -1) this.context.state.pending.splice(at, 1);
        await this.save().catch(() => undefined);
      }
      throw error;
    }
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
  async mergeNotes(commitments?: readonly [string, string]): Promise<TransitionReceipt> {
    const notes = commitments
      ? commitments.map((c) => ownNote(this.context, c))
      : mergeablePair(spendableNotes(this.context));
    if (notes.length !== 2 || notes[0]!.commitment === notes[1]!.commitment)
      throw new UnpayableRequirementsError(
        `a merge needs two distinct spendable notes worth at least ${MIN_OUTPUT_VALUE} together`,
      );
    const total = BigInt(notes[0]!.value) + BigInt(notes[1]!.value);
    if (total < MIN_OUTPUT_VALUE)
      throw new UnpayableRequirementsError(
        `the two notes hold ${total} together: a merged note must hold at least ${MIN_OUTPUT_VALUE}`,
      );
    return this.applyNoteTransition(notes, [total, 0n]);
  }

  /**
   * Splits one of this wallet's notes in two by a transition (`POST /transitions`): `amount` and
   * the rest, both this wallet's, neither revealed to the pool (unlike {@link splitNote}, whose
   * transfer shows the amount and the wallet's address). Each part must be at least
   * `MIN_OUTPUT_VALUE` (1000).
   * @throws UnpayableRequirementsError (amounts, unknown or locked note), WalletBehindError,
   *   PoolNodeError with the pool's reason
   */
  async splitPrivately(commitment: string, amount: bigint | string): Promise<TransitionReceipt> {
    const note = ownNote(this.context, commitment);
    const first = BigInt(amount);
    const rest = BigInt(note.value) - first;
    if (first < MIN_OUTPUT_VALUE || rest < MIN_OUTPUT_VALUE)
      throw new UnpayableRequirementsError(
        `both parts of a split must be at least ${MIN_OUTPUT_VALUE} (the note holds ${note.value})`,
      );
    return this.applyNoteTransition([note], [first, rest]);
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
  async exit(
    destination: string,
    amount: bigint | string,
    options: { readonly note?: string | undefined } = {},
  ): Promise<TransitionReceipt> {
    const checked = checkDestination(destination);
    if (!checked.ok)
      throw new UnpayableRequirementsError(`the destination is refused: ${checked.why}`);
    const value = typeof amount === 'bigint' ? amount.toString() : amount;
    if (!isAmount(value))
      throw new UnpayableRequirementsError(
        `amount ${value.slice(0, 32)} is not decimal atomic units below 2^62`,
      );
    const wanted = BigInt(value);
    const fits = (n: StoredNote) => {
      const change = BigInt(n.value) - wanted;
      return change === 0n || change >= MIN_OUTPUT_VALUE;
    };
    let note: StoredNote | undefined;
    if (options.note !== undefined) {
      note = ownNote(this.context, options.note);
      if (!fits(note))
        throw new UnpayableRequirementsError(
          `the note's change would be below ${MIN_OUTPUT_VALUE}: exit all of it or less`,
        );
    } else {
      note = spendableNotes(this.context)
        .filter(fits)
        .sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1))[0];
      if (!note) {
        const notes = spendableNotes(this.context);
        const largest = notes.reduce((m, n) => (BigInt(n.value) > m ? BigInt(n.value) : m), 0n);
        const total = notes.reduce((sum, n) => sum + BigInt(n.value), 0n);
        throw new InsufficientFundsError(wanted, total, largest);
      }
    }
    const change = BigInt(note.value) - wanted;
    return this.applyNoteTransition([note], [change, 0n], { amount: wanted, destination });
  }

  /** Proves and submits a transition of `notes` (one or two) into two outputs of these values. */
  private async applyNoteTransition(
    notes: readonly StoredNote[],
    outputs: readonly [bigint, bigint],
    exit?: { readonly amount: bigint; readonly destination: string },
  ): Promise<TransitionReceipt> {
    const checkpoint = this.context.state.checkpoint;
    if (!checkpoint) throw new WalletBehindError('the wallet has not synced a checkpoint yet');
    for (const note of notes) this.context.reserved.add(note.commitment);
    try {
      const zeros = Array.from({ length: 32 }, () => DIGEST_ZERO);
      const inputs = [0, 1].map((i) => {
        const note = notes[i];
        if (!note) return { value: '0', rho: randomDigest(), index: 0, path: zeros };
        return {
          value: note.value,
          rho: note.rho,
          index: note.index,
          path: this.context.tree.path(note.index, checkpoint.size),
        };
      }) as unknown as TransitionWitness['inputs'];
      const expiry = expiryFor(
        Math.floor(this.context.clock() / 1000),
        TRANSFER_MAX_TIMEOUT_SECONDS / 2,
      );
      const ctx = this.core.contextDigest(
        exit
          ? exitContext(this.network, exit.destination, exit.amount.toString(), expiry)
          : transitionContext(this.network, expiry),
      );
      const { proof, publicInputs } = await this.core.proveTransition({
        sk: this.context.state.sk,
        inputs,
        outputs: [outputs[0].toString(), outputs[1].toString()],
        exit: exit ? exit.amount.toString() : '0',
        ctx,
      });
      if (publicInputs.root !== checkpoint.root)
        throw new WalletBehindError('the notes do not lead to the synced checkpoint');
      return await this.context.handOverNode.transition({
        scheme: SCHEME,
        network: this.network.network,
        root: publicInputs.root,
        nullifiers: publicInputs.nullifiers,
        outputs: publicInputs.outputs,
        memo: publicInputs.memo,
        refund: publicInputs.refund,
        ...(exit ? { exit: exit.amount.toString(), destination: exit.destination } : {}),
        expiry,
        proof: encodeProof(proof),
      });
    } finally {
      for (const note of notes) this.context.reserved.delete(note.commitment);
    }
  }

  /**
   * Splits one of this wallet's notes: a {@link transfer} of `amount` to its own address.
   * @returns the settlement; the two notes join the wallet at the next sync
   */
  splitNote(commitment: string, amount: bigint | string): Promise<TransferReceipt> {
    return this.transfer(this.address, amount, { note: commitment });
  }

  /**
   * The transport for requirements: what the merchant lists in `extra.proofTransports` (`inline`
   * when it lists nothing: a merchant from before compact payments), in its order — or `inline`
   * first when this wallet prefers it and the merchant takes it.
   */
  transportFor(requirements: PaymentRequirements): PaymentTransport {
    const listed = (requirements.extra as { proofTransports?: unknown } | undefined)
      ?.proofTransports;
    const offered = (Array.isArray(listed) ? listed : ['inline']).filter(
      (t): t is PaymentTransport => PROOF_TRANSPORTS.includes(t as PaymentTransport),
    );
    if (this.context.transportPreference === 'inline' && offered.includes('inline'))
      return 'inline';
    return offered[0] ?? 'inline';
  }

  /**
   * Turns an inline payment of this wallet into a compact one: hands its proof over to the pool
   * node (over the hand-over transport) and returns the payload with the reference instead. The
   * payment's pending record stays as it is: the note is not locked twice. The wallet computes the
   * reference itself and checks the node's answer against it.
   * @throws PoolNodeError with the node's reason; PoolMismatchError when the node answers another
   *   reference
   */
  async handOver(
    payload: PrivStarkPayload,
    requirements: PaymentRequirements,
  ): Promise<PrivStarkPayload> {
    if (payload.proof === undefined) return payload;
    const decoded = decodeProof(payload.proof);
    if (!decoded.ok) throw new UnpayableRequirementsError('the payment carries no readable proof');
    const payment = paymentContext(requirements, payload.expiry);
    const { reference } = this.core.proofReference(decoded.bytes, {
      root: payload.root as DigestHex,
      nullifier: payload.nullifier as DigestHex,
      change: payload.commitment as DigestHex,
      amount: payload.amount,
      ctx: this.core.contextDigest(payment),
    });
    const answer = await this.context.handOverNode.handOver({
      scheme: payment.scheme,
      network: payment.network,
      asset: payment.asset,
      payTo: payment.payTo,
      amount: payment.amount,
      resourceId: payment.resourceId,
      expiry: payment.expiry,
      root: payload.root,
      nullifier: payload.nullifier,
      commitment: payload.commitment,
      proof: payload.proof,
    });
    if (answer.reference !== reference)
      throw new PoolMismatchError('the pool node answered another reference for this proof');
    const { proof: _inline, ...fields } = payload;
    return { ...fields, proofRef: reference };
  }

  /** Writes the state to the store (serialised, in call order; a no-op without a store). */
  save(): Promise<void> {
    return this.context.save();
  }
}

/** The requirements a transfer through the pool node is bound to (the pool's transfer context). */
function transferRequirements(
  network: NetworkProfile,
  recipient: string,
  amount: string,
): PaymentRequirements {
  return {
    scheme: SCHEME,
    network: network.network,
    asset: network.asset,
    amount,
    payTo: recipient,
    // Half the bound: the transfer is sent at once, and the pool's clock may run ahead.
    maxTimeoutSeconds: TRANSFER_MAX_TIMEOUT_SECONDS / 2,
    extra: { resourceId: TRANSFER_RESOURCE_ID },
  } as PaymentRequirements;
}

const DIGEST_ZERO = `0x${'0'.repeat(64)}` as DigestHex;

/**
 * The pair a merge takes by default: the smallest note, with the smallest other note that brings
 * the pair to `MIN_OUTPUT_VALUE` (dust merges into something spendable); none when no pair reaches it.
 */
function mergeablePair(notes: readonly StoredNote[]): StoredNote[] {
  const sorted = [...notes].sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1));
  for (let i = 0; i < sorted.length; i++)
    for (let j = i + 1; j < sorted.length; j++)
      if (BigInt(sorted[i]!.value) + BigInt(sorted[j]!.value) >= MIN_OUTPUT_VALUE)
        return [sorted[i]!, sorted[j]!];
  return [];
}
