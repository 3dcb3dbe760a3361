/**
 * @module The wallet's errors: each has a stable `code` so callers (and the CLI) can act on it.
 */

import { COMPACT_HEADER_MAX_BYTES } from '../scheme/index.js';

/** Base class of wallet errors. */
export class WalletError extends Error {
  constructor(
    /** Stable snake_case code. */
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WalletError';
  }
}

/** No unspent note can pay the amount. */
export class InsufficientFundsError extends WalletError {
  constructor(
    /** Atomic units asked for. */
    readonly needed: bigint,
    /** Spendable atomic units (unspent, anchored, not locked by a pending payment). */
    readonly spendable: bigint,
    /** The largest single spendable note (v1 spends one note per payment). */
    readonly largestNote: bigint,
  ) {
    super(
      'insufficient_funds',
      spendable < needed
        ? `insufficient funds: the payment needs ${needed} atomic units, the wallet can spend ${spendable}`
        : `insufficient funds in one note: the payment needs ${needed} atomic units and a payment spends one note, the largest spendable note holds ${largestNote} (${spendable} in all)`,
    );
    this.name = 'InsufficientFundsError';
  }
}

/** The wallet's copy of the pool is missing what a payment needs: sync (or wait for a checkpoint). */
export class WalletBehindError extends WalletError {
  constructor(message: string, code = 'wallet_behind') {
    super(code, message);
    this.name = 'WalletBehindError';
  }
}

/**
 * The notes that would pay are younger than their minimum age (docs/privacy.md, "Notes"): wait
 * until `matureAt`, or spend now (`spendNow`, `--spend-now`), which links the payment to the note's
 * making. A kind of {@link WalletBehindError}: the wallet has to wait.
 */
export class NoteTooYoungError extends WalletBehindError {
  constructor(
    /** Unix ms (the wallet's clock) when the youngest note that would pay reaches its age. */
    readonly matureAt: number,
  ) {
    super(
      `the notes that would pay this are younger than their minimum age until ${new Date(matureAt).toISOString()}: wait, or spend now (which links the payment to the note's deposit, settlement or split)`,
      'note_too_young',
    );
    this.name = 'NoteTooYoungError';
  }
}

/**
 * The wallet has as many deposit tickets issued and not yet seen shielded as the recovery bound
 * allows: one more could not be found by a wallet restored from the key (docs/client.md,
 * "Recovery"). Sync once the operator has shielded one, or hand an open one out again.
 */
export class TooManyOpenTicketsError extends WalletError {
  constructor(
    /** The bound `N`. */
    readonly bound: number,
    /** Counters of the open tickets. */
    readonly open: readonly number[],
  ) {
    const list = open.map((c) => `#${c}`).join(', ');
    super(
      'too_many_open_tickets',
      `${open.length} deposit tickets are issued and not yet seen shielded (${list || 'none'}), and a wallet hands out a ticket only while fewer than ${bound} are: a wallet restored from the key could not find one more. Sync once the operator has shielded one, or hand an open one out again (reissueTicket)`,
    );
    this.name = 'TooManyOpenTicketsError';
  }
}

/** The pool node disagrees with what the wallet already holds (another pool, or a reset one). */
export class PoolMismatchError extends WalletError {
  constructor(message: string) {
    super('pool_mismatch', message);
    this.name = 'PoolMismatchError';
  }
}

/** The payment requirements are not something this wallet can pay. */
export class UnpayableRequirementsError extends WalletError {
  constructor(message: string) {
    super('unpayable_requirements', message);
    this.name = 'UnpayableRequirementsError';
  }
}

/**
 * The merchant answered 431: its server (or a proxy in front of it) refuses the `PAYMENT-SIGNATURE`
 * header of this size. For an inline payment the paying fetch first retries compactly (the proof
 * handed over to the pool node); this error means even that was refused, or no compact retry was
 * possible.
 */
export class PaymentHeaderTooLargeError extends WalletError {
  constructor(
    /** Bytes of the `PAYMENT-SIGNATURE` header that was refused (name, `: ` and value). */
    readonly headerBytes: number,
    readonly url: string,
    /** How the refused payment carried its proof. */
    readonly transport: 'inline' | 'reference' = 'inline',
  ) {
    super(
      'payment_header_too_large',
      transport === 'reference'
        ? `the merchant at ${url} answered 431 even to the ${headerBytes}-byte compact PAYMENT-SIGNATURE header (the proof handed over to the pool node, only its reference in the header): its server or a proxy in front of it allows less than stock servers do (Node 16 KiB, nginx 8 KB a line); a compact header stays within ${COMPACT_HEADER_MAX_BYTES} bytes for routes within the profile's bounds, so the merchant's limit must be raised (or its route's description or URL shortened)`
        : `the merchant at ${url} answered 431 to the ${headerBytes}-byte PAYMENT-SIGNATURE header that carries the proof inline: pay compactly (payingFetch hands the proof over to the pool node and retries when the merchant refuses an inline payment), or the merchant must allow request headers of at least 256 KiB (Node: http.createServer({ maxHeaderSize: 262144 }))`,
    );
    this.name = 'PaymentHeaderTooLargeError';
  }
}
