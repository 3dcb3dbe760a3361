/**
 * @module The pool node's attester (docs/audit.md, "Attestations"): every interval, and when the
 * operator asks (`POST /attest`, `priv-stark pool attest`), it posts the claim of the latest
 * published checkpoint to the escrow with the attester key —
 *
 * - the checkpoint's sequence and root (the epoch checkpoints wallets anchor to);
 * - the log digest after its events (the pool node's recorded digest, extended first);
 * - the totals as of it: deposited, withdrawn and refunded as the public log sums them to that
 *   checkpoint, paid out as recorded when the claim is made (each payout is recorded once final);
 * - the root of the withdrawals published by then and not yet paid or refunded
 *   (`unpaid-withdrawals.ts`), those to an account on the escrow's chain (no other can be paid).
 *
 * Before it is sent, the claimed unpaid set is recorded under its root (`attested-sets.ts`): with
 * two-key payouts the payout rail proves from it (docs/chain.md, "Two-key payouts"). A checkpoint
 * the escrow already holds is not posted again (nothing is sent). One attestation at
 * a time: a call while one runs shares it. A failure is reported and the next interval tries again.
 */

import type { Address, Hex } from 'viem';

import type { AttestedSets } from '../ledger/attested-sets.js';
import type { PoolStore } from '../ledger/store.js';
import type { AttestReport, AttestResult, Attester } from '../pool-node/attest-route.js';
import { ChainError } from './chain-errors.js';
import type { AttestationClaim, AttestationSender } from './attestation-sender.js';
import { latestAttestedSeq } from './attestation-sender.js';
import { destinationAddress } from './payout-signing.js';
import type { ChainClients } from './rpc-client.js';
import { type UnpaidWithdrawal, unpaidRoot } from './unpaid-withdrawals.js';

/** The default interval between attestations: hourly (docs/chain.md, "Gas"). */
export const DEFAULT_ATTEST_INTERVAL_MS = 3_600_000;

/** Withdrawals read per page when the unpaid set is gathered. */
const WITHDRAWAL_PAGE = 500;

/** What the attester reports as it goes (never a key). */
export type AttesterEvent =
  | { readonly kind: 'attested'; readonly report: AttestReport }
  | { readonly kind: 'attest_failed'; readonly code: string; readonly message: string };

/** What the attester reads and sends with. */
export interface AttesterOptions {
  readonly store: Pick<PoolStore, 'publishedState' | 'logDigests' | 'withdrawals'>;
  /** Brings the recorded log digests up to the latest checkpoint (the pool node's digester). */
  readonly extendLogDigests: () => Promise<unknown>;
  readonly clients: ChainClients;
  readonly chainId: number;
  readonly sender: AttestationSender;
  /** Where each claimed unpaid set is recorded before it is sent (none: not recorded). */
  readonly sets?: AttestedSets | undefined;
  readonly onEvent?: (event: AttesterEvent) => void;
}

/** The claim of the latest published checkpoint and the withdrawals it leaves unpaid. */
export interface ClaimAt {
  readonly claim: AttestationClaim;
  readonly unpaid: number;
  readonly withdrawals: readonly UnpaidWithdrawal[];
}

/**
 * The claim of the latest published checkpoint, `null` before the first.
 * @throws Error when the digester left that checkpoint without a digest (it failed: its code is
 *   in the pool node's log)
 */
export async function claimOfLatest(
  options: Pick<AttesterOptions, 'store' | 'extendLogDigests' | 'chainId'>,
): Promise<ClaimAt | null> {
  const { store, chainId } = options;
  const state = await store.publishedState();
  const checkpoint = state.checkpoint;
  if (checkpoint === null) return null;
  await options.extendLogDigests();
  const [digest] = await store.logDigests(checkpoint.seq - 1, 1);
  if (digest === undefined || digest.seq !== checkpoint.seq)
    throw new Error(`no log digest is recorded for checkpoint ${checkpoint.seq}`);
  // Every event up to the checkpoint's cut is published by it, and events are numbered on
  // arrival without gaps: those with an id up to its count are the ones it published.
  const unpaid: UnpaidWithdrawal[] = [];
  for (let after = 0; ; ) {
    const page = await store.withdrawals(after, WITHDRAWAL_PAGE);
    for (const w of page) {
      if (w.eventId > digest.events || w.status === 'paid' || w.status === 'failed') continue;
      const to = destinationAddress(w.destination, chainId);
      if (to !== null)
        unpaid.push({
          withdrawalId: w.withdrawalId as Hex,
          to: to as Address,
          amount: BigInt(w.amount),
        });
    }
    if (page.length < WITHDRAWAL_PAGE) break;
    after = page.at(-1)!.eventId;
  }
  return {
    claim: {
      seq: checkpoint.seq,
      root: checkpoint.root as Hex,
      logDigest: digest.digest as Hex,
      totals: [
        BigInt(state.depositTotal),
        BigInt(state.withdrawnTotal),
        BigInt(state.paidOutTotal),
        BigInt(state.refundedTotal),
      ],
      unpaidRoot: unpaidRoot(unpaid),
    },
    unpaid: unpaid.length,
    withdrawals: unpaid,
  };
}

/** The report of a claim and what posting it came to. */
function reportOf(
  at: ClaimAt,
  sent: Awaited<ReturnType<AttestationSender['send']>> | null,
): AttestReport {
  const [deposited, withdrawn, paidOut, refunded] = at.claim.totals.map(String) as [
    string,
    string,
    string,
    string,
  ];
  return {
    outcome: sent?.outcome ?? 'already_attested',
    seq: at.claim.seq,
    root: at.claim.root,
    logDigest: at.claim.logDigest,
    unpaidRoot: at.claim.unpaidRoot,
    unpaid: at.unpaid,
    totals: { deposited, withdrawn, paidOut, refunded },
    tx: sent?.outcome === 'attested' ? sent.tx : null,
    block: sent?.outcome === 'attested' ? Number(sent.block) : null,
    gasUsed: sent?.outcome === 'attested' ? Number(sent.gasUsed) : null,
  };
}

const NO_CHECKPOINT: AttestReport = {
  outcome: 'no_checkpoint',
  seq: 0,
  root: null,
  logDigest: null,
  unpaidRoot: null,
  unpaid: 0,
  totals: null,
  tx: null,
  block: null,
  gasUsed: null,
};

/** Posts the pool's attestations. */
export class ChainAttester implements Attester {
  private running: Promise<AttestResult> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: AttesterOptions) {}

  /**
   * The report, or the failure's chain code (`rpc_unreachable`, `attestation_refused`, …;
   * `attest_failed` for anything else, such as the store unavailable).
   */
  attestNow(): Promise<AttestResult> {
    this.running ??= this.attest().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Attests every `intervalMs` until {@link stop} (0: only on demand). */
  start(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.attestNow(), intervalMs);
    this.timer.unref();
  }

  /** Stops the interval and waits for an attestation under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Durable before the claim is sent: a root on chain always has its set recorded. */
  private async recordSet(at: ClaimAt): Promise<void> {
    await this.options.sets?.record(
      {
        seq: at.claim.seq,
        unpaidRoot: at.claim.unpaidRoot,
        withdrawals: at.withdrawals.map((w) => ({
          withdrawalId: w.withdrawalId,
          to: w.to,
          amount: w.amount.toString(),
        })),
      },
      Date.now(),
    );
  }

  private async attest(): Promise<AttestResult> {
    const { onEvent, clients, sender } = this.options;
    try {
      const at = await claimOfLatest(this.options);
      if (at === null) return { ok: true, report: NO_CHECKPOINT };
      const latest = await latestAttestedSeq(clients.public, sender.escrow);
      if (latest < at.claim.seq) await this.recordSet(at);
      const sent = latest >= at.claim.seq ? null : await sender.send(at.claim);
      const report = reportOf(at, sent);
      onEvent?.({ kind: 'attested', report });
      return { ok: true, report };
    } catch (error) {
      const code = error instanceof ChainError ? error.code : 'attest_failed';
      const message = (error as Error).message.slice(0, 300);
      onEvent?.({ kind: 'attest_failed', code, message });
      return { ok: false, code, message };
    }
  }
}
