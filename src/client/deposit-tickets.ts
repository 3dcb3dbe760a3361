/**
 * @module A wallet's deposit tickets and the one bound that makes them recoverable from the key.
 *
 * A ticket is counter `n`'s precommitment `H_PRE(owner, H_DEPOSIT_RHO(sk, n))` with an amount; the
 * operator shields it as a deposit event that shows only the amount and the commitment, in any
 * order and at any time. **The bound:** a wallet hands out counter `c` only while `c < found + N`,
 * `found` being how many of its counters it has seen shielded — so at most `N` of its tickets are
 * ever issued and not yet seen shielded ({@link DEPOSIT_GAP} = 8). **Recovery:** a wallet restored
 * from the key reads the log in order and tries, on each deposit event, every counter below
 * `found + N` it has not found yet. When ticket `c`'s deposit comes, every ticket the issuing wallet
 * had seen shielded when it issued `c` is earlier in the log, so (by induction on the log) the
 * restoring wallet has found them all: `found ≥ found_at_issue > c − N`, and `c` is in its window.
 * docs/client.md ("Recovery") has the argument in full.
 *
 * A wallet whose key it made itself watches exactly the counters it issued; a restored one keeps
 * watching `N` counters past those found (a lost copy of the key may have handed them out), reuses
 * those counters for its own tickets (never a fresh counter past the bound), and keeps watching for
 * any amount the ones it reused, even once found: a lost copy's ticket for the same counter may
 * still be shielded.
 */

import type { DigestHex } from '../core/digest.js';
import type { PrivStarkCore } from '../core/facade.js';
import { commitmentOf, depositRhoOf, precommitmentOf } from '../core/witness.js';
import { isAmount } from '../scheme/index.js';
import { TooManyOpenTicketsError, WalletBehindError, WalletError } from './errors.js';
import type { WalletState } from './store.js';

/**
 * The recovery bound `N`: at most this many of a wallet's deposit tickets are issued and not yet
 * seen shielded, and a wallet restored from its key watches this many counters past those found.
 */
export const DEPOSIT_GAP = 8;

/** The most a wallet may be configured with (each deposit event costs a hash per counter watched). */
export const DEPOSIT_GAP_MAX = 256;

/**
 * The recovery bound a wallet is made with: `bound`, or {@link DEPOSIT_GAP} when none is given.
 * @throws RangeError outside 1..{@link DEPOSIT_GAP_MAX}
 */
export function recoveryBoundOf(bound: number | undefined): number {
  const chosen = bound ?? DEPOSIT_GAP;
  if (!Number.isSafeInteger(chosen) || chosen < 1 || chosen > DEPOSIT_GAP_MAX)
    throw new RangeError(`"recoveryBound" expected an integer in 1..${DEPOSIT_GAP_MAX}`);
  return chosen;
}

/** A deposit the operator can shield to this wallet: the amount and the precommitment to send. */
export interface DepositTicket {
  readonly amount: string;
  readonly pre: DigestHex;
  readonly counter: number;
  readonly commitment: DigestHex;
}

/** A ticket handed out and not seen shielded yet (amount `null`: issued before the wallet kept it). */
export interface OpenTicket {
  readonly counter: number;
  readonly pre: DigestHex;
  readonly amount: string | null;
  readonly commitment: DigestHex | null;
}

/** The tickets of one wallet, over its (persisted) state. */
export class DepositTickets {
  /** Precommitments by counter (each costs two hashes). */
  private readonly pres = new Map<number, DigestHex>();
  /** Counters found in the log. */
  private readonly found = new Set<number>();
  /** Every counter below it is found. */
  private lowestOpen = 0;
  /** The counters watched for any amount, until a deposit is found or a ticket issued. */
  private watched: { counters: number[]; pres: DigestHex[] } | null = null;

  constructor(
    private readonly core: PrivStarkCore,
    private readonly owner: DigestHex,
    private readonly state: WalletState,
  ) {
    for (const note of state.notes)
      if (note.origin === 'deposit' && note.counter !== undefined) this.found.add(note.counter);
    this.advance();
    // Files from before the wallet kept its tickets: the counters it issued and has not found.
    if (state.tickets === undefined) {
      state.tickets = [];
      if (state.depositGap === 0)
        for (let c = 0; c < state.depositCounter; c++)
          if (!this.found.has(c)) state.tickets.push({ counter: c, amount: null });
    }
  }

  /** The bound `N` of this wallet. */
  get bound(): number {
    return this.state.depositBound ?? DEPOSIT_GAP;
  }

  /** How many of the key's counters the wallet has found in the log. */
  get foundCount(): number {
    return this.found.size;
  }

  /** Counter `n`'s precommitment. */
  precommitment(counter: number): DigestHex {
    let pre = this.pres.get(counter);
    if (pre === undefined) {
      pre = precommitmentOf(this.core, this.owner, depositRhoOf(this.core, this.state.sk, counter));
      this.pres.set(counter, pre);
    }
    return pre;
  }

  /**
   * Hands out the next ticket: a key made here takes its next counter; a restored one the lowest
   * counter neither found nor handed out by itself (which a lost copy may have handed out: it keeps
   * watching that one for any amount).
   * @throws RangeError for an amount that is not decimal atomic units below 2^62;
   *   TooManyOpenTicketsError at the bound; WalletBehindError for a restored key not synced yet
   */
  issue(amount: string): DepositTicket {
    checkTicketAmount(amount);
    const restored = this.state.depositGap > 0;
    if (restored && this.state.inheritedBelow == null) {
      throw new WalletBehindError(
        'a wallet restored from its key hands out deposit tickets only after its first sync (it must know which counters the key already used)',
      );
    }
    const tickets = this.state.tickets!;
    let counter: number;
    if (restored) {
      const own = new Set(tickets.map((t) => t.counter));
      counter = this.lowestOpen;
      while (this.found.has(counter) || own.has(counter)) counter++;
    } else {
      counter = this.state.depositCounter;
    }
    if (counter >= this.found.size + this.bound)
      throw new TooManyOpenTicketsError(
        this.bound,
        tickets.map((t) => t.counter),
      );
    tickets.push({ counter, amount });
    this.state.depositCounter = Math.max(this.state.depositCounter, counter + 1);
    if (restored && counter < (this.state.inheritedBelow ?? 0))
      this.state.reissued = [...(this.state.reissued ?? []), counter];
    this.watched = null;
    return this.ticket(counter, amount);
  }

  /** The tickets handed out and not seen shielded, by counter. */
  open(): OpenTicket[] {
    return this.state
      .tickets!.slice()
      .sort((a, b) => a.counter - b.counter)
      .map(({ counter, amount }) => {
        const pre = this.precommitment(counter);
        return {
          counter,
          pre,
          amount,
          commitment: amount === null ? null : commitmentOf(this.core, amount, pre),
        };
      });
  }

  /**
   * An open ticket again — the same precommitment, the same amount — to hand to the operator once
   * more (a ticket lost on the way is never lost to the wallet: the pool refuses the same
   * commitment twice, so both copies cannot be shielded). `amount` is needed only for a ticket
   * issued before the wallet kept its amount, and must be the amount of the ticket otherwise.
   * @throws RangeError for an amount that is not decimal atomic units below 2^62; WalletError
   *   `ticket_not_open` for a counter that is not an open ticket of this wallet
   */
  reissue(counter: number, amount?: string): DepositTicket {
    if (amount !== undefined) checkTicketAmount(amount);
    const ticket = this.state.tickets!.find((t) => t.counter === counter);
    if (!ticket)
      throw new WalletError(
        'ticket_not_open',
        `deposit ticket #${counter} is not an open ticket of this wallet (open: ${this.openList()})`,
      );
    if (ticket.amount === null) {
      if (amount === undefined)
        throw new WalletError(
          'ticket_amount_unknown',
          `deposit ticket #${counter} was issued before the wallet kept amounts: give the amount it was issued for`,
        );
      ticket.amount = amount;
    } else if (amount !== undefined && amount !== ticket.amount) {
      throw new WalletError(
        'ticket_amount_mismatch',
        `deposit ticket #${counter} was issued for another amount: a ticket is re-issued as it was`,
      );
    }
    return this.ticket(counter, ticket.amount);
  }

  /** The counters to try for any amount on a deposit event, and their precommitments. */
  watch(): { counters: number[]; pres: DigestHex[] } {
    if (this.watched) return this.watched;
    const limit = Math.max(this.state.depositCounter, this.found.size + this.state.depositGap);
    const counters: number[] = [];
    for (let c = this.lowestOpen; c < limit; c++) if (!this.found.has(c)) counters.push(c);
    for (const c of this.state.reissued ?? []) if (this.found.has(c)) counters.push(c);
    this.watched = { counters, pres: counters.map((c) => this.precommitment(c)) };
    return this.watched;
  }

  /** Records that the deposit of `amount` to `counter` is in the log (its note already added). */
  recordFound(counter: number, amount: string): void {
    this.found.add(counter);
    this.advance();
    this.state.depositCounter = Math.max(this.state.depositCounter, counter + 1);
    // The wallet's own ticket for that counter is closed — unless the counter was reused after a
    // restore and this deposit, of another amount, is the lost copy's.
    const suspect = (this.state.reissued ?? []).includes(counter);
    this.state.tickets = this.state.tickets!.filter(
      (t) => t.counter !== counter || (suspect && t.amount !== null && t.amount !== amount),
    );
    this.watched = null;
  }

  /** A restored wallet's first sync is over: counters below `found + N` may be a lost copy's. */
  synced(): void {
    if (this.state.depositGap > 0 && this.state.inheritedBelow == null)
      this.state.inheritedBelow = this.found.size + this.state.depositGap;
  }

  private ticket(counter: number, amount: string): DepositTicket {
    const pre = this.precommitment(counter);
    return { amount, pre, counter, commitment: commitmentOf(this.core, amount, pre) };
  }

  private advance(): void {
    while (this.found.has(this.lowestOpen)) this.lowestOpen++;
  }

  private openList(): string {
    const list = this.state.tickets!.map((t) => `#${t.counter}`);
    return list.length > 0 ? list.join(', ') : 'none';
  }
}

/** A ticket's amount: decimal atomic units, `0 < amount < 2^62` (what the pool shields). */
function checkTicketAmount(amount: string): void {
  if (!isAmount(amount))
    throw new RangeError(`"amount" expected decimal atomic units, 0 < amount < 2^62`);
}
