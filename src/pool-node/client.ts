/**
 * @module The one client of the devnet pool node's HTTP API: {@link PoolNodeClient}, the wallet's
 * client (`wallet-client.ts`: reads and writes) and the operator's (`operator-client.ts`: the
 * token's calls) under one name, with what callers of either need — its error, the node's wire
 * types. It needs nothing but `fetch`, so it runs in Node and in browsers; the transport is
 * replaceable (a custom `fetch`, e.g. through a proxy). Every failure is a {@link PoolNodeError}
 * carrying the node's stable `error` code, or `pool_unreachable` when no reply came.
 */

import type { AttestReport } from './attest-route.js';
import type { DigestHex } from '../core/digest.js';
import type { PayoutStatus } from '../ledger/store.js';
import type { HandOverFrameRequest, HandOverReply, HandOverRequest } from './handover-schema.js';
import { PoolNodeOperatorClient, type PoolNodeOperatorClientOptions } from './operator-client.js';
import type { DepositReceipt, PayoutReply, WithdrawalsPage } from './operator-schemas.js';
import type {
  CheckpointsPage,
  EventsPage,
  LeavesPage,
  PoolNodeHealth,
  PoolNodeState,
} from './read-schemas.js';
import type { TransferReceipt, TransferRequest } from './transfer-schema.js';
import type { TransitionReceipt, TransitionRequest } from './transition-schema.js';
import { PoolNodeWalletClient } from './wallet-client.js';

export { PoolNodeError } from './node-request.js';
export { PoolNodeChainClient } from './chain-client.js';
export type {
  ChainFactsReply,
  RelayDepositRequest,
  RelayReceipt,
  RelayReclaimRequest,
} from './chain-schemas.js';
export { PAGE_SIZES } from './public-pages.js';
export type { Checkpoint, PoolEvent } from '../ledger/store.js';
export { type HandOverBody, handOverBodies } from './handover-request.js';
export type { HandOverFrameRequest, HandOverReply, HandOverRequest } from './handover-schema.js';
export type { PoolNodeHealth, PoolNodeState } from './read-schemas.js';
export type { TransferReceipt, TransferRequest } from './transfer-schema.js';
export type { TransitionReceipt, TransitionRequest } from './transition-schema.js';

/** Options of {@link PoolNodeClient}: the transport, and the operator token for the operator's calls. */
export type PoolNodeClientOptions = PoolNodeOperatorClientOptions;

/**
 * A client of one pool node: the wallet's calls and the operator's, each answered by its own client
 * ({@link PoolNodeClient.wallet}, {@link PoolNodeClient.operator}).
 * @example
 * const node = new PoolNodeClient('http://127.0.0.1:4021');
 * const { leaves, next } = await node.leaves(0);
 */
export class PoolNodeClient {
  /** The node's base URL, without a trailing slash. */
  readonly url: string;
  /** The wallet's reads and writes. */
  readonly wallet: PoolNodeWalletClient;
  /** The operator's calls (with the token of the options). */
  readonly operator: PoolNodeOperatorClient;

  /** @param url the node's base URL, e.g. `http://127.0.0.1:4021` */
  constructor(url: string, options: PoolNodeClientOptions = {}) {
    this.wallet = new PoolNodeWalletClient(url, options);
    this.operator = new PoolNodeOperatorClient(url, options);
    this.url = this.wallet.url;
  }

  /** The ledger's head ({@link PoolNodeWalletClient.state}). */
  state(): Promise<PoolNodeState> {
    return this.wallet.state();
  }

  /** `GET /health` ({@link PoolNodeWalletClient.health}). */
  health(): Promise<PoolNodeHealth> {
    return this.wallet.health();
  }

  /** Fixed page of the checkpoints ({@link PoolNodeWalletClient.checkpointsPage}). */
  checkpointsPage(page: number): Promise<CheckpointsPage> {
    return this.wallet.checkpointsPage(page);
  }

  /** Fixed page of the leaves ({@link PoolNodeWalletClient.leavesPage}). */
  leavesPage(page: number): Promise<LeavesPage> {
    return this.wallet.leavesPage(page);
  }

  /** Fixed page of the events ({@link PoolNodeWalletClient.eventsPage}). */
  eventsPage(page: number): Promise<EventsPage> {
    return this.wallet.eventsPage(page);
  }

  /** Checkpoints after a cursor ({@link PoolNodeWalletClient.checkpoints}). */
  checkpoints(after = 0, limit?: number): Promise<CheckpointsPage> {
    return this.wallet.checkpoints(after, limit);
  }

  /** Leaves from an index ({@link PoolNodeWalletClient.leaves}). */
  leaves(from = 0, limit?: number): Promise<LeavesPage> {
    return this.wallet.leaves(from, limit);
  }

  /** Events after a cursor ({@link PoolNodeWalletClient.events}). */
  events(after = 0, limit?: number): Promise<EventsPage> {
    return this.wallet.events(after, limit);
  }

  /** Every leaf up to `size` ({@link PoolNodeWalletClient.allLeaves}). */
  allLeaves(size?: number): Promise<DigestHex[]> {
    return this.wallet.allLeaves(size);
  }

  /** Hands a proof over before a compact payment ({@link PoolNodeWalletClient.handOver}). */
  handOver(body: HandOverRequest | HandOverFrameRequest): Promise<HandOverReply> {
    return this.wallet.handOver(body);
  }

  /** Settles a transfer ({@link PoolNodeWalletClient.transfer}). */
  transfer(body: TransferRequest): Promise<TransferReceipt> {
    return this.wallet.transfer(body);
  }

  /** Applies a merge, split or exit ({@link PoolNodeWalletClient.transition}). */
  transition(body: TransitionRequest): Promise<TransitionReceipt> {
    return this.wallet.transition(body);
  }

  /** Withdrawals after the cursor ({@link PoolNodeOperatorClient.withdrawals}). */
  withdrawals(after = 0, limit?: number): Promise<WithdrawalsPage> {
    return this.operator.withdrawals(after, limit);
  }

  /** Records a payout step of a withdrawal ({@link PoolNodeOperatorClient.payout}). */
  payout(withdrawalId: string, status: PayoutStatus): Promise<PayoutReply> {
    return this.operator.payout(withdrawalId, status);
  }

  /** Posts an attestation now ({@link PoolNodeOperatorClient.attest}). */
  attest(): Promise<AttestReport> {
    return this.operator.attest();
  }

  /** Shields `amount` to the precommitment `pre` ({@link PoolNodeOperatorClient.deposit}). */
  deposit(amount: string, pre: string): Promise<DepositReceipt> {
    return this.operator.deposit(amount, pre);
  }
}
