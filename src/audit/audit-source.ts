/**
 * @module What the log audit reads and what it hands the chain's half (docs/audit.md, "The audit"):
 * the public pages of a pool node (or a store's same reads), the attested claims as the chain holds
 * them, and the facts of money the log gives.
 */

import type { PrivStarkCore } from '../core/facade.js';
import type { DigestHex } from '../core/digest.js';
import type {
  ArchivedProof,
  ArchiveState,
  Checkpoint,
  LogDigestRecord,
  PoolEvent,
} from '../ledger/index.js';

/** The public pages the audit reads (a pool node's routes, or a store's same reads in tests). */
export interface AuditLogSource {
  publishedEvents(after: number, limit: number): Promise<PoolEvent[]>;
  archivedProofs(after: number, limit: number): Promise<ArchivedProof[]>;
  archiveState(): Promise<ArchiveState>;
  leaves(from: number, limit: number): Promise<DigestHex[]>;
  checkpoints(after: number, limit: number): Promise<Checkpoint[]>;
  logDigests(after: number, limit: number): Promise<LogDigestRecord[]>;
}

/** An attestation as the chain holds it. */
export interface AttestedClaim {
  readonly seq: number;
  readonly root: string;
  readonly logDigest: string;
  /** Deposited, withdrawn, paid out, refunded. */
  readonly totals: readonly [bigint, bigint, bigint, bigint];
}

/** The core's parts the audit uses. */
export type AuditCore = Pick<
  PrivStarkCore,
  | 'hashElements'
  | 'decodeAddress'
  | 'emptyFrontier'
  | 'frontierAppend'
  | 'frontierAppendAsync'
  | 'verifySpend'
  | 'verifyTransition'
>;

/** What the log says of money, for the chain's half of the audit (`src/chain/chain-audit.ts`). */
export interface LogFacts {
  /** Each deposit's commitment: its position and amount. */
  readonly deposits: ReadonlyMap<string, { readonly event: number; readonly amount: bigint }>;
  /** Each withdrawal by id: amount, destination (CAIP-10), and whether it was refunded. */
  readonly withdrawals: ReadonlyMap<
    string,
    {
      readonly event: number;
      readonly amount: bigint;
      readonly destination: string;
      refunded: boolean;
    }
  >;
}
