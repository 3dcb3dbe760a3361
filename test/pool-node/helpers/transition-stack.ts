// What the transition and exit suites share: a pool node on loopback over a fresh store of the
// harness, wallets funded through the operator route with their transitions recorded (and held
// back on demand), and a raw JSON call.

import type { FastifyInstance } from 'fastify';
import { afterEach } from 'vitest';

import { MemoryWalletStore, Wallet } from '../../../src/client/index.js';
import type { ParameterSetInfo } from '../../../src/core/index.js';
import { Ledger, type PoolStore } from '../../../src/ledger/index.js';
import {
  buildPoolNode,
  type HandOverLimits,
  PoolNodeClient,
  type TransitionRequest,
} from '../../../src/pool-node/index.js';
import type { storeHarness } from '../../ledger/helpers/stores.js';

export const TOKEN = 'operator-token-for-tests-0123456789';
/** High enough that no test meets it. */
const NO_LIMIT: HandOverLimits = { max: 1_000_000, timeWindowMs: 60_000 };

// biome-ignore lint/suspicious/noExplicitAny: replies are read field by field in the tests
export type Json = any;

/** `path` on `url` with `init`; the reply's status and JSON body (`null` when not JSON). */
export async function call(
  url: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; json: Json }> {
  const response = await fetch(`${url}${path}`, init);
  const text = await response.text();
  let json: Json = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, json };
}

/** `POST /transitions` with a JSON body (any value). */
export function postTransition(
  url: string,
  body: unknown,
): Promise<{ status: number; json: Json }> {
  return call(url, '/transitions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Records every transition body a wallet sends; holds them back (no request) while `hold` is set. */
export class Capture {
  readonly bodies: TransitionRequest[] = [];
  hold = false;
  readonly fetch: typeof fetch = async (input, init) => {
    if (String(input).endsWith('/transitions')) {
      this.bodies.push(JSON.parse(String(init?.body)) as TransitionRequest);
      if (this.hold) throw new Error('held back by the test');
    }
    return globalThis.fetch(input, init);
  };
}

/** The values of `wallet`'s unspent notes, as the wallet lists them. */
export function unspentValues(wallet: Wallet): string[] {
  return wallet
    .notes()
    .filter((n) => !n.spent)
    .map((n) => n.value);
}

/** The sum of the unspent notes of `wallets`. */
export function unspentTotal(wallets: readonly Wallet[]): bigint {
  let total = 0n;
  for (const w of wallets) for (const n of w.notes()) if (!n.spent) total += BigInt(n.value);
  return total;
}

/** Pool nodes over the harness's stores, closed after each test (call inside a `describe`). */
export function transitionStack(h: ReturnType<typeof storeHarness>) {
  let apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
  });

  /** `transitionParameterSets`: what its `/health` lists (absent: nothing, as an older release). */
  async function startNode(
    store?: PoolStore,
    transitionParameterSets?: readonly ParameterSetInfo[],
  ) {
    const core = h.core();
    const theStore = store ?? (await h.fresh()).store;
    const ledger = new Ledger({ core, store: theStore });
    const app = await buildPoolNode({
      ledger,
      transitionParameterSets,
      operatorToken: TOKEN,
      logger: false,
      handOver: NO_LIMIT,
    });
    apps.push(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    return {
      core,
      ledger,
      store: theStore,
      url,
      operator: new PoolNodeClient(url, { token: TOKEN }),
    };
  }
  type Node = Awaited<ReturnType<typeof startNode>>;

  /** A wallet of `node` holding one deposit per amount, in a checkpoint, synced. */
  async function fundedWallet(node: Node, amounts: readonly bigint[]) {
    const capture = new Capture();
    const store = new MemoryWalletStore();
    const wallet = await Wallet.create({
      core: node.core,
      pool: node.url,
      store,
      handOverFetch: capture.fetch,
    });
    for (const amount of amounts) {
      const ticket = await wallet.depositTicket(amount.toString());
      await node.operator.deposit(ticket.amount, ticket.pre);
    }
    await node.ledger.checkpoint();
    await wallet.sync();
    return { wallet, capture, store };
  }

  /** A checkpoint, then a sync of each wallet. */
  async function settle(node: Node, wallets: readonly Wallet[]) {
    await node.ledger.checkpoint();
    for (const w of wallets) await w.sync();
  }

  return { startNode, fundedWallet, settle };
}
