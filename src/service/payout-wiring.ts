/**
 * @module The payout sender of a chain pool, wired (docs/chain.md, "Payouts"): in the pool node's
 * instance, with the payout key, the sender pays the ledger's withdrawals through the escrow — its
 * journal beside the ledger (the same SQLite file or PostgreSQL database), its lease shared by
 * every instance on that database so one pays at a time. Its settings come from the environment
 * (`payoutConfigFromEnv`); its events go to the pool node's log (hashes and nonces, never a key,
 * a signature or a raw transaction) and to the metrics.
 */

import { randomUUID } from 'node:crypto';

import type { Registry } from 'prom-client';
import type { Address, LocalAccount, PublicClient } from 'viem';

import type { Finality } from '../chain/finality.js';
import { DEFAULT_MIN_GAS_BALANCE } from '../chain/gas-balances.js';
import type { OperatorKeys } from '../chain/keys.js';
import { EvmPayoutRail, type RailEvent, type TwoKeyOptions } from '../chain/payout-rail.js';
import { PayoutMetrics } from '../http/payout-metrics.js';
import type { Ledger, StoreConfig } from '../ledger/index.js';
import { openPayoutJournal } from '../ledger/open-payout-journal.js';
import type { PayoutWait } from '../pool-node/payout-rail.js';
import { type PayoutEvent, PayoutSender } from '../pool-node/payout-sender.js';
import type { ChainServiceConfig, OpenedChain } from './chain-wiring.js';
import { ServiceConfigError } from './config-error.js';

/** The payout sender's settings. */
export interface PayoutServiceConfig {
  /** The ceiling on the fee per gas, wei (`PAYOUT_MAX_FEE_PER_GAS`; default 50 gwei). */
  readonly maxFeePerGas: bigint;
  /** A payout's deadline after the block it is signed at, s (`PAYOUT_DEADLINE_SECONDS`; 86 400). */
  readonly deadlineSeconds: number;
  /** Blocks before a stuck, outbid transaction is replaced (`PAYOUT_REPLACE_AFTER_BLOCKS`; 3). */
  readonly replaceAfterBlocks: number;
  /** The lease's time to live, ms (`PAYOUT_LEASE_TTL_MS`; 15 000): the longest hand-over. */
  readonly leaseTtlMs: number;
  /** Between passes, ms (`PAYOUT_POLL_INTERVAL_MS`; 2000; 0: only when asked, for tests). */
  readonly pollIntervalMs: number;
}

/** The defaults. */
export const PAYOUT_DEFAULTS: PayoutServiceConfig = {
  maxFeePerGas: 50_000_000_000n,
  deadlineSeconds: 86_400,
  replaceAfterBlocks: 3,
  leaseTtlMs: 15_000,
  pollIntervalMs: 2000,
};

const LIMITS = {
  PAYOUT_DEADLINE_SECONDS: [60, 30 * 86_400],
  PAYOUT_REPLACE_AFTER_BLOCKS: [1, 10_000],
  PAYOUT_LEASE_TTL_MS: [1000, 600_000],
  PAYOUT_POLL_INTERVAL_MS: [0, 600_000],
} as const;

/**
 * The settings from the environment, the defaults for what is unset.
 * @throws ServiceConfigError naming a variable whose value is not an integer in its range
 */
export function payoutConfigFromEnv(env: NodeJS.ProcessEnv = process.env): PayoutServiceConfig {
  const integer = (name: keyof typeof LIMITS, fallback: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const [low, high] = LIMITS[name];
    if (!/^[0-9]{1,9}$/.test(text) || Number(text) < low || Number(text) > high)
      throw new ServiceConfigError(`${name} expected an integer in ${low}..${high}`);
    return Number(text);
  };
  const fee = env.PAYOUT_MAX_FEE_PER_GAS;
  if (fee !== undefined && fee !== '' && !/^[1-9][0-9]{0,29}$/.test(fee))
    throw new ServiceConfigError('PAYOUT_MAX_FEE_PER_GAS expected a positive integer (wei)');
  return {
    maxFeePerGas: fee ? BigInt(fee) : PAYOUT_DEFAULTS.maxFeePerGas,
    deadlineSeconds: integer('PAYOUT_DEADLINE_SECONDS', PAYOUT_DEFAULTS.deadlineSeconds),
    replaceAfterBlocks: integer('PAYOUT_REPLACE_AFTER_BLOCKS', PAYOUT_DEFAULTS.replaceAfterBlocks),
    leaseTtlMs: integer('PAYOUT_LEASE_TTL_MS', PAYOUT_DEFAULTS.leaseTtlMs),
    pollIntervalMs: integer('PAYOUT_POLL_INTERVAL_MS', PAYOUT_DEFAULTS.pollIntervalMs),
  };
}

/** Where the sender's lines go. */
export interface PayoutLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** What the sender runs over. */
export interface PayoutParts {
  readonly ledger: Ledger;
  /** The payout key (it holds the escrow's `PAYOUT_ROLE`). */
  readonly account: LocalAccount;
  readonly client: PublicClient;
  readonly chainId: number;
  readonly escrow: Address;
  readonly token: Address;
  /** The escrow's deployment block (where `Paid` events are searched from). */
  readonly deployBlock: number;
  readonly finality: Finality;
  /** Wei below which nothing new is signed. */
  readonly minGasBalance: bigint;
  /** Where the ledger is: the journal lives beside it. */
  readonly storeConfig: StoreConfig;
  readonly config: PayoutServiceConfig;
  readonly log: PayoutLog;
  readonly metrics?: PayoutMetrics | undefined;
  /** This instance's name in the lease (default: random). */
  readonly holder?: string | undefined;
  /** The escrow requires two-key payouts (docs/chain.md, "Two-key payouts"). */
  readonly twoKey?: TwoKeyOptions | undefined;
}

/** A sender wired, not started yet. */
export interface WiredPayouts {
  readonly sender: PayoutSender;
  /** Starts its passes and lease renewals. */
  start(): void;
  /** Stops it (a pass under way ends), gives the lease up, closes the journal. */
  close(): Promise<void>;
}

/** Wires the payout sender. */
export function payoutSender(parts: PayoutParts): WiredPayouts {
  const journal = openPayoutJournal(parts.storeConfig);
  const rail = new EvmPayoutRail({
    client: parts.client,
    account: parts.account,
    chainId: parts.chainId,
    escrow: parts.escrow,
    token: parts.token,
    journal,
    finality: parts.finality,
    maxFeePerGas: parts.config.maxFeePerGas,
    minGasBalance: parts.minGasBalance,
    deadlineSeconds: parts.config.deadlineSeconds,
    replaceAfterBlocks: parts.config.replaceAfterBlocks,
    fromBlock: BigInt(parts.deployBlock),
    onEvent: (event) => railEvent(parts, event),
    twoKey: parts.twoKey,
  });
  const sender = new PayoutSender({
    ledger: parts.ledger,
    journal,
    rail,
    holder: parts.holder ?? `${randomUUID()}`,
    leaseTtlMs: parts.config.leaseTtlMs,
    onEvent: senderEvents(parts),
  });
  return {
    sender,
    start: () => {
      if (parts.config.pollIntervalMs > 0) sender.start(parts.config.pollIntervalMs);
    },
    close: async () => {
      await sender.stop();
      await journal.close();
    },
  };
}

function railEvent(parts: PayoutParts, event: RailEvent): void {
  parts.metrics?.transaction(event.kind);
  const message =
    event.kind === 'signed'
      ? 'payout transaction signed and sent'
      : event.kind === 'replaced'
        ? 'payout transaction replaced (fees bumped)'
        : 'payout transaction broadcast again';
  parts.log.info(
    {
      withdrawalId: event.withdrawalId,
      nonce: event.nonce,
      hash: event.hash,
      broadcast: event.broadcast,
    },
    message,
  );
}

/** Reasons to wait that the operator should hear about when they begin. */
const LOUD_WAITS: readonly PayoutWait[] = [
  'gas_low',
  'gas_above_ceiling',
  'rail_refusing',
  'rail_unreachable',
];

function senderEvents(parts: PayoutParts): (event: PayoutEvent) => void {
  let loud = new Set<PayoutWait>();
  let failing: string | null = null;
  return (event) => {
    if (event.kind === 'recorded') {
      if (event.status !== 'paying') parts.metrics?.recorded(event.status);
      parts.log.info(
        {
          withdrawalId: event.withdrawalId,
          status: event.status,
          ...(event.reference ? { transaction: event.reference } : {}),
          ...(event.reason ? { reason: event.reason } : {}),
        },
        'payout step recorded',
      );
    } else if (event.kind === 'lease') {
      parts.log.info({ role: event.role, epoch: event.epoch }, 'payout sender lease');
    } else if (event.kind === 'pass_failed') {
      // Said when the failure begins or changes, not at every poll while the RPC is down.
      if (event.message !== failing)
        parts.log.warn({ error: event.message }, 'payout pass failed; retried at each poll');
      failing = event.message;
    } else {
      if (failing !== null) parts.log.info({}, 'payout passes resumed');
      failing = null;
      const now = new Set(LOUD_WAITS.filter((wait) => (event.waiting[wait] ?? 0) > 0));
      for (const wait of now)
        if (!loud.has(wait))
          parts.log.warn(
            { wait, withdrawals: event.waiting[wait] },
            wait === 'gas_low'
              ? 'payout key below the minimum gas balance: nothing new is signed until it is topped up'
              : 'payouts wait',
          );
      loud = now;
    }
  };
}

/** A log whose target is set once the pool node's logger exists (lines before it are dropped). */
export interface DeferredPayoutLog extends PayoutLog {
  target: PayoutLog | null;
}

/** What a chain pool's sender runs over in the service. */
export interface ChainPayoutParts {
  readonly ledger: Ledger;
  readonly keys: OperatorKeys;
  readonly storeConfig: StoreConfig;
  /** The metrics' registry, when metrics are on. */
  readonly registry?: Registry | undefined;
  /** The settings (default: from the environment, `payoutConfigFromEnv`). */
  readonly config?: PayoutServiceConfig | undefined;
  /**
   * Two-key payouts: asks this instance's attester to attest now (none: the payout waits for the
   * next interval of whichever instance holds the attester key).
   */
  readonly requestAttestation?: (() => void) | undefined;
}

/** The least time between two attestations the payout rail asks for, ms. */
export const ATTESTATION_REQUEST_GAP_MS = 30_000;

/** `request`, at most once per {@link ATTESTATION_REQUEST_GAP_MS}. */
function throttled(request: () => void, clock: () => number = Date.now): () => void {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const now = clock();
    if (now - last < ATTESTATION_REQUEST_GAP_MS) return;
    last = now;
    request();
  };
}

/**
 * The payout sender of a chain pool's pool-node instance, not started yet; `null` without a payout
 * key (exits then wait for an instance of the pool node that holds it).
 * @throws ServiceConfigError for a payout setting out of its range
 */
export function chainPayouts(
  opened: OpenedChain,
  chain: ChainServiceConfig,
  parts: ChainPayoutParts,
): (WiredPayouts & { readonly log: DeferredPayoutLog }) | null {
  const account = parts.keys.account('payout');
  if (!account) return null;
  const log: DeferredPayoutLog = {
    target: null,
    info: (fields, message) => log.target?.info(fields, message),
    warn: (fields, message) => log.target?.warn(fields, message),
  };
  let wired: WiredPayouts | null = null;
  const metrics = parts.registry
    ? new PayoutMetrics(parts.registry, () => {
        const status = wired?.sender.status();
        return {
          role: status?.role ?? 'stopped',
          waiting: status?.waiting ?? {},
          gasBalance: status?.rail.gasBalance ?? null,
          gasLow: status?.rail.gasLow ?? false,
          lastPassAt: status?.lastPassAt ?? null,
        };
      })
    : undefined;
  const { checked, clients } = opened;
  wired = payoutSender({
    ledger: parts.ledger,
    account,
    client: clients.public,
    chainId: checked.chainId,
    escrow: checked.escrow,
    token: checked.token,
    deployBlock: checked.deployBlock,
    finality: chain.finality,
    minGasBalance: chain.minGasBalance ?? DEFAULT_MIN_GAS_BALANCE,
    storeConfig: parts.storeConfig,
    config: parts.config ?? payoutConfigFromEnv(),
    log,
    metrics,
    twoKey: opened.twoKeyPayouts
      ? {
          sets: opened.attestedSets,
          onUnattested: parts.requestAttestation && throttled(parts.requestAttestation),
        }
      : undefined,
  });
  return { ...wired, log };
}
