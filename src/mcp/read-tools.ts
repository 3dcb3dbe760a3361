/**
 * @module The tools that read: `get_balance`, `list_payments` and `get_policy`. They sync or read
 * and never spend (`tighten_policy` is the policy evaluation's; the tools that pay or move notes
 * have modules of their own).
 */

import { TRANSFER_RESOURCE_ID } from '../scheme/index.js';
import type { AgentContext } from './agent-context.js';
import { largestSpendableNote, spendableNotes } from './spendable-notes.js';
import {
  type BalanceView,
  formatUnits,
  iso,
  MAX_LISTED_NOTES,
  type PaymentView,
  type PolicyView,
  paymentView,
} from './views.js';

/** `get_balance`, after a sync. */
export async function getBalance(ctx: AgentContext): Promise<BalanceView> {
  const { wallet } = ctx;
  await ctx.bookkeeping.sync();
  const balance = wallet.balance();
  const notes = wallet.notes();
  const largest = largestSpendableNote(wallet);
  const spendable = spendableNotes(wallet)
    .sort((a, b) => (BigInt(a.value) > BigInt(b.value) ? -1 : 1))
    .slice(0, MAX_LISTED_NOTES)
    .map((n) => ({ commitment: n.commitment as string, value: n.value }));
  const { asset, decimals, network } = wallet.network;
  return {
    asset,
    decimals,
    network,
    spendable: balance.spendable.toString(),
    pending: balance.pending.toString(),
    unconfirmed: balance.unconfirmed.toString(),
    total: balance.total.toString(),
    spendable_display: `${formatUnits(balance.spendable, decimals)} ${asset}`,
    notes: notes.length,
    largest_spendable_note: largest.toString(),
    checkpoint: wallet.checkpoint?.seq ?? null,
    synced_at: iso(ctx.clock()),
    spendable_notes: spendable,
  };
}

/**
 * `list_payments`: the newest first, after a sync; this server's and the wallet's own — not the
 * wallet's splits (transfers to its own address: ready notes), which move no value out of it.
 */
export async function listPayments(ctx: AgentContext, limit: number): Promise<PaymentView[]> {
  const { wallet } = ctx;
  await ctx.bookkeeping.sync();
  const own = wallet.address;
  const records = wallet
    .payments()
    .filter((r) => !(r.resourceId === TRANSFER_RESOURCE_ID && r.payTo === own));
  const byNullifier = new Map(records.map((r) => [r.nullifier as string, r]));
  const views: { at: number; view: PaymentView }[] = [];
  const shown = new Set<string>();
  for (const entry of ctx.bookkeeping.spendLedger.entries()) {
    if (entry.status === 'released') continue;
    const record = entry.nullifier === undefined ? undefined : byNullifier.get(entry.nullifier);
    if (record) shown.add(record.nullifier);
    views.push({ at: entry.reservedAt, view: paymentView(entry, record, wallet.network) });
  }
  for (const record of records)
    if (!shown.has(record.nullifier))
      views.push({ at: record.createdAt, view: paymentView(undefined, record, wallet.network) });
  return views
    .sort((a, b) => b.at - a.at)
    .slice(0, limit)
    .map((v) => v.view);
}

/** `get_policy`: the policy in force and its usage. */
export async function getPolicy(ctx: AgentContext): Promise<PolicyView> {
  return ctx.policy.view(await ctx.policy.current());
}
