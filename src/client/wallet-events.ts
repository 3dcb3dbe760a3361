/**
 * @module What the pool's events mean to one wallet, applied in the log's order: its deposits
 * (matched against the counters its tickets watch), its notes spent, the change of its payments,
 * payments to its address, the outputs of its transitions and the refunds of its failed payouts —
 * each note found from the key and the public event alone — and its pending payments settled.
 */

import type { DepositMatch } from '../core/facade.js';
import { recoverTransitionOutputs, refundRhoOf } from '../core/transition.js';
import {
  changeRhoOf,
  commitmentOf,
  depositRhoOf,
  deriveNote,
  precommitmentOf,
  recipientRhoOf,
} from '../core/witness.js';
import type { PoolEvent } from '../pool-node/client.js';
import type { StoredNote } from './store.js';
import type { WalletContext } from './wallet-context.js';

/** What applying events found: notes added, pending payments settled. */
export interface EventsFound {
  readonly notes: number;
  readonly settled: number;
}

type SettlementEvent = Extract<PoolEvent, { kind: 'settlement' }>;

/** Applies the pool's events to one wallet's state (its notes, pending payments and cursors). */
export class EventApplier {
  /** Notes by nullifier (a settlement names the note it spends). */
  private readonly byNullifier = new Map<string, StoredNote>();
  /** Recipient addresses of settlements already decoded: whether each is this wallet's. */
  private readonly addressSeen = new Map<string, boolean>();
  /** The pool's time of the event being applied (unix ms): the birth of the notes it makes. */
  private eventTime = 0;

  constructor(private readonly context: WalletContext) {
    for (const note of context.state.notes) this.byNullifier.set(note.nullifier, note);
  }

  /**
   * Applies a page of events in the log's order. Deposits are matched against the counters the
   * wallet watches a page at a time (one core call; one hash per distinct amount and counter);
   * a match changes what is watched, so the rest of the page is matched again after it.
   */
  async applyEvents(events: readonly PoolEvent[]): Promise<EventsFound> {
    let notes = 0;
    let settled = 0;
    let at = 0;
    while (at < events.length) {
      const match = await this.nextDeposit(events, at);
      const end = match ? match.at : events.length;
      for (; at < end; at++) {
        const found = this.applyEvent(events[at]!, null);
        notes += found.notes;
        settled += found.settled;
      }
      if (match) {
        notes += this.applyEvent(events[match.at]!, match.counter).notes;
        at = match.at + 1;
      }
    }
    return { notes, settled };
  }

  /** The first deposit at or after `from` that pays a counter the wallet watches. */
  private async nextDeposit(
    events: readonly PoolEvent[],
    from: number,
  ): Promise<{ at: number; counter: number } | null> {
    const core = this.context.core;
    const watched = this.context.tickets.watch();
    if (watched.counters.length === 0) return null;
    const positions: number[] = [];
    const deposits: { amount: string; commitment: string }[] = [];
    for (let i = from; i < events.length; i++) {
      const event = events[i]!;
      if (event.kind !== 'deposit') continue;
      positions.push(i);
      deposits.push({ amount: event.amount, commitment: event.commitment });
    }
    if (deposits.length === 0) return null;
    // Off the JavaScript thread where that is a thread (native), in two halves on two threads:
    // the pages ahead are parsed and the tree hashed meanwhile.
    let matches: DepositMatch[];
    if (core.backend !== 'native') matches = core.depositMatches(watched.pres, deposits);
    else {
      const half = deposits.length >= 256 ? Math.ceil(deposits.length / 2) : deposits.length;
      const [first, second] = await Promise.all([
        core.depositMatchesAsync(watched.pres, deposits.slice(0, half)),
        half < deposits.length
          ? core.depositMatchesAsync(watched.pres, deposits.slice(half))
          : Promise.resolve([]),
      ]);
      matches = [...first, ...second.map((m) => ({ ...m, deposit: m.deposit + half }))];
    }
    const first = matches[0];
    return first
      ? { at: positions[first.deposit]!, counter: watched.counters[first.precommitment]! }
      : null;
  }

  /** One event; `counter` is the deposit counter a deposit event pays (`null`: none of ours). */
  private applyEvent(event: PoolEvent, counter: number | null): EventsFound {
    const state = this.context.state;
    // The pool's clock comes from the checkpoints the wallet takes (an event's time is its
    // checkpoint's, and a mirror's is not confirmed).
    state.eventCursor = event.id;
    this.eventTime = event.time;
    if (event.kind === 'deposit') {
      if (counter === null) return { notes: 0, settled: 0 };
      return { notes: this.applyDeposit(event, counter), settled: 0 };
    }
    if (event.kind === 'transition' || event.kind === 'withdrawal')
      return { notes: this.applyTransition(event), settled: 0 };
    if (event.kind === 'refund') return { notes: this.applyRefund(event), settled: 0 };
    return this.applySettlement(event);
  }

  /**
   * A deposit to one of the wallet's counters: the note (`rho = H_DEPOSIT_RHO(sk, counter)`), and
   * the ticket closed.
   * @returns notes added
   */
  private applyDeposit(event: Extract<PoolEvent, { kind: 'deposit' }>, counter: number): number {
    const { core, state } = this.context;
    const rho = depositRhoOf(core, state.sk, counter);
    const derived = deriveNote(core, { sk: state.sk, value: event.amount, rho });
    const added = this.addNote({
      commitment: event.commitment,
      value: event.amount,
      rho,
      index: event.index,
      nullifier: derived.nullifier,
      origin: 'deposit',
      counter,
    });
    this.context.tickets.recordFound(counter, event.amount);
    return added ? 1 : 0;
  }

  /**
   * A settlement: one of ours spent (its change is ours), and/or a payment to us. The note it
   * spends is earlier in the log than the settlement (it had to be in a checkpoint to be spent),
   * so reading the log in order has already found it.
   */
  private applySettlement(event: SettlementEvent): EventsFound {
    let notes = 0;
    let settled = 0;
    const spentNote = this.byNullifier.get(event.nullifier);
    if (spentNote) {
      const found = this.applyOurSpend(spentNote, event);
      notes += found.notes;
      settled += found.settled;
    }
    if (this.isOurAddress(event.recipient)) notes += this.applyReceived(event);
    return { notes, settled };
  }

  /**
   * A settlement that spent `note`: the note spent, its change found (`rho = H_CHANGE_RHO(sk, nf)`)
   * and the payment recorded for it settled.
   */
  private applyOurSpend(note: StoredNote, event: SettlementEvent): EventsFound {
    const { core, state, owner } = this.context;
    let notes = 0;
    let settled = 0;
    note.spent = { settlementId: event.settlementId, eventId: event.id };
    const changeValue = BigInt(note.value) - BigInt(event.amount);
    const rho = changeRhoOf(core, state.sk, event.nullifier);
    if (changeValue > 0n) {
      const value = changeValue.toString();
      const commitment = commitmentOf(core, value, precommitmentOf(core, owner, rho));
      if (commitment === event.change) {
        const derived = deriveNote(core, { sk: state.sk, value, rho });
        if (
          this.addNote({
            commitment,
            value,
            rho,
            index: event.changeIndex,
            nullifier: derived.nullifier,
            origin: 'change',
          })
        )
          notes++;
      }
    }
    for (const p of state.pending) {
      if (p.nullifier === event.nullifier && p.status !== 'settled') {
        p.status = p.change === event.change ? 'settled' : p.status;
        if (p.status === 'settled') {
          p.settlementId = event.settlementId;
          settled++;
        }
      }
    }
    // Another payment built from the same note (the wallet never does that) lost: nothing to resolve.
    for (const p of state.pending)
      if (p.nullifier === event.nullifier && p.status === 'pending') p.status = 'expired';
    return { notes, settled };
  }

  /**
   * A settlement paying this wallet's address: the recipient note (`rho = H_RECIPIENT_RHO(nf)`).
   * @returns notes added
   */
  private applyReceived(event: SettlementEvent): number {
    const { core, state, owner } = this.context;
    const rho = recipientRhoOf(core, event.nullifier);
    const commitment = commitmentOf(core, event.amount, precommitmentOf(core, owner, rho));
    if (commitment !== event.recipientNote) return 0;
    const derived = deriveNote(core, { sk: state.sk, value: event.amount, rho });
    return this.addNote({
      commitment,
      value: event.amount,
      rho,
      index: event.recipientIndex,
      nullifier: derived.nullifier,
      origin: 'received',
    })
      ? 1
      : 0;
  }

  /**
   * A merge or split: our notes among its inputs are spent; when its first input is ours, its
   * outputs are ours too (the statement proves they belong to the inputs' owner), found from the
   * key: `rho` from the first nullifier, the value from the memo. Dummy outputs (value 0) are
   * left out.
   * @returns notes added
   */
  private applyTransition(
    event: Extract<PoolEvent, { kind: 'transition' } | { kind: 'withdrawal' }>,
  ): number {
    const id = event.kind === 'transition' ? event.transitionId : event.withdrawalId;
    for (const nullifier of event.nullifiers) {
      const note = this.byNullifier.get(nullifier);
      if (note) note.spent = { settlementId: id, eventId: event.id };
    }
    if (!this.byNullifier.has(event.nullifiers[0])) return 0;
    const core = this.context.core;
    let notes = 0;
    for (const found of recoverTransitionOutputs(core, this.context.state.sk, event)) {
      if (found.value === '0') continue;
      const derived = deriveNote(core, found);
      if (
        this.addNote({
          commitment: found.commitment,
          value: found.value,
          rho: found.rho,
          index: event.outputIndexes[found.output],
          nullifier: derived.nullifier,
          origin: 'transition',
        })
      )
        notes++;
    }
    return notes;
  }

  /**
   * A failed payout's refund: ours when the exit spent our note (its first nullifier), found from
   * the key (`rho = H_REFUND_RHO(sk, nf₁)`, the value the exit's amount).
   * @returns notes added
   */
  private applyRefund(event: Extract<PoolEvent, { kind: 'refund' }>): number {
    if (!this.byNullifier.has(event.nullifier)) return 0;
    const { core, state, owner } = this.context;
    const rho = refundRhoOf(core, state.sk, event.nullifier);
    const commitment = commitmentOf(core, event.amount, precommitmentOf(core, owner, rho));
    if (commitment !== event.commitment) return 0;
    const derived = deriveNote(core, { sk: state.sk, value: event.amount, rho });
    return this.addNote({
      commitment,
      value: event.amount,
      rho,
      index: event.index,
      nullifier: derived.nullifier,
      origin: 'refund',
    })
      ? 1
      : 0;
  }

  /**
   * Adds a note found in the log, once (a log read again finds it again), with its minimum age
   * drawn from the time of the event that made it.
   */
  private addNote(found: StoredNote): boolean {
    const notes = this.context.state.notes;
    if (notes.some((n) => n.commitment === found.commitment && n.index === found.index))
      return false;
    const matureAt = this.context.noteAges.matureAt(this.eventTime);
    const note = matureAt === undefined ? found : { ...found, matureAt };
    notes.push(note);
    this.byNullifier.set(note.nullifier, note);
    return true;
  }

  private isOurAddress(address: string): boolean {
    const { core, owner } = this.context;
    if (address === this.context.address) return true;
    // Another spelling of an address decodes to its owner; a pool's recipients repeat (merchants),
    // so each is decoded once (up to a bound).
    let ours = this.addressSeen.get(address);
    if (ours === undefined) {
      try {
        ours = core.decodeAddress(address) === owner;
      } catch {
        ours = false;
      }
      if (this.addressSeen.size >= 4096) this.addressSeen.clear();
      this.addressSeen.set(address, ours);
    }
    return ours;
  }
}
