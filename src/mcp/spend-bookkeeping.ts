/**
 * @module The agent's bookkeeping around the spend ledger: a reservation written to disk before the
 * wallet builds anything (released when it cannot be), the spend ledger following the wallet's
 * records after each sync and after a restart, and an entry read back as the tools show it. What
 * counts when is the spend ledger's own rule (spend-ledger.ts); status moves only from what the
 * wallet read in the pool's log, never from a merchant's claim.
 */

import type { Wallet } from '../client/index.js';
import { ToolError } from './errors.js';
import type { SpendEntry, SpendLedger } from './spend-ledger.js';
import type { LedgerFile } from './spend-ledger-file.js';
import { type PaymentView, paymentView } from './views.js';

/** One agent's spend ledger, kept in step with its wallet. */
export class SpendBookkeeping {
  constructor(
    private readonly wallet: Wallet,
    private readonly spendLedgerFile: LedgerFile,
    private readonly clock: () => number,
    /** How often the wallet is synced while waiting for a settlement, ms. */
    private readonly pollMs: number,
  ) {}

  /** The spend ledger (its file's, in memory). */
  get spendLedger(): SpendLedger {
    return this.spendLedgerFile.ledger;
  }

  /**
   * Links what a previous run left reserved to the wallet's records (or releases it), then syncs.
   * Call once before serving.
   */
  async start(): Promise<void> {
    if (this.spendLedger.recover(this.wallet.payments())) await this.spendLedgerFile.save();
    await this.sync().catch(() => undefined);
  }

  /**
   * Syncs the wallet with the pool and follows its payment records in the spend ledger (and, for
   * withdrawals of unknown outcome, their notes).
   */
  async sync(): Promise<void> {
    await this.wallet.sync();
    const payments = this.spendLedger.reconcile(this.wallet.payments());
    const withdrawals = this.spendLedger.reconcileWithdrawals(
      new Set(this.wallet.notes().map((n) => n.commitment as string)),
    );
    if (this.spendLedger.prune() || payments || withdrawals) await this.spendLedgerFile.save();
  }

  /**
   * Writes a reservation just made, before anything is built; when the file cannot be written the
   * reservation is released, and nothing is built.
   * @param nothing what the refusal says did not happen (`paid`, `withdrawn`)
   * @throws ToolError `ledger_unwritable`
   */
  async keepReservation(entry: SpendEntry, nothing: 'paid' | 'withdrawn'): Promise<void> {
    try {
      await this.spendLedgerFile.save();
    } catch (error) {
      this.spendLedger.release(entry.id);
      throw new ToolError(
        'ledger_unwritable',
        `the spend ledger could not be written, so nothing was ${nothing}`,
        { cause: error },
      );
    }
  }

  /** Writes the spend ledger, a failure ignored (each caller says why it may be). */
  async saveIfPossible(): Promise<void> {
    await this.spendLedgerFile.save().catch(() => undefined);
  }

  /** The entry `id` as the tools show it, with the wallet's record of its payment. */
  entryView(id: string): PaymentView {
    const entry = this.spendLedger.entries().find((e) => e.id === id)!;
    const record =
      entry.nullifier === undefined
        ? undefined
        : this.wallet.payments().find((p) => p.nullifier === entry.nullifier);
    return paymentView(entry, record, this.wallet.network);
  }

  /**
   * Syncs until the pool's log resolves the payment of entry `id` or `waitMs` passes — only for a
   * pool without an epoch grid: on the grid, polling that stops at the wallet's own settlement would
   * show the operator which syncs are the payer's; the server's jittered syncs resolve it later.
   */
  async waitForResolution(id: string, waitMs: number): Promise<void> {
    if ((this.wallet.epochGrid?.epochMs ?? 1) > 1) return;
    const deadline = this.clock() + waitMs;
    for (;;) {
      await this.sync().catch(() => undefined);
      const entry = this.spendLedger.entries().find((e) => e.id === id);
      if (entry?.status !== 'left' || this.clock() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }
}
