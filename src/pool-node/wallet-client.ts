/**
 * @module The wallet's client of the devnet pool node: its reads (the head, and checkpoints, leaves
 * and events by fixed page — or by cursor, for callers that want one — never one note's path, since
 * asking for it would tell which note is yours) and its writes (a proof's hand-over, a transfer, a note transition). No token: nothing it
 * asks is the operator's. The bodies and replies are the node's own types (`*-schema.ts`).
 */

import type { DigestHex } from '../core/digest.js';
import { handOverBodies } from './handover-request.js';
import type { HandOverFrameRequest, HandOverReply, HandOverRequest } from './handover-schema.js';
import {
  PoolNodeConnection,
  type PoolNodeConnectionOptions,
  PoolNodeError,
  pageQuery,
} from './node-request.js';
import type {
  CheckpointsPage,
  EventsPage,
  LeavesPage,
  PoolNodeHealth,
  PoolNodeState,
} from './read-schemas.js';
import type { TransferReceipt, TransferRequest } from './transfer-schema.js';
import type { TransitionReceipt, TransitionRequest } from './transition-schema.js';

/** A JSON `POST` of `body`. */
const postJson = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/**
 * What a wallet asks one pool node.
 * @example
 * const node = new PoolNodeWalletClient('http://127.0.0.1:4021');
 * const { leaves, next } = await node.leaves(0);
 */
export class PoolNodeWalletClient {
  private readonly connection: PoolNodeConnection;

  /** @param url the node's base URL, e.g. `http://127.0.0.1:4021` */
  constructor(url: string, options: PoolNodeConnectionOptions = {}) {
    this.connection = new PoolNodeConnection(url, options);
  }

  /** The node's base URL, without a trailing slash. */
  get url(): string {
    return this.connection.url;
  }

  /** The ledger's head. */
  state(): Promise<PoolNodeState> {
    return this.connection.request('/state');
  }

  /**
   * Whether the node serves, and the transition parameter sets it accepts
   * (`transitionParameterSets`; absent on a node of an older release, which accepts set 16 only).
   */
  health(): Promise<PoolNodeHealth> {
    return this.connection.request('/health');
  }

  /**
   * Fixed page `page` of the checkpoints (seq `1000·page + 1` onwards, `PAGE_SIZES`): the same URL
   * for every wallet, kept by any HTTP cache once full.
   */
  checkpointsPage(page: number): Promise<CheckpointsPage> {
    return this.connection.request(`/checkpoints?page=${page}`);
  }

  /** Fixed page `page` of the leaves (indexes `4096·page` onwards). */
  leavesPage(page: number): Promise<LeavesPage> {
    return this.connection.request(`/leaves?page=${page}`);
  }

  /** Fixed page `page` of the events (positions `1000·page + 1` onwards). */
  eventsPage(page: number): Promise<EventsPage> {
    return this.connection.request(`/events?page=${page}`);
  }

  /**
   * Checkpoints after a cursor (`limit` default: the node's). A cursor names one wallet's place in
   * the log: wallets read fixed pages ({@link checkpointsPage}).
   */
  checkpoints(after = 0, limit?: number): Promise<CheckpointsPage> {
    return this.connection.request(`/checkpoints${pageQuery('after', after, limit)}`);
  }

  /** Leaves from an index (`limit` default: the node's); wallets read {@link leavesPage}. */
  leaves(from = 0, limit?: number): Promise<LeavesPage> {
    return this.connection.request(`/leaves${pageQuery('from', from, limit)}`);
  }

  /** Events after a cursor (`limit` default: the node's); wallets read {@link eventsPage}. */
  events(after = 0, limit?: number): Promise<EventsPage> {
    return this.connection.request(`/events${pageQuery('after', after, limit)}`);
  }

  /** Every leaf up to `size` (or to the end), page by page. */
  async allLeaves(size?: number): Promise<DigestHex[]> {
    const out: DigestHex[] = [];
    for (;;) {
      const page = await this.leaves(out.length);
      out.push(...page.leaves);
      if (page.leaves.length === 0 || (size !== undefined && out.length >= size))
        return size === undefined ? out : out.slice(0, size);
    }
  }

  /**
   * Hands a proof over before a compact payment (`POST /proofs`): the payment fields the proof is
   * bound to, its public inputs and the proof — as bytes, sent as a frame
   * (`scheme/handover-frame.ts`, a quarter smaller than JSON and nothing for the node to decode from
   * base64), or in canonical base64, sent as JSON. A node that takes no frames (415), or fields too
   * long for a frame's header, get the JSON body instead (`handover-request.ts`). Send it over a transport of its own (a client built with its own `fetch`), not
   * the one that syncs: the node sees the address it comes from (docs/compact-payments.md, privacy).
   * @returns the reference and when the node drops it (unix seconds)
   * @throws PoolNodeError with the node's reason (`invalid_priv_stark_proof`, `unknown_root`,
   *   `rate_limited`, `proof_store_full`, …)
   */
  async handOver(body: HandOverRequest | HandOverFrameRequest): Promise<HandOverReply> {
    const { frame, json } = handOverBodies(body);
    if (frame !== null) {
      try {
        return await this.connection.request('/proofs', { method: 'POST', ...frame });
      } catch (error) {
        if (!(error instanceof PoolNodeError) || error.status !== 415) throw error;
      }
    }
    return this.connection.request('/proofs', { method: 'POST', ...json() });
  }

  /**
   * Settles a transfer (`POST /transfers`): a payment statement bound to the pool's transfer
   * context, paying `recipient`. Like a hand-over, send it over a transport of its own.
   * @throws PoolNodeError with the node's reason (`duplicate_settlement`, `unknown_root`,
   *   `expiry_too_far`, `invalid_priv_stark_proof`, `rate_limited`, …)
   */
  transfer(body: TransferRequest): Promise<TransferReceipt> {
    return this.connection.request('/transfers', postJson(body));
  }

  /**
   * Applies a merge, split or exit (`POST /transitions`). Like a hand-over, send it over a
   * transport of its own.
   * @throws PoolNodeError with the node's reason (`duplicate_settlement`, `nullifier_already_spent`,
   *   `unknown_root`, `expiry_too_far`, `invalid_priv_stark_proof`, `rate_limited`, …)
   */
  transition(body: TransitionRequest): Promise<TransitionReceipt> {
    return this.connection.request('/transitions', postJson(body));
  }
}
