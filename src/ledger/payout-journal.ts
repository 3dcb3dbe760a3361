/**
 * @module The payout sender's journal (docs/chain.md, "Payouts"): what a rail that signs
 * transactions keeps durably beside the ledger, in the same database — the lease under which one
 * instance at a time signs for a key, the nonces it reserved (each for exactly one withdrawal), every
 * signed transaction (the raw bytes, stored before they are broadcast, replacements too) and the
 * cursor of the withdrawals already decided. Signing writes are fenced by the lease: a write by an
 * instance that no longer holds it is refused with {@link LeaseLostError}, so two instances never
 * reserve nonces at once. SQLite (`sqlite-payout-journal.ts`) and PostgreSQL
 * (`postgres-payout-journal.ts`) run the same code path; `open-payout-journal.ts` opens the one the
 * store's configuration names.
 */

/** A lease held: who holds it, since which hand-over (`epoch`), until when (unix ms). */
export interface Lease {
  /** What it guards: a rail's name (one key's nonce sequence on one chain). */
  readonly name: string;
  /** The instance holding it (random per process start). */
  readonly holder: string;
  /** Grows by one at each hand-over to a new holder. */
  readonly epoch: number;
  readonly expiresAt: number;
}

/** One signed transaction of a payout, as stored before it was broadcast. */
export interface SignedPayout {
  /** Its hash (`0x` + 64 hex). */
  readonly hash: string;
  /** The signed bytes, hex: what is broadcast, and broadcast again after a restart. */
  readonly raw: string;
  readonly nonce: number;
  /** Fee caps, decimal (wei): a replacement raises both. */
  readonly maxFeePerGas: string;
  readonly maxPriorityFeePerGas: string;
  /** Unix ms, and the chain's latest block, when it was signed. */
  readonly signedAt: number;
  readonly signedBlock: number;
}

/**
 * A nonce reserved for one withdrawal, with the payout's deadline its transactions carry and the
 * transactions signed for it (the first, then each replacement, in signing order). At most one of
 * them can ever be mined: they share the nonce.
 */
export interface PayoutAttempt {
  readonly rail: string;
  readonly withdrawalId: string;
  readonly nonce: number;
  /** Unix seconds: the contract refuses the payout in a block after it. */
  readonly deadline: number;
  readonly reservedAt: number;
  readonly transactions: readonly SignedPayout[];
}

/** A signing write by an instance that does not hold the lease (any more). Nothing was written. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly lease: string) {
    super(`the lease ${lease} is not held by this instance`);
  }
}

/** A transaction stored for a nonce not reserved for its withdrawal. Nothing was written. */
export class NonceNotReservedError extends Error {
  override readonly name = 'NonceNotReservedError';
  constructor(
    readonly rail: string,
    readonly nonce: number,
  ) {
    super(`nonce ${nonce} of ${rail} is not reserved for this withdrawal`);
  }
}

/** The journal; every method answers or throws (`PoolUnavailableError` when the database fails). */
export interface PayoutJournal {
  /**
   * Takes the lease `name` for `holder` until `now + ttlMs`, or renews it: granted when it is free,
   * expired or already `holder`'s; a new holder gets the next epoch.
   * @returns the lease, or `null` while another instance holds it
   */
  acquireLease(name: string, holder: string, now: number, ttlMs: number): Promise<Lease | null>;
  /** Gives the lease up at once (a graceful stop), if `lease.holder` still holds it. */
  releaseLease(lease: Lease): Promise<void>;
  /** The lease as stored, or `null` if nobody ever took it. */
  readLease(name: string): Promise<Lease | null>;
  /** The event id up to which every withdrawal is decided (paid or failed) for `rail`; 0 at first. */
  cursor(rail: string): Promise<number>;
  /** Moves the cursor (never backwards), under the lease. */
  setCursor(lease: Lease, cursor: number, now: number): Promise<void>;
  /** A withdrawal's attempts on `rail`, oldest nonce first, each with its transactions. */
  attempts(rail: string, withdrawalId: string): Promise<PayoutAttempt[]>;
  /** The attempts on `rail` with a nonce at least `fromNonce`, oldest first. */
  openAttempts(rail: string, fromNonce: number): Promise<PayoutAttempt[]>;
  /**
   * Reserves the next nonce of `lease.name` — at least `floor`, above every nonce reserved before —
   * for `withdrawalId`, with the deadline its transactions will carry; under the lease.
   * @throws LeaseLostError when `lease` is not held at `now`
   */
  reserveNonce(
    lease: Lease,
    withdrawalId: string,
    floor: number,
    deadline: number,
    now: number,
  ): Promise<PayoutAttempt>;
  /**
   * Stores a signed transaction for a nonce reserved for `withdrawalId` (the first, or a
   * replacement), under the lease. Stored again, the same hash is a no-op.
   * @throws LeaseLostError when `lease` is not held at `now`; NonceNotReservedError when the
   *   nonce is not reserved for that withdrawal
   */
  storeTransaction(
    lease: Lease,
    withdrawalId: string,
    transaction: SignedPayout,
    now: number,
  ): Promise<void>;
  /** Releases the connection (the store's stays open). Idempotent. */
  close(): Promise<void>;
}
