/**
 * @module A real pool node over a SQLite ledger on an epoch grid, its clock injected and no
 * checkpoint timer (the test cuts checkpoints by hand), for the suites of the grid (test/anchors/).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Wallet } from '../src/client/index.js';
import type { PrivStarkCore } from '../src/core/index.js';
import { Ledger, openStore, type PoolStore } from '../src/ledger/index.js';
import { buildPoolNode, PoolNodeClient } from '../src/pool-node/index.js';
import type { EpochGrid } from '../src/scheme/index.js';

const TOKEN = 'operator-token-anchors-0123456789';

/** A running pool node on a grid, its ledger and store, and the clock both read. */
export interface GridNode {
  readonly ledger: Ledger;
  readonly store: PoolStore;
  readonly url: string;
  readonly operator: PoolNodeClient;
  readonly clock: { now: number };
  close(): Promise<void>;
}

/** Starts a pool node on `grid` whose clock reads `start` until the test moves it. */
export async function gridNode(
  core: PrivStarkCore,
  grid: EpochGrid,
  start: number,
): Promise<GridNode> {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-anchors-'));
  const store = await openStore(core, { dataDir: dir });
  const clock = { now: start };
  const ledger = new Ledger({ core, store, clock: () => clock.now, epoch: grid });
  const node = await buildPoolNode({ ledger, operatorToken: TOKEN, logger: false });
  await node.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(node.server.address() as { port: number }).port}`;
  return {
    ledger,
    store,
    url,
    operator: new PoolNodeClient(url, { token: TOKEN }),
    clock,
    close: async () => {
      await node.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The operator pays a ticket of `wallet`'s for `amount` in. */
export async function depositTo(node: GridNode, wallet: Wallet, amount: string): Promise<void> {
  const ticket = await wallet.depositTicket(amount);
  await node.operator.deposit(ticket.amount, ticket.pre);
}
