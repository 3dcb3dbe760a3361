/**
 * @module The wallet's client of a chain-backed pool node's routes (`chain-routes.ts`): the pool's
 * chain facts, and the relayer's two writes. `fetch` only, so it runs in Node and in browsers; a
 * custom `fetch` (a proxy) keeps the wallet's network address from the relayer.
 */

import type {
  ChainFactsReply,
  RelayDepositRequest,
  RelayReceipt,
  RelayReclaimRequest,
} from './chain-schemas.js';
import { PoolNodeConnection, type PoolNodeConnectionOptions } from './node-request.js';

export type {
  ChainFactsReply,
  RelayDepositRequest,
  RelayReceipt,
  RelayReclaimRequest,
} from './chain-schemas.js';

const postJson = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/**
 * What a wallet asks a chain-backed pool node.
 * @example
 * const chain = new PoolNodeChainClient('http://127.0.0.1:4021');
 * const { escrow, relayer } = await chain.facts();
 */
export class PoolNodeChainClient {
  private readonly connection: PoolNodeConnection;

  /** @param url the node's base URL, e.g. `http://127.0.0.1:4021` */
  constructor(url: string, options: PoolNodeConnectionOptions = {}) {
    // A relay waits for its transaction to be mined: room beyond the usual 15 s.
    this.connection = new PoolNodeConnection(url, { timeoutMs: 90_000, ...options });
  }

  /** The node's base URL, without a trailing slash. */
  get url(): string {
    return this.connection.url;
  }

  /**
   * The pool's chain facts.
   * @throws PoolNodeError `not_found` from a pool node that no chain backs (the devnet)
   */
  facts(): Promise<ChainFactsReply> {
    return this.connection.request('/chain');
  }

  /** Has the relayer send a signed gasless deposit (`mined: false`: sent, not mined yet). */
  relayDeposit(body: RelayDepositRequest): Promise<RelayReceipt> {
    return this.connection.request('/relay/deposit', postJson(body));
  }

  /** Has the relayer send a depositor's signed reclaim. */
  relayReclaim(body: RelayReclaimRequest): Promise<RelayReceipt> {
    return this.connection.request('/relay/reclaim', postJson(body));
  }
}
